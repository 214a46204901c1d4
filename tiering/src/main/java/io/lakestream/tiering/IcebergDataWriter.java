package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LakeDataWriter;
import io.lakestream.lake.LakeRecords;
import io.lakestream.lake.LogRangeReader;
import io.lakestream.lake.PrimaryKeyChanges;
import io.lakestream.lake.TieringPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.ClusteredEqualityDeleteWriter;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's {@link LakeDataWriter}: a log table's rows go into Parquet data files following the
 * table's partition spec, rolling at the table's {@code write.target-file-size-bytes} (columnar
 * through {@link DuckDbDataWriter} where the schema allows, else row by row with Iceberg's
 * writers); a primary-key table's changes are folded per key ({@link PrimaryKeyChanges}) into data
 * files of the keys' final rows and equality delete files of the keys they replace or delete.
 */
final class IcebergDataWriter
    implements LakeDataWriter<IcebergLakeTable, IcebergDataWriter.IcebergFiles> {
  // Logs as the tierer, whose logger operators (and the crash tests) turn up.
  private static final Logger LOG = LoggerFactory.getLogger(IcebergTableTiering.class);

  private final Duration readTimeout;
  private final long maxRowsPerRound;
  private final DataFileWriter dataFileWriter;
  private final AtomicLong attempts = new AtomicLong();

  /**
   * @param readTimeout how long a round may take to read its ranges before it fails
   * @param maxRowsPerRound log rows after which a round stops reading
   * @param dataFileWriter how a log table's data files are written
   */
  IcebergDataWriter(Duration readTimeout, long maxRowsPerRound, DataFileWriter dataFileWriter) {
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
    this.maxRowsPerRound = maxRowsPerRound;
    this.dataFileWriter = requireNonNull(dataFileWriter, "dataFileWriter is null");
  }

  /**
   * The files a round wrote: data files, and for a primary-key table equality delete files.
   *
   * @param rows log rows the files hold (for a primary-key table, changelog rows folded into them)
   */
  record IcebergFiles(List<DataFile> files, List<DeleteFile> deletes, long rows)
      implements LakeDataWriter.WrittenFiles {
    @Override
    public int count() {
      return files.size() + deletes.size();
    }

    @Override
    public List<DataFile> icebergDataFiles() {
      return files;
    }
  }

  @Override
  public Optional<IcebergFiles> write(
      IcebergLakeTable table, TieringPlan plan, Map<TableBucket, Long> reached) {
    if (plan.ranges().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        table.primaryKey()
            ? writeChanges(table.path(), table.table(), plan.stream(), plan.ranges(), reached)
            : writeAppends(table.path(), table.table(), plan.stream(), plan.ranges(), reached));
  }

  /** Deletes a round's files, which no snapshot references. */
  static void delete(FileIO io, IcebergFiles files) {
    LakeFiles.deleteQuietly(io, files.files());
    LakeFiles.deleteQuietly(io, files.deletes());
  }

  private IcebergFiles writeAppends(
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
    return new IcebergFiles(List.copyOf(files), List.of(), rows[0]);
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

  private IcebergFiles writeChanges(
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
          Math.min(maxRowsPerRound, IcebergTableTiering.PRIMARY_KEY_MAX_CHANGES_PER_ROUND),
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
    return new IcebergFiles(
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
