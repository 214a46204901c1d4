package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.CommittedOffsetsReader;
import io.lakestream.lake.LakeCommitter;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.tiering.IcebergDataWriter.IcebergFiles;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's {@link LakeCommitter}: one append snapshot (a log table) or row delta (a primary-key
 * table) whose summary records the offsets, and which moves the tag {@value TieredOffsets#TAG} to
 * itself, committed through {@link ExpectingOffsets} so that it fails with {@link
 * TieringConflictException} when the table no longer holds the round's start offsets. After a
 * commit the offsets go to the {@link TieredOffsetsStore}, and the table's compaction and snapshot
 * expiry run when due.
 */
final class IcebergCommitter implements LakeCommitter<IcebergLakeTable, IcebergFiles> {
  // Logs as the tierer, whose logger operators (and the crash tests) turn up.
  private static final Logger LOG = LoggerFactory.getLogger(IcebergTableTiering.class);

  private final TieredOffsetsStore offsetsStore;
  private final PrimaryKeyCompaction compaction = new PrimaryKeyCompaction();
  private final LogTableCompaction logCompaction = new LogTableCompaction();
  private final SnapshotExpiry expiry = new SnapshotExpiry(java.time.Clock.systemUTC());

  IcebergCommitter(TieredOffsetsStore offsetsStore) {
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
  }

  /**
   * @throws CommitStateUnknownException when the commit's outcome is unknown; the files are kept
   *     and the next round finds out from the table's offsets
   */
  @Override
  public TieringRound commit(
      IcebergLakeTable lakeTable,
      CommittedOffsetsReader.Start start,
      TieredOffsets to,
      IcebergFiles written) {
    TablePath path = lakeTable.path();
    Table table = lakeTable.table();
    boolean committed = false;
    try {
      ExpectingOffsets guarded = new ExpectingOffsets(lakeTable.operations(), start.inLake(), path);
      BaseTable base = new BaseTable(guarded, table.name());
      LOG.debug(
          "Committing {} data and {} delete files of {} up to {}",
          written.files().size(),
          written.deletes().size(),
          path,
          to);
      if (lakeTable.primaryKey()) {
        RowDelta delta = base.newRowDelta();
        written.files().forEach(delta::addRows);
        written.deletes().forEach(delta::addDeletes);
        delta.set(TieredOffsets.SUMMARY_KEY, to.toJson());
        delta.commit();
      } else {
        AppendFiles append = base.newFastAppend();
        written.files().forEach(append::appendFile);
        append.set(TieredOffsets.SUMMARY_KEY, to.toJson());
        append.commit();
      }
      committed = true;
      Snapshot snapshot = guarded.committed().currentSnapshot();
      long snapshotId = snapshot.snapshotId();
      record(path, guarded.committed().uuid(), snapshot, to);
      LOG.debug("Tiered {} rows of {} in {} files: {}", written.rows(), path, written.count(), to);
      // The table's operations now hold the committed state, so no reload is needed.
      if (lakeTable.primaryKey()) {
        compaction.compactIfDue(path, table);
      } else {
        logCompaction.compactIfDue(path, table, written.files().size());
      }
      expiry.expireIfDue(path, table);
      return new TieringRound(
          path, TieringRound.Outcome.COMMITTED, written.rows(), written.count(), snapshotId, to);
    } catch (TieringConflictException e) {
      LOG.info("Another tierer committed {} first: {}", path, e.getMessage());
      return new TieringRound(path, TieringRound.Outcome.LOST_RACE, 0, 0, -1, start.from());
    } catch (CommitStateUnknownException e) {
      committed = true; // the files may be in the table: keep them
      throw e;
    } finally {
      if (!committed) {
        abort(lakeTable, written);
      }
    }
  }

  @Override
  public void abort(IcebergLakeTable table, IcebergFiles files) {
    IcebergDataWriter.delete(table.table().io(), files);
  }

  /**
   * Records a commit's offsets in the store; a failure leaves it to the next round to reconcile.
   */
  private void record(TablePath path, String uuid, Snapshot snapshot, TieredOffsets offsets) {
    try {
      offsetsStore.record(
          uuid,
          new TieredOffsetsStore.Entry(
              path, snapshot.snapshotId(), snapshot.sequenceNumber(), offsets));
    } catch (RuntimeException e) {
      LOG.warn(
          "Tiered {} up to {} but cannot record the offsets in the catalog; the next round does",
          path,
          offsets,
          e);
    }
  }
}
