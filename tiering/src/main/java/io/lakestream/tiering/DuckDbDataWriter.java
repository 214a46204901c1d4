package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.lake.LakeRecords;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes log batches into Parquet data files of a lake table with an in-process DuckDB, column by
 * column and without turning rows into objects: the fast path of tiering log tables.
 *
 * <p>Each file is one DuckDB {@code COPY … TO … (FORMAT parquet, FIELD_IDS …)} that pulls Arrow
 * batches from a bounded queue through the C data interface while the tiering round goes on reading
 * the log, so reading and Parquet encoding overlap. Files carry the Iceberg field ids of the
 * table's columns (readers resolve columns by id) and the table's compression codec; Iceberg
 * metrics are read back from each file's footer. A file rolls once the Arrow bytes handed to it
 * reach the table's {@code write.target-file-size-bytes} (Parquet files come out smaller).
 *
 * <p>Only batches whose columns have exactly the Arrow types of the table's current schema take
 * this path ({@link #add} says whether it took a batch); a column the batch lacks is written as
 * null. {@link #supports} says which tables it can write at all: primitive columns DuckDB writes as
 * Iceberg expects (no time, uuid, fixed, nanosecond timestamps or nested types) and names that
 * differ ignoring case.
 *
 * <p>Not thread safe: one round uses one writer from one thread.
 */
final class DuckDbDataWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbDataWriter.class);

  /** At most this many files are open at once; adding to another partition closes the oldest. */
  private static final int MAX_OPEN_FILES = 4;

  private static final long WAIT_MILLIS = 100;

  private static final AtomicLong STREAMS = new AtomicLong();

  private final Table table;
  private final PartitionSpec spec;
  private final List<Types.NestedField> columns;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final OutputFileFactory files;
  private final long rollBytes;
  private final String copyOptions;
  private final BufferAllocator allocator = new RootAllocator();
  private final ArrowRowCopier copier;
  private final ExecutorService copies =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-tiering-parquet");
            thread.setDaemon(true);
            return thread;
          });
  private final Map<String, OpenFile> open = new LinkedHashMap<>();
  private final List<CompletableFuture<DataFile>> written = new ArrayList<>();
  private Connection duckdb;
  private boolean finished;

  /** Whether this writer can write data files of {@code schema} at all. */
  static boolean supports(Schema schema) {
    Set<String> names = new HashSet<>();
    for (Types.NestedField column : schema.columns()) {
      if (!names.add(column.name().toLowerCase(Locale.ROOT))) {
        return false;
      }
      switch (column.type().typeId()) {
        case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL, DATE, TIMESTAMP, STRING, BINARY -> {}
        default -> {
          return false;
        }
      }
    }
    return !schema.columns().isEmpty();
  }

  DuckDbDataWriter(Table table, OutputFileFactory files) {
    this.table = requireNonNull(table, "table is null");
    this.files = requireNonNull(files, "files is null");
    this.spec = table.spec();
    this.columns = table.schema().columns();
    if (!supports(table.schema())) {
      throw new IllegalArgumentException(
          "Cannot write columns of " + table.name() + " with DuckDB");
    }
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField column : columns) {
      fields.add(
          new Field(
              column.name(),
              FieldType.nullable(IcebergArrowSchemas.toArrowField(column).getType()),
              null));
    }
    this.arrowSchema = new org.apache.arrow.vector.types.pojo.Schema(fields);
    this.rollBytes = LakeFiles.targetFileSize(table);
    this.copyOptions = DuckDbParquetOptions.copyOptions(table, columns);
    this.copier = new ArrowRowCopier(arrowSchema, allocator);
  }

  /**
   * A child of this writer's memory for decoding the batches it will take (see {@link
   * io.lakestream.client.Table#newScanner(List, io.lakestream.client.arrow.BatchFilter,
   * BufferAllocator)}): their buffers then move into the data files' queues instead of being
   * copied. The caller closes it once every batch it decoded is closed, before closing this writer.
   */
  BufferAllocator newScanAllocator() {
    return allocator.newChildAllocator("tiering-scan", 0, Long.MAX_VALUE);
  }

  /**
   * Takes rows {@code [first, end)} of a batch into the data file of {@code partition}. Buffers of
   * a batch decoded into {@link #newScanAllocator} move over (the batch's vectors are left empty;
   * the caller still closes it); others are copied.
   *
   * @param vectors the batch's vectors in the order of the table's columns ({@link
   *     LakeRecords#vectorsOf}); null where the batch has no such column
   * @return false, taking nothing, when a column's Arrow type differs from the table's: the caller
   *     writes those rows another way
   */
  boolean add(
      String partition, PartitionKey partitionKey, FieldVector[] vectors, int first, int end)
      throws IOException {
    for (int i = 0; i < vectors.length; i++) {
      if (vectors[i] != null
          && !vectors[i].getField().getType().equals(arrowSchema.getFields().get(i).getType())) {
        return false;
      }
    }
    OpenFile file = open.get(partition);
    if (file == null) {
      if (open.size() == MAX_OPEN_FILES) {
        String oldest = open.keySet().iterator().next();
        open.remove(oldest).finish();
      }
      file = startFile(partitionKey);
      open.put(partition, file);
    }
    VectorSchemaRoot rows = copier.copy(vectors, first, end);
    file.put(rows);
    if (file.bytes >= rollBytes) {
      open.remove(partition).finish();
    }
    return true;
  }

  /**
   * Finishes every file and returns the data files written.
   *
   * @throws IOException when a file cannot be written; the files written so far are deleted
   */
  List<DataFile> finish() throws IOException {
    for (OpenFile file : open.values()) {
      file.finish();
    }
    open.clear();
    List<DataFile> result = new ArrayList<>();
    IOException error = null;
    for (CompletableFuture<DataFile> file : written) {
      try {
        result.add(file.get());
      } catch (ExecutionException e) {
        if (error == null) {
          error = new IOException("Cannot write a data file of " + table.name(), e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        error = new IOException("Interrupted writing data files of " + table.name(), e);
        break;
      }
    }
    if (error != null) {
      throw error; // close() deletes the files
    }
    finished = true;
    return result;
  }

  /**
   * Stops every copy and frees the memory; unless {@link #finish()} succeeded, deletes every file
   * written.
   */
  @Override
  public void close() {
    for (OpenFile file : open.values()) {
      file.abandon();
    }
    open.clear();
    copies.shutdown();
    try {
      if (!copies.awaitTermination(1, TimeUnit.MINUTES)) {
        LOG.warn("Parquet writers of {} did not stop within a minute", table.name());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!finished) {
      for (CompletableFuture<DataFile> file : written) {
        DataFile done = file.getNow(null);
        if (done != null) {
          LakeFiles.deleteQuietly(table.io(), List.of(done));
        }
      }
    }
    if (duckdb != null) {
      try {
        duckdb.close();
      } catch (SQLException e) {
        LOG.debug("Cannot close the DuckDB connection of a tiering writer", e);
      }
    }
    allocator.close();
  }

  private OpenFile startFile(PartitionKey partitionKey) throws IOException {
    if (duckdb == null) {
      duckdb = open();
    }
    PartitionKey key = partitionKey == null ? null : partitionKey.copy();
    String location =
        (key == null ? files.newOutputFile() : files.newOutputFile(spec, key))
            .encryptingOutputFile()
            .location();
    Path local = localPath(location);
    Path target;
    if (local != null) {
      Files.createDirectories(local.getParent());
      target = local;
    } else {
      target = Files.createTempFile("lakestream-tiering-", ".parquet");
    }
    OpenFile file = new OpenFile(new ArrowBatchQueue(allocator, arrowSchema));
    String name = "lakestream_tiering_" + STREAMS.incrementAndGet();
    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
    Data.exportArrayStream(allocator, file.queue, stream);
    Connection connection;
    try {
      connection = ((DuckDBConnection) duckdb).duplicate();
      ((DuckDBConnection) connection).registerArrowStream(name, stream);
    } catch (SQLException | RuntimeException e) {
      stream.close();
      throw new IOException("Cannot start writing " + location + ": " + e.getMessage(), e);
    }
    CompletableFuture<DataFile> done =
        CompletableFuture.supplyAsync(
            () -> {
              try (stream;
                  connection) {
                try (Statement copy = connection.createStatement()) {
                  copy.execute(
                      "COPY (SELECT * FROM "
                          + name
                          + ") TO '"
                          + target.toString().replace("'", "''")
                          + "' "
                          + copyOptions);
                }
                if (local == null) {
                  upload(target, location);
                }
                return dataFile(location, key);
              } catch (SQLException | IOException | RuntimeException e) {
                file.queue.fail();
                deleteQuietly(location);
                throw new IllegalStateException(
                    "Cannot write data file " + location + ": " + e.getMessage(), e);
              } finally {
                file.queue.drain();
                if (local == null) {
                  try {
                    Files.deleteIfExists(target);
                  } catch (IOException e) {
                    LOG.debug("Cannot delete temporary file {}", target, e);
                  }
                }
              }
            },
            copies);
    file.done = done;
    written.add(done);
    return file;
  }

  private void deleteQuietly(String location) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      LOG.debug("Cannot delete {} of a failed write", location, e);
    }
  }

  private DataFile dataFile(String location, PartitionKey key) {
    InputFile input = table.io().newInputFile(location);
    Metrics metrics = ParquetUtil.fileMetrics(input, MetricsConfig.forTable(table));
    DataFiles.Builder builder =
        DataFiles.builder(spec)
            .withPath(location)
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(input.getLength())
            .withMetrics(metrics);
    if (key != null && spec.isPartitioned()) {
      builder.withPartition(key);
    }
    return builder.build();
  }

  private void upload(Path source, String location) throws IOException {
    FileIO io = table.io();
    try (InputStream in = Files.newInputStream(source);
        OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
      in.transferTo(out);
    }
  }

  /** The local path of a location, or null when it is not on the local file system. */
  private static Path localPath(String location) {
    if (location.startsWith("file:")) {
      return Path.of(URI.create(location));
    }
    if (location.startsWith("/")) {
      return Path.of(location);
    }
    return null;
  }

  private static Connection open() throws IOException {
    Properties settings = new Properties();
    settings.setProperty("autoinstall_known_extensions", "false");
    settings.setProperty("autoload_known_extensions", "false");
    settings.setProperty("preserve_insertion_order", "false");
    settings.setProperty("memory_limit", "1GB");
    try {
      // The driver itself, not DriverManager: under a class loader that is not the system one
      // (Flink's user-code class loader running the tiering job), DriverManager finds no driver
      // registered by the service loader and answers "No suitable driver".
      return new DuckDBDriver().connect("jdbc:duckdb:", settings);
    } catch (SQLException e) {
      throw new IOException("Cannot start DuckDB to write Parquet files: " + e.getMessage(), e);
    }
  }

  /** A file being written: the queue DuckDB reads its batches from, and the copy's outcome. */
  private final class OpenFile {
    private final ArrowBatchQueue queue;
    private CompletableFuture<DataFile> done;
    private long bytes;

    OpenFile(ArrowBatchQueue queue) {
      this.queue = queue;
    }

    void put(VectorSchemaRoot rows) throws IOException {
      long size = 0;
      for (FieldVector vector : rows.getFieldVectors()) {
        size += vector.getBufferSize();
      }
      bytes += size;
      while (true) {
        try {
          if (queue.offer(rows, WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          rows.close();
          throw new IOException("Interrupted writing " + table.name(), e);
        }
        if (done.isDone()) {
          rows.close();
          throw new IOException("Cannot write a data file of " + table.name(), causeOf(done));
        }
      }
    }

    void finish() throws IOException {
      queue.end();
    }

    void abandon() {
      queue.fail();
    }
  }

  private static Throwable causeOf(CompletableFuture<?> done) {
    try {
      done.get();
      return new IllegalStateException("The Parquet writer stopped reading");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    }
  }
}
