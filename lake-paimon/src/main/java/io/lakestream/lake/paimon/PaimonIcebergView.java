package io.lakestream.lake.paimon;

import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;

/**
 * What Iceberg readers of a primary-key Paimon table miss: Paimon's Iceberg metadata names only a
 * primary-key table's files of the highest level, so rows in files below it (written, not yet fully
 * compacted) are invisible to them.
 *
 * <p>A tiering round compacts every bucket it writes in the commit of its rows, so a table holds
 * such files only when a process died between a commit's append snapshot and its compaction
 * snapshot, or another engine wrote to the table. The newest snapshot alone does not tell: a round
 * that only redoes a lost compaction commits an append snapshot without rows before its compaction
 * snapshot, and a process that dies between the two leaves an append without rows on top of files
 * that are still not compacted. So the files themselves are looked at, unless the newest snapshot
 * is a tiering round's compaction, which leaves no such file behind (another engine's compaction
 * need not be full).
 */
final class PaimonIcebergView {
  private PaimonIcebergView() {}

  /** A bucket of a Paimon table. */
  record Bucket(BinaryRow partition, int bucket) {}

  /**
   * The buckets of {@code snapshot} that hold files below the highest level; empty for a tiering
   * round's compaction snapshot.
   */
  static Set<Bucket> uncompactedBuckets(FileStoreTable table, Snapshot snapshot) {
    if (snapshot.commitKind() == Snapshot.CommitKind.COMPACT
        && snapshot.commitUser().startsWith(PaimonTableTiering.COMMIT_USER_PREFIX)) {
      return Set.of();
    }
    int maxLevel = table.coreOptions().numLevels() - 1;
    Set<Bucket> buckets = new LinkedHashSet<>();
    for (ManifestEntry entry :
        table
            .store()
            .newScan()
            .withSnapshot(snapshot)
            .withLevelFilter(level -> level < maxLevel)
            .plan()
            .files()) {
      buckets.add(new Bucket(entry.partition().copy(), entry.bucket()));
    }
    return buckets;
  }

  /** Whether Iceberg readers of {@code snapshot} miss rows that Paimon's readers see. */
  static boolean hidesRows(FileStoreTable table, Snapshot snapshot) {
    return !uncompactedBuckets(table, snapshot).isEmpty();
  }
}
