package io.lakestream.tiering;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a tiered primary-key table fast to read. Every tiering round of a primary-key table adds
 * equality delete files, and every reader applies every one of them to every older data file; once
 * the current snapshot holds {@link TieringConfig#COMPACTION_DELETE_FILES_PROPERTY} delete files
 * (default {@value TieringConfig#DEFAULT_COMPACTION_DELETE_FILES}), compaction reads the table's
 * current rows (deletes applied) and replaces all its data and delete files with new data files
 * holding just those rows, in one {@code replace} snapshot.
 *
 * <p>The rewrite keeps the data sequence number of the snapshot it read, so equality deletes that
 * another tierer commits meanwhile still apply to the new files; the commit validates from that
 * snapshot and fails (changing nothing) if the table moved in a way that conflicts. The replace
 * snapshot repeats the table's {@link TieredOffsets} (so that expiring the tiering snapshots before
 * it loses nothing) and commits only while the table still holds them. Compaction rewrites the
 * whole table, so its cost grows with the table, not with the changes; it runs on the tiering
 * thread after a committed round.
 *
 * <p>Thread safe.
 */
final class PrimaryKeyCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(PrimaryKeyCompaction.class);

  private final AtomicLong attempts = new AtomicLong(1L << 40);

  /**
   * Compacts the table if its current snapshot holds at least its threshold of delete files.
   * Failures are logged, never thrown: the table stays correct, only slower to read, and the next
   * round tries again.
   *
   * @return whether it committed a compaction
   */
  boolean compactIfDue(TablePath path, Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return false;
    }
    int threshold;
    try {
      threshold = TieringConfig.compactionDeleteFiles(table.properties());
    } catch (IllegalArgumentException e) {
      LOG.warn("Table {}: {}; compacting at the default", path, e.getMessage());
      threshold = TieringConfig.DEFAULT_COMPACTION_DELETE_FILES;
    }
    long deleteFiles =
        PropertyUtil.propertyAsLong(current.summary(), SnapshotSummary.TOTAL_DELETE_FILES_PROP, 0);
    if (deleteFiles < threshold) {
      return false;
    }
    try {
      compact(path, table, current);
      return true;
    } catch (RuntimeException e) {
      LOG.warn("Compaction of {} failed; the next round retries", path, e);
      return false;
    }
  }

  /**
   * Rewrites the table as of {@code snapshot} into data files without deletes.
   *
   * @throws org.apache.iceberg.exceptions.ValidationException when a concurrent commit conflicts;
   *     nothing is committed and the new files are deleted
   * @throws TieringConflictException when another tierer committed new offsets meanwhile; nothing
   *     is committed and the new files are deleted
   */
  void compact(TablePath path, Table table, Snapshot snapshot) {
    TableOperations operations = ((HasTableOperations) table).operations();
    TieredOffsets offsets = TieredOffsets.committedIn(operations.current());
    Set<DataFile> oldData = new HashSet<>();
    Set<DeleteFile> oldDeletes = new HashSet<>();
    try {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
          reader.forEach(file -> oldData.add(file.copyWithoutStats()));
        }
      }
      for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          reader.forEach(file -> oldDeletes.add(file.copyWithoutStats()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifests of " + path, e);
    }

    CompactionRewrite.Written written =
        CompactionRewrite.write(
            path,
            table,
            attempts.incrementAndGet(),
            List.of(() -> IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()));
    CompactionRewrite.commit(
        path,
        table,
        snapshot,
        offsets,
        written.files(),
        rewrite ->
            rewrite
                .dataSequenceNumber(snapshot.sequenceNumber())
                .rewriteFiles(oldData, oldDeletes, new HashSet<>(written.files()), Set.of()));
    LOG.info(
        "Compacted {}: {} data and {} delete files into {} data files of {} rows",
        path,
        oldData.size(),
        oldDeletes.size(),
        written.files().size(),
        written.rows());
  }
}
