package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.tag.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a round of a Paimon-tiered table starts, from the Paimon table's committed state and the
 * catalog's {@link TieredOffsetsStore}. Every commit of a round leaves its offsets in three places:
 * the property {@value TieredOffsets#SUMMARY_KEY} of the Paimon snapshots it makes, the Paimon tag
 * {@value TieredOffsets#TAG} on its last snapshot (Paimon's snapshot expiry keeps a tag and its
 * snapshot's properties), and the store's record (keyed by the catalog entry's uuid; its snapshot
 * id and sequence number are the Paimon snapshot id, which is also the sequence number of the
 * Iceberg snapshot Paimon generates for it). The first two are written by the commit itself, the
 * record after it.
 *
 * <p>A round starts from
 *
 * <ol>
 *   <li>the offsets of the newest Paimon snapshot that has them, else of the tagged snapshot when
 *       it has them and is not newer than the table's latest snapshot (a table rolled back past it
 *       does not hold what the tag says): <em>the table wins when it has offsets</em>. The record
 *       is written after the commit, so after a crash it can only be behind the table, never ahead;
 *       the larger of the two is the table's. A differing record is brought up to the table's
 *       offsets;
 *   <li>else the store's record, when the table's latest snapshot is not older than the recorded
 *       one: another engine expired every snapshot with offsets and dropped the tag;
 *   <li>else nothing, from the start of every log, but only when the Paimon table has no snapshot
 *       at all. A table with snapshots and no offsets anywhere was tiered before (tiering creates
 *       the Paimon table and its first commit carries offsets) or was replaced; starting from 0
 *       would tier every row a second time, so the round fails with a {@link TieringException}
 *       saying so (the table's tiering status says {@code failed}), and keeps failing until the
 *       offsets are restored.
 * </ol>
 *
 * <p>Stateless; thread safe.
 */
final class PaimonStartOffsets {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonStartOffsets.class);

  private PaimonStartOffsets() {}

  /**
   * Resolves the offsets a round starts from, and that its commit must still find.
   *
   * @param uuid the catalog entry's table uuid, the store's key
   * @param reconcile whether to bring a lagging store record up to the table's offsets
   * @throws TieringException when the table was tiered before and neither it nor the store holds
   *     its offsets
   * @throws IllegalArgumentException when an offsets property is not valid offsets JSON
   */
  static TieredOffsets resolve(
      TablePath path,
      String uuid,
      FileStoreTable table,
      TieredOffsetsStore store,
      boolean reconcile) {
    requireNonNull(path, "path is null");
    requireNonNull(uuid, "uuid is null");
    requireNonNull(table, "table is null");
    requireNonNull(store, "store is null");
    Long latest = table.snapshotManager().latestSnapshotIdFromFileSystem();
    Optional<Snapshot> tiered = tieredSnapshot(table, latest);
    if (tiered.isPresent()) {
      TieredOffsets offsets = offsetsOf(tiered.get());
      if (reconcile) {
        store.reconcile(
            uuid,
            new TieredOffsetsStore.Entry(path, tiered.get().id(), tiered.get().id(), offsets));
      }
      return offsets;
    }
    Optional<TieredOffsetsStore.Entry> entry = store.load(uuid);
    if (entry.isPresent()) {
      TieredOffsetsStore.Entry recorded = entry.get();
      if (latest == null || latest < recorded.snapshotId()) {
        throw new TieringException(
            "Table "
                + path
                + " was tiered into Paimon up to snapshot "
                + recorded.snapshotId()
                + " (offsets "
                + recorded.offsets()
                + " in the catalog's record), but its Paimon table "
                + (latest == null ? "has no snapshot" : "is at the older snapshot " + latest)
                + " and holds no "
                + TieredOffsets.SUMMARY_KEY
                + ": it was rolled back or replaced. Tiering refuses to guess where to go on;"
                + " restore the offsets (the Paimon tag "
                + TieredOffsets.TAG
                + ") to resume");
      }
      LOG.info(
          "Paimon table of {} has lost its {} (expired snapshots and no tag {}); starting from the"
              + " catalog's record of snapshot {}: {}",
          path,
          TieredOffsets.SUMMARY_KEY,
          TieredOffsets.TAG,
          recorded.snapshotId(),
          recorded.offsets());
      return recorded.offsets();
    }
    if (latest != null) {
      throw new TieringException(
          "Table "
              + path
              + " has Paimon snapshots (the latest is "
              + latest
              + ") but no "
              + TieredOffsets.SUMMARY_KEY
              + " any more: the snapshots that recorded them were expired, the Paimon tag "
              + TieredOffsets.TAG
              + " is gone and the catalog has no record of its offsets. Tiering refuses to start"
              + " again from offset 0, which would tier every row a second time");
    }
    return TieredOffsets.NONE;
  }

  /**
   * The snapshot whose property holds the offsets of the table's latest state: the newest snapshot
   * that has them, else the tagged one when it has them and is not newer than {@code latest}.
   */
  static Optional<Snapshot> tieredSnapshot(FileStoreTable table, Long latest) {
    Optional<Snapshot> newest = PaimonTableTiering.newestWithOffsets(table);
    if (newest.isPresent() || latest == null) {
      return newest;
    }
    Optional<Tag> tag = table.tagManager().get(TieredOffsets.TAG);
    if (tag.isEmpty() || tag.get().id() > latest || !hasOffsets(tag.get())) {
      return Optional.empty();
    }
    return Optional.of(tag.get());
  }

  static TieredOffsets offsetsOf(Snapshot snapshot) {
    return TieredOffsets.parse(snapshot.properties().get(TieredOffsets.SUMMARY_KEY));
  }

  private static boolean hasOffsets(Snapshot snapshot) {
    return snapshot.properties() != null
        && snapshot.properties().containsKey(TieredOffsets.SUMMARY_KEY);
  }

  /**
   * Records a commit's offsets in the store and moves the Paimon tag {@value TieredOffsets#TAG} to
   * its snapshot. Either failing is logged, not thrown: the commit holds the truth and the next
   * round reconciles the record; a missing tag only matters once another engine also expires every
   * snapshot with offsets, and then the record covers it.
   */
  static void recordCommit(
      TablePath path,
      String uuid,
      FileStoreTable table,
      long snapshotId,
      TieredOffsets offsets,
      TieredOffsetsStore store) {
    try {
      if (table.tagManager().tagExists(TieredOffsets.TAG)) {
        table.replaceTag(TieredOffsets.TAG, snapshotId, null);
      } else {
        table.createTag(TieredOffsets.TAG, snapshotId);
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "Tiered {} into Paimon snapshot {} but cannot move the tag {} to it",
          path,
          snapshotId,
          TieredOffsets.TAG,
          e);
    }
    try {
      store.record(uuid, new TieredOffsetsStore.Entry(path, snapshotId, snapshotId, offsets));
    } catch (RuntimeException e) {
      LOG.warn(
          "Tiered {} up to {} but cannot record the offsets in the catalog; the next round does",
          path,
          offsets,
          e);
    }
  }
}
