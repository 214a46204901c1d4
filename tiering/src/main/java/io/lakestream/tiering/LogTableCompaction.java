package io.lakestream.tiering;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.StructLikeWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a tiered log table's files few. Every tiering round appends at least one data file per
 * partition it touches, so a table tiering every second gains thousands of small files a day, and
 * every reader opens each of them. Once the rounds since the last check wrote {@link
 * TieringConfig#COMPACTION_SMALL_FILES_PROPERTY} files (default {@value
 * TieringConfig#DEFAULT_COMPACTION_SMALL_FILES}), compaction looks for partitions of the current
 * snapshot holding at least that many data files under {@value #SMALL_FILE_BYTES} bytes, and
 * rewrites each such partition's small files (the oldest first, up to {@value #MAX_REWRITE_BYTES}
 * bytes per partition) into files of the table's target size, in one {@code replace} snapshot.
 *
 * <p>The rows stay what they were, only in fewer files: the rewrite reads each file by field id in
 * the table's current schema (a column a file lacks reads as null). The replace snapshot repeats
 * the table's {@link TieredOffsets}, commits only while the table still holds them (a round another
 * tierer commits meanwhile makes it fail, changing nothing) and validates that the files it
 * replaces are still in the table. Files of the current partition spec only are rewritten, and a
 * snapshot with delete files (a user's row-level delete) is left alone. It runs on the tiering
 * thread after a committed round; a failure is logged and the table stays correct.
 *
 * <p>Thread safe.
 */
final class LogTableCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(LogTableCompaction.class);

  /** Data files smaller than this are compacted. */
  static final long SMALL_FILE_BYTES = 8L << 20;

  /** The most bytes of small files one partition's rewrite reads. */
  static final long MAX_REWRITE_BYTES = 128L << 20;

  private final AtomicLong attempts = new AtomicLong(1L << 41);
  private final Map<TablePath, Integer> writtenSinceCheck = new ConcurrentHashMap<>();

  /**
   * Counts the files a committed round wrote and compacts the table when they reach its threshold
   * and a partition of the current snapshot holds that many small files. Failures are logged, never
   * thrown.
   *
   * @return the number of partitions compacted
   */
  int compactIfDue(TablePath path, Table table, int filesWritten) {
    int threshold;
    try {
      threshold = TieringConfig.compactionSmallFiles(table.properties());
    } catch (IllegalArgumentException e) {
      LOG.warn("Table {}: {}; compacting at the default", path, e.getMessage());
      threshold = TieringConfig.DEFAULT_COMPACTION_SMALL_FILES;
    }
    int written = writtenSinceCheck.merge(path, filesWritten, Integer::sum);
    Snapshot current = table.currentSnapshot();
    if (written < threshold || current == null) {
      return 0;
    }
    writtenSinceCheck.remove(path);
    try {
      return compact(path, table, current, threshold);
    } catch (RuntimeException e) {
      LOG.warn("Compaction of {} failed; a later round retries", path, e);
      return 0;
    }
  }

  /**
   * Rewrites the small files of every partition of {@code snapshot} holding at least {@code
   * threshold} of them.
   *
   * @return the number of partitions compacted
   * @throws org.apache.iceberg.exceptions.ValidationException when a concurrent commit removed a
   *     file being rewritten; nothing is committed and the new files are deleted
   * @throws TieringConflictException when another tierer committed new offsets meanwhile; nothing
   *     is committed and the new files are deleted
   */
  int compact(TablePath path, Table table, Snapshot snapshot, int threshold) {
    if (!snapshot.deleteManifests(table.io()).isEmpty()) {
      // Rows a delete file removes would come back in the rewritten files.
      LOG.debug("Not compacting {}: its snapshot has delete files", path);
      return 0;
    }
    Map<StructLikeWrapper, List<DataFile>> small = smallFiles(path, table, snapshot);
    int compacted = 0;
    for (List<DataFile> files : small.values()) {
      if (files.size() >= Math.max(2, threshold)) {
        rewrite(path, table, snapshot, files);
        compacted++;
      }
    }
    return compacted;
  }

  /** The small data files of the current spec in {@code snapshot}, by partition, oldest first. */
  private static Map<StructLikeWrapper, List<DataFile>> smallFiles(
      TablePath path, Table table, Snapshot snapshot) {
    Map<StructLikeWrapper, List<DataFile>> small = new LinkedHashMap<>();
    int specId = table.spec().specId();
    try {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        if (manifest.partitionSpecId() != specId) {
          continue;
        }
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
          for (DataFile file : reader) {
            if (file.fileSizeInBytes() < SMALL_FILE_BYTES) {
              StructLike partition = file.partition();
              small
                  .computeIfAbsent(
                      StructLikeWrapper.forType(table.spec().partitionType()).set(partition),
                      ignored -> new ArrayList<>())
                  .add(file.copyWithoutStats());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifests of " + path, e);
    }
    for (List<DataFile> files : small.values()) {
      files.sort(
          Comparator.comparingLong(
                  (DataFile file) ->
                      file.dataSequenceNumber() == null ? 0 : file.dataSequenceNumber())
              .thenComparing(DataFile::location));
      long bytes = 0;
      for (int i = 0; i < files.size(); i++) {
        bytes += files.get(i).fileSizeInBytes();
        if (bytes > MAX_REWRITE_BYTES && i > 0) {
          files.subList(i, files.size()).clear();
          break;
        }
      }
    }
    return small;
  }

  private void rewrite(TablePath path, Table table, Snapshot snapshot, List<DataFile> files) {
    TableOperations operations = ((HasTableOperations) table).operations();
    TieredOffsets offsets = TieredOffsets.committedIn(operations.current());
    List<CompactionRewrite.Rows> sources = new ArrayList<>();
    for (DataFile file : files) {
      sources.add(
          () ->
              Parquet.read(table.io().newInputFile(file.location()))
                  .project(table.schema())
                  .createReaderFunc(
                      fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
                  .build());
    }
    CompactionRewrite.Written written =
        CompactionRewrite.write(path, table, attempts.incrementAndGet(), sources);
    CompactionRewrite.commit(
        path,
        table,
        snapshot,
        offsets,
        written.files(),
        rewrite ->
            rewrite.rewriteFiles(
                new HashSet<>(files), Set.of(), new HashSet<>(written.files()), Set.of()));
    LOG.info(
        "Compacted {}: {} small files into {} files of {} rows",
        path,
        files.size(),
        written.files().size(),
        written.rows());
  }
}
