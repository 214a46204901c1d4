package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.ClusteredEqualityDeleteWriter;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tiering round of one log table into its Iceberg table:
 *
 * <ol>
 *   <li>load the table and take the offsets its current state contains ({@link
 *       TieredOffsets#committedIn}) as the round's start;
 *   <li>per partition and bucket, read the log range {@code [tiered offset, high watermark)} with
 *       the client (the high watermark as it was when the round asked);
 *   <li>write the rows as Parquet data files following the table's partition spec, rolling at the
 *       table's {@code write.target-file-size-bytes};
 *   <li>commit one append snapshot whose summary records the new offsets, on the condition that the
 *       table still holds the start offsets. If it does not, another tierer committed first: the
 *       round commits nothing, deletes its files and reports {@link
 *       TieringRound.Outcome#LOST_RACE}.
 * </ol>
 *
 * The committed summary is the only state: a round that fails anywhere before its commit leaves the
 * table as it was, and the next round (in this process or another) reads the same range again.
 * Files of a failed attempt are deleted by the round that wrote them, except after {@link
 * CommitStateUnknownException}, when they may be part of the table.
 *
 * <p>Thread safe; rounds of different tables may run concurrently. Two rounds of one table may too
 * (in different processes, say): at most one of them commits.
 */
public final class StreamTableTiering {
  private static final Logger LOG = LoggerFactory.getLogger(StreamTableTiering.class);
  private static final Duration POLL = Duration.ofMillis(200);

  private final LakeCatalog lake;
  private final Connection connection;
  private final TieringHook hook;
  private final Duration readTimeout;
  private final long maxRowsPerRound;
  private final AtomicLong attempts = new AtomicLong();
  private final PrimaryKeyCompaction compaction = new PrimaryKeyCompaction();
  private final SnapshotExpiry expiry = new SnapshotExpiry(java.time.Clock.systemUTC());

  /**
   * Log rows one round reads at most, unless {@link #StreamTableTiering(LakeCatalog, Connection,
   * TieringHook, Duration, long)} says otherwise.
   */
  public static final long DEFAULT_MAX_ROWS_PER_ROUND = 2_000_000;

  /**
   * @param readTimeout how long a round may take to read its ranges before it fails
   * @param maxRowsPerRound log rows after which a round stops reading (at a batch boundary) and
   *     commits what it has; the next round goes on from there. It bounds a round's memory (a
   *     primary-key round holds the net change of every key it read) and lets a long catch-up
   *     commit as it goes
   */
  public StreamTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound) {
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = requireNonNull(connection, "connection is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException("maxRowsPerRound must be positive: " + maxRowsPerRound);
    }
    this.maxRowsPerRound = maxRowsPerRound;
  }

  public StreamTableTiering(
      LakeCatalog lake, Connection connection, TieringHook hook, Duration readTimeout) {
    this(lake, connection, hook, readTimeout, DEFAULT_MAX_ROWS_PER_ROUND);
  }

  public StreamTableTiering(LakeCatalog lake, Connection connection) {
    this(lake, connection, TieringHook.NONE, Duration.ofMinutes(5));
  }

  private record Range(String partition, int bucket, long from, long to) {}

  /**
   * Runs one round.
   *
   * @throws TieringException when the table is not a log table or a range cannot be read in time
   * @throws CommitStateUnknownException when the commit's outcome is unknown; the next round finds
   *     out from the table's offsets
   * @throws RuntimeException from the catalog, the stream RPC or the file system; nothing was
   *     committed
   */
  public TieringRound tierOnce(TablePath path) {
    Table table = lake.loadTable(path);
    TableOperations operations = ((HasTableOperations) table).operations();
    TableMetadata start = operations.current();
    TieredOffsets from = TieredOffsets.committedIn(start);
    io.lakestream.client.Table stream = connection.table(path);
    boolean primaryKey =
        switch (stream.kind()) {
          case "log" -> false;
          case "primary-key" -> true;
          default ->
              throw new TieringException(
                  "Table " + path + " is a " + stream.kind() + " table, not a streaming table");
        };
    if (primaryKey && start.formatVersion() < 2) {
      throw new TieringException(
          "Table "
              + path
              + " is a primary-key table of Iceberg format version "
              + start.formatVersion()
              + "; tiering its changes needs equality deletes, which need format version 2 or"
              + " later");
    }

    List<Range> ranges = new ArrayList<>();
    Map<String, Map<Integer, Long>> next = new TreeMap<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        long tiered = from.offset(partition, bucket);
        long highWatermark = stream.latestOffset(partition, bucket);
        if (highWatermark > tiered) {
          long earliest = stream.earliestOffset(partition, bucket);
          if (earliest > tiered) {
            LOG.warn(
                "Bucket {} of partition '{}' of {}: offsets {} to {} were deleted from the log"
                    + " before they were tiered; tiering continues from {}",
                bucket,
                partition,
                path,
                tiered,
                earliest,
                earliest);
          }
          ranges.add(new Range(partition, bucket, Math.max(tiered, earliest), highWatermark));
        } else if (highWatermark < tiered) {
          LOG.warn(
              "Bucket {} of partition '{}' of {}: high watermark {} is below the tiered offset {}",
              bucket,
              partition,
              path,
              highWatermark,
              tiered);
        }
        long offset = Math.max(tiered, highWatermark);
        if (offset > 0) {
          next.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
        }
      }
    }
    ranges.removeIf(range -> range.from() >= range.to());
    if (ranges.isEmpty()) {
      return new TieringRound(path, TieringRound.Outcome.UP_TO_DATE, 0, 0, -1, from);
    }

    FileIO io = table.io();
    Map<TableBucket, Long> reached = new HashMap<>();
    Written written = new Written(List.of(), List.of(), 0);
    boolean committed = false;
    try {
      written =
          primaryKey
              ? writeChanges(path, table, stream, ranges, reached)
              : writeAppends(path, table, stream, ranges, reached);
      // A round cut short by its row limit commits the offsets it reached.
      reached.forEach(
          (bucket, offset) -> {
            Map<Integer, Long> buckets = next.get(bucket.partition());
            if (offset > 0) {
              buckets.put(bucket.bucket(), offset);
            } else {
              buckets.remove(bucket.bucket());
            }
          });
      TieredOffsets to = TieredOffsets.of(next);
      hook.beforeCommit(path, written.files());
      ExpectingOffsets guarded = new ExpectingOffsets(operations, from, path);
      BaseTable base = new BaseTable(guarded, table.name());
      LOG.debug(
          "Committing {} data and {} delete files of {} up to {}",
          written.files().size(),
          written.deletes().size(),
          path,
          to);
      if (primaryKey) {
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
      long snapshotId = guarded.committed().currentSnapshot().snapshotId();
      LOG.debug("Tiered {} rows of {} in {} files: {}", written.rows(), path, written.count(), to);
      // The table's operations now hold the committed state, so no reload is needed.
      if (primaryKey) {
        compaction.compactIfDue(path, table);
      }
      expiry.expireIfDue(path, table);
      return new TieringRound(
          path, TieringRound.Outcome.COMMITTED, written.rows(), written.count(), snapshotId, to);
    } catch (TieringConflictException e) {
      LOG.info("Another tierer committed {} first: {}", path, e.getMessage());
      return new TieringRound(path, TieringRound.Outcome.LOST_RACE, 0, 0, -1, from);
    } catch (CommitStateUnknownException e) {
      committed = true; // the files may be in the table: keep them
      throw e;
    } finally {
      if (!committed) {
        delete(io, written.files());
        deleteDeletes(io, written.deletes());
      }
    }
  }

  /**
   * The files a round wrote: data files, and for a primary-key table equality delete files.
   *
   * @param rows log rows the files hold (for a primary-key table, changelog rows folded into them)
   */
  private record Written(List<DataFile> files, List<DeleteFile> deletes, long rows) {
    int count() {
      return files.size() + deletes.size();
    }
  }

  /** Receives rows {@code [first, end)} of a batch, which lie in the round's ranges. */
  @FunctionalInterface
  private interface RangeRows {
    void accept(Range range, ScanBatch batch, int first, int end) throws IOException;
  }

  private Written writeAppends(
      TablePath path,
      Table table,
      io.lakestream.client.Table stream,
      List<Range> ranges,
      Map<TableBucket, Long> reached) {
    PartitionSpec spec = table.spec();
    LakeRecords records = new LakeRecords(table.schema());
    PartitionKey partitionKey = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    FanoutDataWriter<Record> writer = dataWriter(table);
    long[] rows = {0};
    boolean closed = false;
    try {
      read(
          path,
          stream,
          ranges,
          reached,
          (range, batch, first, end) -> {
            FieldVector[] vectors = records.vectorsOf(batch.root());
            for (int row = first; row < end; row++) {
              Record record = records.record(vectors, row);
              partitionKey.partition(wrapper.wrap(record));
              writer.write(record, spec, partitionKey);
            }
            rows[0] += end - first;
          });
      writer.close();
      closed = true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write data files of " + path, e);
    } finally {
      if (!closed) {
        abandon(path, table, writer);
      }
    }
    return new Written(List.copyOf(writer.result().dataFiles()), List.of(), rows[0]);
  }

  private Written writeChanges(
      TablePath path,
      Table table,
      io.lakestream.client.Table stream,
      List<Range> ranges,
      Map<TableBucket, Long> reached) {
    PartitionSpec spec = table.spec();
    LakeRecords records = new LakeRecords(table.schema());
    PrimaryKeyChanges changes = new PrimaryKeyChanges(records);
    try {
      read(
          path,
          stream,
          ranges,
          reached,
          (range, batch, first, end) -> changes.add(range.partition(), batch, first, end));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the changelog of " + path, e);
    }

    PartitionKey partitionKey = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    FanoutDataWriter<Record> dataWriter = dataWriter(table);
    ClusteredEqualityDeleteWriter<Record> deleteWriter =
        new ClusteredEqualityDeleteWriter<>(
            new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .deleteFileFormat(FileFormat.PARQUET)
                .equalityFieldIds(changes.equalityFieldIds())
                .equalityDeleteRowSchema(changes.deleteSchema())
                .build(),
            outputFiles(table),
            table.io(),
            targetFileSize(table));
    boolean closed = false;
    try {
      // A log partition is one Iceberg partition, so grouping by it clusters the deletes.
      for (List<PrimaryKeyChanges.KeyChange> partition : changes.keyChanges().values()) {
        for (PrimaryKeyChanges.KeyChange change : partition) {
          partitionKey.partition(wrapper.wrap(change.anyRow()));
          if (change.deleteKey() != null) {
            deleteWriter.write(change.deleteKey(), spec, partitionKey);
          }
          if (change.finalRow() != null) {
            dataWriter.write(change.finalRow(), spec, partitionKey);
          }
        }
      }
      dataWriter.close();
      deleteWriter.close();
      closed = true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write data and delete files of " + path, e);
    } finally {
      if (!closed) {
        abandon(path, table, dataWriter);
        try {
          deleteWriter.close();
        } catch (IOException | RuntimeException e) {
          LOG.debug("Cannot close the delete writer of a failed round of {}", path, e);
        }
        try {
          deleteDeletes(table.io(), deleteWriter.result().deleteFiles());
        } catch (RuntimeException e) {
          LOG.warn("Cannot list the delete files of a failed round of {} to delete them", path, e);
        }
      }
    }
    return new Written(
        List.copyOf(dataWriter.result().dataFiles()),
        List.copyOf(deleteWriter.result().deleteFiles()),
        changes.changes());
  }

  private FanoutDataWriter<Record> dataWriter(Table table) {
    return LakeFiles.dataWriter(table, attempts.incrementAndGet());
  }

  private OutputFileFactory outputFiles(Table table) {
    return LakeFiles.outputFiles(table, attempts.incrementAndGet());
  }

  private static long targetFileSize(Table table) {
    return LakeFiles.targetFileSize(table);
  }

  private static void abandon(TablePath path, Table table, FanoutDataWriter<Record> writer) {
    try {
      writer.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("Cannot close the writer of a failed round of {}", path, e);
    }
    try {
      delete(table.io(), writer.result().dataFiles());
    } catch (RuntimeException e) {
      LOG.warn("Cannot list the data files of a failed round of {} to delete them", path, e);
    }
  }

  /**
   * Reads every range to its end, handing each batch's rows inside the ranges to {@code rows},
   * unless the round's row limit is reached first: then reading stops after the batch that reached
   * it, and {@code reached} receives, for each bucket not read to its end, the offset it was read
   * to.
   */
  private void read(
      TablePath path,
      io.lakestream.client.Table stream,
      List<Range> ranges,
      Map<TableBucket, Long> reached,
      RangeRows rows)
      throws IOException {
    Map<TableBucket, Range> pending = new HashMap<>();
    Map<TableBucket, Long> positions = new HashMap<>();
    long read = 0;
    try (LogScanner scanner = stream.newScanner()) {
      for (Range range : ranges) {
        TableBucket bucket = new TableBucket(range.partition(), range.bucket());
        pending.put(bucket, range);
        positions.put(bucket, range.from());
        scanner.subscribe(range.partition(), range.bucket(), LogScanner.offset(range.from()));
      }
      long deadline = System.nanoTime() + readTimeout.toNanos();
      while (!pending.isEmpty()) {
        if (Thread.currentThread().isInterrupted()) {
          throw new TieringException("Tiering " + path + " was interrupted while reading");
        }
        if (System.nanoTime() - deadline > 0) {
          throw new TieringException(
              "Tiering "
                  + path
                  + " could not read its ranges within "
                  + readTimeout
                  + "; still pending: "
                  + pending.values());
        }
        List<ScanBatch> batches = scanner.poll(POLL);
        try {
          for (ScanBatch batch : batches) {
            TableBucket bucket = new TableBucket(batch.partition(), batch.bucket());
            Range range = pending.get(bucket);
            if (range == null) {
              continue; // a bucket finished earlier in this poll
            }
            long base = batch.baseOffset();
            int first = (int) Math.max(0, range.from() - base);
            int end = (int) Math.min(batch.rowCount(), range.to() - base);
            if (first < end) {
              rows.accept(range, batch, first, end);
              read += end - first;
            }
            positions.put(bucket, Math.min(range.to(), base + batch.rowCount()));
            if (base + batch.rowCount() >= range.to()) {
              pending.remove(bucket);
              scanner.unsubscribe(range.partition(), range.bucket());
            }
            if (read >= maxRowsPerRound && !pending.isEmpty()) {
              pending.keySet().forEach(cut -> reached.put(cut, positions.get(cut)));
              LOG.debug(
                  "Round of {} stops after {} rows (its limit); buckets read to {}",
                  path,
                  read,
                  reached);
              return;
            }
          }
        } finally {
          batches.forEach(ScanBatch::close);
        }
      }
    }
  }

  private static void delete(FileIO io, List<DataFile> files) {
    LakeFiles.deleteQuietly(io, files);
  }

  private static void deleteDeletes(FileIO io, List<DeleteFile> files) {
    LakeFiles.deleteQuietly(io, files);
  }
}
