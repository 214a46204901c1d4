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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;
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
  private final AtomicLong attempts = new AtomicLong();

  /**
   * @param readTimeout how long a round may take to read its ranges before it fails
   */
  public StreamTableTiering(
      LakeCatalog lake, Connection connection, TieringHook hook, Duration readTimeout) {
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = requireNonNull(connection, "connection is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
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
    if (!"log".equals(stream.kind())) {
      throw new TieringException("Table " + path + " is a " + stream.kind() + " table, not a log");
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
    TieredOffsets to = TieredOffsets.of(next);

    FileIO io = table.io();
    List<DataFile> files = List.of();
    long rows;
    boolean committed = false;
    try {
      Written written = write(path, table, stream, ranges);
      files = written.files();
      rows = written.rows();
      hook.beforeCommit(path, files);
      LOG.debug("Committing {} files ({} rows) of {} up to {}", files.size(), rows, path, to);
      ExpectingOffsets guarded = new ExpectingOffsets(operations, from, path);
      AppendFiles append = new BaseTable(guarded, table.name()).newFastAppend();
      files.forEach(append::appendFile);
      append.set(TieredOffsets.SUMMARY_KEY, to.toJson());
      append.commit();
      committed = true;
      long snapshotId = guarded.committed().currentSnapshot().snapshotId();
      LOG.debug("Tiered {} rows of {} in {} files: {}", rows, path, files.size(), to);
      return new TieringRound(
          path, TieringRound.Outcome.COMMITTED, rows, files.size(), snapshotId, to);
    } catch (TieringConflictException e) {
      LOG.info("Another tierer committed {} first: {}", path, e.getMessage());
      return new TieringRound(path, TieringRound.Outcome.LOST_RACE, 0, 0, -1, from);
    } catch (CommitStateUnknownException e) {
      committed = true; // the files may be in the table: keep them
      throw e;
    } finally {
      if (!committed) {
        delete(io, files);
      }
    }
  }

  private record Written(List<DataFile> files, long rows) {}

  private Written write(
      TablePath path, Table table, io.lakestream.client.Table stream, List<Range> ranges) {
    PartitionSpec spec = table.spec();
    LakeRecords records = new LakeRecords(table.schema());
    PartitionKey partitionKey = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    FanoutDataWriter<Record> writer =
        new FanoutDataWriter<>(
            new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build(),
            OutputFileFactory.builderFor(table, 0, attempts.incrementAndGet())
                .format(FileFormat.PARQUET)
                .operationId("tiering-" + UUID.randomUUID())
                .build(),
            table.io(),
            targetFileSize);
    long rows = 0;
    boolean closed = false;
    try {
      Map<TableBucket, Range> pending = new HashMap<>();
      try (LogScanner scanner = stream.newScanner()) {
        for (Range range : ranges) {
          pending.put(new TableBucket(range.partition(), range.bucket()), range);
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
              FieldVector[] vectors = records.vectorsOf(batch.root());
              for (int row = first; row < end; row++) {
                Record record = records.record(vectors, row);
                partitionKey.partition(wrapper.wrap(record));
                writer.write(record, spec, partitionKey);
                rows++;
              }
              if (base + batch.rowCount() >= range.to()) {
                pending.remove(bucket);
                scanner.unsubscribe(range.partition(), range.bucket());
              }
            }
          } finally {
            batches.forEach(ScanBatch::close);
          }
        }
      }
      writer.close();
      closed = true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write data files of " + path, e);
    } finally {
      if (!closed) {
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
    }
    return new Written(List.copyOf(writer.result().dataFiles()), rows);
  }

  private static void delete(FileIO io, List<DataFile> files) {
    for (DataFile file : files) {
      try {
        io.deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete data file {} of a failed tiering round", file.location(), e);
      }
    }
  }
}
