package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeRecords;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.LogRangeReader;
import io.lakestream.lake.PrimaryKeyChanges;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.scan.LogRangePlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
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
 *       TieredOffsets#tieredSnapshot}: the snapshot's ancestry, else the tag {@value
 *       TieredOffsets#TAG}) as the round's start, or the catalog's {@link TieredOffsetsStore}
 *       record when another engine's maintenance removed both; a table that was tiered and has
 *       neither fails the round rather than starting again from 0 ({@link StartOffsets});
 *   <li>per partition and bucket, read the log range {@code [tiered offset, high watermark)} with
 *       the client (the high watermark as it was when the round asked);
 *   <li>write the rows as Parquet data files following the table's partition spec, rolling at the
 *       table's {@code write.target-file-size-bytes};
 *   <li>commit one append snapshot whose summary records the new offsets (and move the tag to it),
 *       on the condition that the table still holds the start offsets; then record them in the
 *       store. If it does not, another tierer committed first: the round commits nothing, deletes
 *       its files and reports {@link TieringRound.Outcome#LOST_RACE}.
 * </ol>
 *
 * The committed summary is the state that counts: a round that fails anywhere before its commit
 * leaves the table as it was, and the next round (in this process or another) reads the same range
 * again. Files of a failed attempt are deleted by the round that wrote them, except after {@link
 * CommitStateUnknownException}, when they may be part of the table.
 *
 * <p>Thread safe; rounds of different tables may run concurrently. Two rounds of one table may too
 * (in different processes, say): at most one of them commits.
 */
public final class StreamTableTiering implements LakeTierer {
  private static final Logger LOG = LoggerFactory.getLogger(StreamTableTiering.class);
  private static final Duration POLL = Duration.ofMillis(200);

  private final LakeCatalog lake;
  private final Connection connection;
  private final TieringHook hook;
  private final Duration readTimeout;
  private final long maxRowsPerRound;
  private final DataFileWriter dataFileWriter;
  private final AtomicLong attempts = new AtomicLong();
  private final PrimaryKeyCompaction compaction = new PrimaryKeyCompaction();
  private final LogTableCompaction logCompaction = new LogTableCompaction();
  private final SnapshotExpiry expiry = new SnapshotExpiry(java.time.Clock.systemUTC());
  private final TieredOffsetsStore offsetsStore;

  /**
   * Log rows one round reads at most, unless {@link #StreamTableTiering(LakeCatalog, Connection,
   * TieringHook, Duration, long)} says otherwise.
   */
  public static final long DEFAULT_MAX_ROWS_PER_ROUND = 2_000_000;

  /**
   * Changelog rows a primary-key round folds at most, whatever the row limit: its fold holds each
   * changed key's rows as Iceberg records, several hundred bytes each, until the round writes them,
   * and a fold of millions made the server's collector pause for 100-300 ms while requests waited.
   */
  static final long PRIMARY_KEY_MAX_CHANGES_PER_ROUND = 250_000;

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
    this(lake, connection, hook, readTimeout, maxRowsPerRound, DataFileWriter.DUCKDB);
  }

  /**
   * @param dataFileWriter how a log table's data files are written
   */
  public StreamTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      DataFileWriter dataFileWriter) {
    this(
        lake,
        connection,
        hook,
        readTimeout,
        maxRowsPerRound,
        dataFileWriter,
        TieredOffsetsStore.NONE);
  }

  /**
   * @param offsetsStore where every commit's offsets are recorded too, and where a round finds them
   *     when the table lost them ({@link StartOffsets})
   */
  public StreamTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      DataFileWriter dataFileWriter,
      TieredOffsetsStore offsetsStore) {
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
    this.dataFileWriter = requireNonNull(dataFileWriter, "dataFileWriter is null");
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
    StartOffsets.Start begin = StartOffsets.resolve(path, start, table.io(), offsetsStore, true);
    TieredOffsets from = begin.from();
    io.lakestream.client.Table stream = connection.table(path);
    boolean primaryKey =
        TableKind.fromValue(stream.kind())
                .orElseThrow(
                    () ->
                        new TieringException(
                            "Table "
                                + path
                                + " is a "
                                + stream.kind()
                                + " table, not a streaming table"))
            == TableKind.PRIMARY_KEY;
    if (primaryKey && start.formatVersion() < 2) {
      throw new TieringException(
          "Table "
              + path
              + " is a primary-key table of Iceberg format version "
              + start.formatVersion()
              + "; tiering its changes needs equality deletes, which need format version 2 or"
              + " later");
    }

    Map<String, Map<Integer, Long>> next = new TreeMap<>();
    List<LogRange> ranges =
        LogRangePlanner.plan(
            path, stream, from, LogRangePlanner.WhenGone.CONTINUE_FROM_LOG_START, next);
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
      ExpectingOffsets guarded = new ExpectingOffsets(operations, begin.inTable(), path);
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
      org.apache.iceberg.Snapshot snapshot = guarded.committed().currentSnapshot();
      long snapshotId = snapshot.snapshotId();
      record(path, guarded.committed().uuid(), snapshot, to);
      LOG.debug("Tiered {} rows of {} in {} files: {}", written.rows(), path, written.count(), to);
      // The table's operations now hold the committed state, so no reload is needed.
      if (primaryKey) {
        compaction.compactIfDue(path, table);
      } else {
        logCompaction.compactIfDue(path, table, written.files().size());
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
   * Records a commit's offsets in the store; a failure leaves it to the next round to reconcile.
   */
  private void record(
      TablePath path, String uuid, org.apache.iceberg.Snapshot snapshot, TieredOffsets offsets) {
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

  private Written writeAppends(
      TablePath path,
      Table table,
      io.lakestream.client.Table stream,
      List<LogRange> ranges,
      Map<TableBucket, Long> reached) {
    PartitionSpec spec = table.spec();
    LakeRecords records = new LakeRecords(table.schema());
    PartitionKey partitionKey = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    DuckDbDataWriter columnar =
        dataFileWriter == DataFileWriter.DUCKDB && DuckDbDataWriter.supports(table.schema())
            ? new DuckDbDataWriter(table, outputFiles(table))
            : null;
    // Per log partition: the Iceberg partition its rows go to, or that they take the row path.
    Map<String, ColumnarTarget> targets = new HashMap<>();
    List<FanoutDataWriter<Record>> rowWriter = new ArrayList<>(1);
    List<DataFile> files = new ArrayList<>();
    long[] rows = {0};
    boolean done = false;
    // Batches decoded into the columnar writer's memory move into its files without a copy.
    BufferAllocator scanMemory = columnar == null ? null : columnar.newScanAllocator();
    try {
      LogRangeReader.read(
          path,
          scanMemory == null
              ? stream.newScanner()
              : stream.newScanner(List.of(), BatchFilter.MATCH_ALL, scanMemory),
          ranges,
          readTimeout,
          maxRowsPerRound,
          reached,
          (range, batch, first, end) -> {
            FieldVector[] vectors = records.vectorsOf(batch.root());
            rows[0] += end - first;
            if (columnar != null) {
              ColumnarTarget target =
                  targets.computeIfAbsent(
                      range.partition(),
                      partition ->
                          ColumnarTarget.of(
                              partition, spec, partitionKey, wrapper, records, vectors, first));
              if (target.columnar()
                  && columnar.add(range.partition(), target.key(), vectors, first, end)) {
                return;
              }
            }
            if (rowWriter.isEmpty()) {
              rowWriter.add(dataWriter(table));
            }
            for (int row = first; row < end; row++) {
              Record record = records.record(vectors, row);
              partitionKey.partition(wrapper.wrap(record));
              rowWriter.get(0).write(record, spec, partitionKey);
            }
          });
      if (columnar != null) {
        files.addAll(columnar.finish());
      }
      if (!rowWriter.isEmpty()) {
        rowWriter.get(0).close();
        files.addAll(rowWriter.get(0).result().dataFiles());
      }
      done = true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write data files of " + path, e);
    } finally {
      try {
        if (scanMemory != null) {
          closeScanMemory(path, scanMemory, done);
        }
      } finally {
        if (columnar != null) {
          columnar.close(); // deletes its files unless finish() succeeded
        }
      }
      if (!done) {
        delete(table.io(), files);
        if (!rowWriter.isEmpty()) {
          abandon(path, table, rowWriter.get(0));
        }
      }
    }
    return new Written(List.copyOf(files), List.of(), rows[0]);
  }

  /**
   * Closes the memory a round's batches were decoded into: every batch is closed or moved into the
   * writer by now. Memory still held is a leak, which fails a round that succeeded; a round that
   * failed keeps its own error, and the leak is logged.
   */
  private static void closeScanMemory(TablePath path, BufferAllocator scanMemory, boolean done) {
    try {
      scanMemory.close();
    } catch (IllegalStateException e) {
      if (done) {
        throw e;
      }
      LOG.warn("Tiering round of {} failed and left decoded batches unreleased", path, e);
    }
  }

  /**
   * Where the columnar writer puts a log partition's rows.
   *
   * @param key the Iceberg partition, null for an unpartitioned table
   */
  private record ColumnarTarget(boolean columnar, PartitionKey key) {
    static final ColumnarTarget ROWS = new ColumnarTarget(false, null);

    /**
     * The target of a log partition, from its first row; {@link #ROWS} when the partition's rows
     * must take the row path because the table's partition spec no longer names partitions as the
     * log does.
     */
    static ColumnarTarget of(
        String partition,
        PartitionSpec spec,
        PartitionKey partitionKey,
        InternalRecordWrapper wrapper,
        LakeRecords records,
        FieldVector[] vectors,
        int row) {
      if (!spec.isPartitioned()) {
        return partition.isEmpty() ? new ColumnarTarget(true, null) : ROWS;
      }
      partitionKey.partition(wrapper.wrap(records.record(vectors, row)));
      return spec.partitionToPath(partitionKey).equals(partition)
          ? new ColumnarTarget(true, partitionKey.copy())
          : ROWS;
    }
  }

  private Written writeChanges(
      TablePath path,
      Table table,
      io.lakestream.client.Table stream,
      List<LogRange> ranges,
      Map<TableBucket, Long> reached) {
    PartitionSpec spec = table.spec();
    LakeRecords records = new LakeRecords(table.schema());
    PrimaryKeyChanges changes = new PrimaryKeyChanges(records);
    try {
      LogRangeReader.read(
          path,
          stream,
          ranges,
          readTimeout,
          Math.min(maxRowsPerRound, PRIMARY_KEY_MAX_CHANGES_PER_ROUND),
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

  private static void delete(FileIO io, List<DataFile> files) {
    LakeFiles.deleteQuietly(io, files);
  }

  private static void deleteDeletes(FileIO io, List<DeleteFile> files) {
    LakeFiles.deleteQuietly(io, files);
  }
}
