package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.CommittedOffsetsReader;
import io.lakestream.lake.LakeCommitter;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.lake.paimon.PaimonDataWriter.PaimonFiles;
import java.util.List;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paimon's {@link LakeCommitter}: one Paimon commit of the round's messages whose properties hold
 * the offsets ({@value TieredOffsets#SUMMARY_KEY}), under the table's commit user and the round's
 * identifier, so that Paimon's {@code filterAndCommitMultiple} drops it when that identifier is
 * committed already; before it, a check that the table still holds the round's start offsets. Then
 * the offsets are recorded in the {@link TieredOffsetsStore} and the catalog entry is pointed at
 * the new state ({@link PaimonCatalogEntry#sync}). See {@link PaimonTableTiering} for why this is
 * exactly once.
 */
final class PaimonCommitter implements LakeCommitter<PaimonLakeTable, PaimonFiles> {
  // Logs as the tierer, whose logger operators (and the crash tests) turn up.
  private static final Logger LOG = LoggerFactory.getLogger(PaimonTableTiering.class);

  private final PaimonCatalogEntry entries;
  private final TieredOffsetsStore offsetsStore;

  PaimonCommitter(PaimonCatalogEntry entries, TieredOffsetsStore offsetsStore) {
    this.entries = requireNonNull(entries, "entries is null");
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
  }

  /**
   * Commits a prepared round, on the condition that the Paimon table still holds the offsets the
   * round started from and that no commit of its identifier exists; then points the catalog entry
   * at the new state. Calling it again for the same round commits nothing.
   *
   * @return {@link TieringRound.Outcome#COMMITTED}, or {@link TieringRound.Outcome#LOST_RACE} when
   *     the condition did not hold (another round, or this one before, committed first)
   * @throws RuntimeException from Paimon or the catalog; the commit may or may not have happened,
   *     which the next round finds out from the table's offsets
   */
  @Override
  public TieringRound commit(
      PaimonLakeTable lakeTable,
      CommittedOffsetsReader.Start start,
      TieredOffsets to,
      PaimonFiles files) {
    TablePath path = lakeTable.path();
    FileStoreTable table = lakeTable.table();
    SnapshotManager snapshots = table.snapshotManager();
    TieredOffsets current =
        PaimonStartOffsets.resolve(path, lakeTable.uuid(), table, offsetsStore, false);
    if (!current.equals(start.from()) || identifierTaken(table, files)) {
      LOG.info(
          "Another round committed {} first (offsets {} instead of {})",
          path,
          current,
          start.from());
      if (!identifierTaken(table, files)) {
        abortQuietly(path, table, files);
      }
      entries.sync(path, table, lakeTable.primaryKey());
      return new TieringRound(path, TieringRound.Outcome.LOST_RACE, 0, 0, -1, current);
    }
    ManifestCommittable committable = new ManifestCommittable(files.identifier());
    files.messages().forEach(committable::addFileCommittable);
    committable.addProperty(TieredOffsets.SUMMARY_KEY, to.toJson());
    LOG.debug(
        "Committing {} Paimon files of {} up to {} (identifier {})",
        files.count(),
        path,
        to,
        files.identifier());
    int committed;
    try (TableCommitImpl commit =
        (TableCommitImpl)
            table.newStreamWriteBuilder().withCommitUser(files.commitUser()).newCommit()) {
      // A round whose changes cancel out (a key inserted and deleted) still records its offsets.
      commit.ignoreEmptyCommit(false);
      committed = commit.filterAndCommitMultiple(List.of(committable));
    } catch (RuntimeException e) {
      Optional<Snapshot> snapshot = committedSnapshot(table, files);
      if (snapshot.isEmpty()) {
        throw e;
      }
      // Paimon committed the round and then failed in its Iceberg callback.
      LOG.warn(
          "Paimon committed snapshot {} of {} but did not write its Iceberg metadata",
          snapshot.get().id(),
          path,
          e);
      PaimonIcebergMetadata.write(path, table, files.commitUser(), snapshot.get(), e);
      committed = 1;
    } catch (Exception e) {
      throw new TieringException("Cannot close the Paimon commit of " + path + ": " + e, e);
    }
    if (committed == 0) {
      LOG.info("Identifier {} of {} was committed before", files.identifier(), path);
      entries.sync(path, table, lakeTable.primaryKey());
      return new TieringRound(
          path,
          TieringRound.Outcome.LOST_RACE,
          0,
          0,
          -1,
          PaimonStartOffsets.resolve(path, lakeTable.uuid(), table, offsetsStore, false));
    }
    Long snapshotId = snapshots.latestSnapshotIdFromFileSystem();
    // The round's own last snapshot (a foreign commit may have come right after it).
    committedSnapshot(table, files)
        .ifPresent(
            snapshot ->
                PaimonStartOffsets.recordCommit(
                    path, lakeTable.uuid(), table, snapshot.id(), to, offsetsStore));
    entries.sync(path, table, lakeTable.primaryKey());
    LOG.debug("Tiered {} rows of {} into Paimon: {}", files.rows(), path, to);
    return new TieringRound(
        path,
        TieringRound.Outcome.COMMITTED,
        files.rows(),
        files.count(),
        snapshotId == null ? -1 : snapshotId,
        to);
  }

  /**
   * Deletes the files of a round that is certainly not committed.
   *
   * @throws IllegalStateException when a commit of the round's identifier exists
   */
  void abortOrThrow(TablePath path, FileStoreTable table, PaimonFiles files) {
    if (identifierTaken(table, files)) {
      throw new IllegalStateException(
          "Identifier " + files.identifier() + " of " + path + " is committed");
    }
    try (TableCommitImpl commit =
        (TableCommitImpl)
            table.newStreamWriteBuilder().withCommitUser(files.commitUser()).newCommit()) {
      commit.abort(files.messages());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException("Cannot abort a Paimon round of " + path, e);
    }
  }

  @Override
  public void abort(PaimonLakeTable table, PaimonFiles files) {
    abortQuietly(table.path(), table.table(), files);
  }

  private void abortQuietly(TablePath path, FileStoreTable table, PaimonFiles files) {
    try {
      abortOrThrow(path, table, files);
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete the files of a failed round of {}", path, e);
    }
  }

  private static boolean identifierTaken(FileStoreTable table, PaimonFiles files) {
    SnapshotManager snapshots = table.snapshotManager();
    return snapshots
        .latestSnapshotOfUser(files.commitUser(), snapshots.latestSnapshotIdFromFileSystem(), null)
        .map(snapshot -> snapshot.commitIdentifier() >= files.identifier())
        .orElse(false);
  }

  /** The newest snapshot of the round's commit user and identifier, if Paimon committed one. */
  private static Optional<Snapshot> committedSnapshot(FileStoreTable table, PaimonFiles files) {
    SnapshotManager snapshots = table.snapshotManager();
    Long latest = snapshots.latestSnapshotIdFromFileSystem();
    if (latest == null) {
      return Optional.empty();
    }
    return snapshots
        .latestSnapshotOfUser(files.commitUser(), latest, null)
        .filter(snapshot -> snapshot.commitIdentifier() == files.identifier());
  }
}
