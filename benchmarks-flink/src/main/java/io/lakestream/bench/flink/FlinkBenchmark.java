package io.lakestream.bench.flink;

import io.lakestream.bench.Benchmark;
import io.lakestream.bench.BenchmarkContext;
import io.lakestream.bench.Figure;
import io.lakestream.bench.LakestreamLauncher;
import io.lakestream.bench.LaunchedServer;
import io.lakestream.bench.Median;
import io.lakestream.bench.Percentile;
import io.lakestream.bench.RunMode;
import io.lakestream.bench.Target;
import io.lakestream.bench.TemporaryDirectory;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * The Flink connector's source and sink on a local MiniCluster in this JVM at parallelism 1,
 * through the {@code lakestream} catalog in Flink SQL, each beside the client doing the same work
 * in the same JVM, against the packaged server in its own process with tiering disabled.
 *
 * <p>Once per run: starts {@code bin/lakestream server --tiering-enabled false} and writes the
 * source table, a one-bucket log table of W1-like rows ({@link WideRows}), through the client's
 * {@link AppendWriter}. Then, with the run mode's warm-up and measured iterations, alternating the
 * baseline and Flink so both meet the same state of the machine:
 *
 * <ul>
 *   <li><b>source</b>: the client's {@link LogScanner} reads the table to its end, reading every
 *       value of every column of every row from the batches' typed Arrow vectors, column by column
 *       and unboxed (longs, ints and doubles summed, every byte of every string hashed: the same
 *       values a source hands on), then a bounded Flink read of it ({@code
 *       scan.startup.mode=earliest}, {@code scan.bounded=true}) as a SQL user's job runs it, {@code
 *       INSERT INTO} a table of the benchmark's {@code counting} connector ({@link CountingSink},
 *       which counts the rows and drops them) {@code SELECT ... FROM} the source table, the
 *       source's rows handed straight to the sink's writer; all 20 columns, then the projection
 *       {@code b0, s0} (the scanner reading every value of its two columns). Rates are rows over
 *       the time from the first row to the last, so that neither side pays for its start (Flink's
 *       job start and MiniCluster is reported apart as the full read's job time). Two more scanner
 *       rates of all columns are reported without a target: touching only {@code b0} and {@code s0}
 *       of every row (about the batches' arrival rate), and every row copied out as the client's
 *       {@code Object[]} (boxed values). Both Flink reads run a second time with object reuse
 *       enabled (no copy of every row between the chained operators), reported beside the default's
 *       rates without a target, and so does Flink's own pipeline into the same sink from rows of
 *       the same read held in memory, the most any source can reach;
 *   <li><b>sink</b>: the client's {@link AppendWriter} (default options; the sink's are the same
 *       but for a 20 ms linger instead of 2 ms, so its batches fill) appends the rows to a new
 *       table and flushes; then a Flink job ({@code fromSequence} mapped to the same rows as Flink
 *       binary rows, filled in place as Flink's SQL sources and generated code hand rows on)
 *       inserts them into another new table; then the same job inserts them into a {@code
 *       blackhole} table (Flink's {@code DiscardingSink}), Flink's own pipeline without a sink,
 *       reported without a target as the ceiling of the sink's rate. Rates are rows over the time
 *       from the first row generated to the writer's flush (the client) or the job's end (Flink);
 *   <li><b>latency</b>: a writer appends rows carrying their send time at a steady rate while an
 *       unbounded Flink read ({@code scan.startup.mode=latest}, checkpoints every second) and, as
 *       the baseline, the client's {@link LogScanner} at the latest offset record emit time minus
 *       send time per row.
 * </ul>
 *
 * <p>A throughput figure's ratio is the median of the iterations' own ratios ({@link
 * Figure#paired}), its value and baseline the medians of each: the two are measured seconds apart,
 * the iterations minutes apart, and this machine's speed drifts by up to 2x between them (the ratio
 * of the medians taken apart once made 0.84 of five iterations whose ratios were 0.58-0.71 and
 * 1.21). Latencies are medians of each taken apart. The Flink writes run in a stream environment of
 * their own: a generator's operators stay in the environment that built them after the insert has
 * run them, and ran again beside the next job of that environment, the measured full read.
 */
public final class FlinkBenchmark implements Benchmark {
  private static final String DATABASE = "bench";
  private static final String SOURCE_TABLE = "w1";
  private static final String DISCARD_TABLE = "default_catalog.default_database.discard";
  private static final int FULL_ROWS = 1_000_000;
  private static final int QUICK_ROWS = 20_000;
  private static final int FULL_LATENCY_ROWS = 10_000;
  private static final int QUICK_LATENCY_ROWS = 2_000;
  private static final int LATENCY_ROWS_PER_SECOND = 1_000;
  private static final double THROUGHPUT_RATIO_TARGET = 0.7;
  private static final double LATENCY_P99_TARGET_MS = 50;
  private static final List<String> PROJECTION = List.of("b0", "s0");
  private static final int CEILING_SAMPLE_ROWS = 4096;
  private static final String ALL_COLUMNS = "*";

  /**
   * System property naming the parts to run: {@code all} (the default) or {@code sink} (only the
   * sink's write and the same job into a discarding sink, no source table, reads or latency).
   * Without it, the environment variable {@link #PARTS_VARIABLE} (which reaches the benchmark
   * through {@code bin/lakestream bench flink}).
   */
  static final String PARTS_PROPERTY = "lakestream.bench.flink.parts";

  static final String PARTS_VARIABLE = "LAKESTREAM_BENCH_FLINK_PARTS";

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  private static final Duration SCAN_DEADLINE = Duration.ofMinutes(5);
  private static final Duration LATENCY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  @Override
  public String name() {
    return "flink";
  }

  @Override
  public String workload() {
    return "W1-like wide rows (20 columns), "
        + FULL_ROWS
        + " rows (quick mode "
        + QUICK_ROWS
        + ") in a one-bucket log table, read and written by the Flink connector on a local"
        + " MiniCluster at parallelism 1 beside the client's LogScanner and AppendWriter in the same"
        + " JVM; latency of "
        + FULL_LATENCY_ROWS
        + " rows (quick mode "
        + QUICK_LATENCY_ROWS
        + ") sent at "
        + LATENCY_ROWS_PER_SECOND
        + " rows/s, checkpoints every second";
  }

  /** One iteration's rates in rows/s, and the Flink full read's job time in seconds. */
  private record Throughput(
      double scanFull,
      double flinkFull,
      double scanProjected,
      double flinkProjected,
      double appendWriter,
      double flinkSink,
      double flinkDiscard,
      double flinkFullJobSeconds,
      double scanFullSeconds,
      double scanFullRowObjects,
      double scanFullTwoColumns,
      double flinkFullObjectReuse,
      double flinkProjectedObjectReuse,
      double ceilingFull,
      double ceilingProjected) {}

  /** One iteration's latency percentiles in milliseconds. */
  private record Latency(double flinkP50, double flinkP99, double scannerP50, double scannerP99) {}

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    boolean sinkOnly = sinkOnly();
    int rows = quick ? QUICK_ROWS : FULL_ROWS;
    int latencyRows = quick ? QUICK_LATENCY_ROWS : FULL_LATENCY_ROWS;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    List<Throughput> throughput;
    List<Latency> latency;
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-flink-");
        HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      Path work = directory.path();
      try (LaunchedServer server =
          LaunchedServer.start(
              launcher,
              work.resolve("data"),
              work.resolve("server.log"),
              "Lakestream server",
              List.of("--tiering-enabled", "false"),
              http,
              REQUEST_TIMEOUT)) {
        try (Connection client = Connection.open("127.0.0.1", server.rpcPort(), null)) {
          String catalogDdl =
              "CREATE CATALOG ls WITH ('type'='lakestream', 'uri'='"
                  + server.base()
                  + "', 'rpc-address'='127.0.0.1:"
                  + server.rpcPort()
                  + "')";
          // The second session makes the same reads with object reuse: no copy of every row
          // between chained operators.
          try (Flink session = flink(catalogDdl, false);
              Flink reuseSession = flink(catalogDdl, false)) {
            reuseSession.stream().getConfig().enableObjectReuse();
            StreamTableEnvironment flink = session.table();
            flink.executeSql("CREATE DATABASE ls." + DATABASE);
            createWideTable(flink, SOURCE_TABLE);
            Table source = client.table(TablePath.of(DATABASE + "." + SOURCE_TABLE));
            if (!sinkOnly) {
              context.progress().printf("  writing %d source rows%n", rows);
              appendWithClient(source, rows);
              long end = source.latestOffset(0);
              if (end != rows) {
                throw new IllegalStateException(
                    "The source table's latest offset is " + end + " after " + rows + " appends");
              }
            }

            int[] iteration = {0};
            throughput =
                context.iterate(
                    () ->
                        throughput(
                            context,
                            catalogDdl,
                            session,
                            reuseSession,
                            client,
                            source,
                            rows,
                            iteration[0]++,
                            sinkOnly));
            if (sinkOnly) {
              latency = List.of();
            } else {
              context.progress().println("  phase latency");
              createLatencyTable(flink);
              Table latencyTable = client.table(TablePath.of(DATABASE + ".latency"));
              long[] nextId = {0};
              latency =
                  context.iterate(
                      () -> latency(context, catalogDdl, latencyTable, latencyRows, nextId));
            }
          }
        }
        server.stopCleanly();
      }
    }
    return figures(throughput, latency);
  }

  private static Throughput throughput(
      BenchmarkContext context,
      String catalogDdl,
      Flink session,
      Flink reuseSession,
      Connection client,
      Table source,
      int rows,
      int iteration,
      boolean sinkOnly)
      throws Exception {
    StreamTableEnvironment flink = session.table();
    if (sinkOnly) {
      Write write = write(context, catalogDdl, session, client, rows, iteration);
      return new Throughput(
          0,
          0,
          0,
          0,
          write.appendWriter(),
          write.flinkSink(),
          write.flinkDiscard(),
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0);
    }
    double scanFull = scanWithClient(source.newScanner(), rows, WideRows.COLUMNS);
    double scanFullTwoColumns = scanTwoColumnsWithClient(source.newScanner(), rows);
    double scanFullRowObjects = scanRowObjectsWithClient(source.newScanner(), rows);
    long jobStart = System.nanoTime();
    double flinkFull = readWithFlink(session, ALL_COLUMNS, rows);
    double flinkFullJobSeconds = (System.nanoTime() - jobStart) / 1e9;
    double scanProjected =
        scanWithClient(
            source.newScanner(PROJECTION, BatchFilter.MATCH_ALL), rows, PROJECTION.size());
    String projected = String.join(", ", PROJECTION);
    double flinkProjected = readWithFlink(session, projected, rows);
    double flinkFullObjectReuse = readWithFlink(reuseSession, ALL_COLUMNS, rows);
    double flinkProjectedObjectReuse = readWithFlink(reuseSession, projected, rows);
    double ceilingFull = pipelineCeiling(session, ALL_COLUMNS, rows);
    double ceilingProjected = pipelineCeiling(session, projected, rows);
    context
        .progress()
        .printf(
            "    Flink's ceiling (rows from memory): full %.0f, projected %.0f rows/s%n",
            ceilingFull, ceilingProjected);
    context
        .progress()
        .printf(
            "    read full: scanner %.0f (b0 and s0 touched %.0f, as Object[] rows %.0f), flink %.0f"
                + " rows/s (job %.1f s); projected: scanner %.0f, flink %.0f rows/s; with object"
                + " reuse: flink full %.0f, projected %.0f rows/s%n",
            scanFull,
            scanFullTwoColumns,
            scanFullRowObjects,
            flinkFull,
            flinkFullJobSeconds,
            scanProjected,
            flinkProjected,
            flinkFullObjectReuse,
            flinkProjectedObjectReuse);

    Write write = write(context, catalogDdl, session, client, rows, iteration);
    return new Throughput(
        scanFull,
        flinkFull,
        scanProjected,
        flinkProjected,
        write.appendWriter(),
        write.flinkSink(),
        write.flinkDiscard(),
        flinkFullJobSeconds,
        rows / scanFull,
        scanFullRowObjects,
        scanFullTwoColumns,
        flinkFullObjectReuse,
        flinkProjectedObjectReuse,
        ceilingFull,
        ceilingProjected);
  }

  /**
   * The sink part of one iteration in rows/s: the client's AppendWriter, the Flink sink, and the
   * same Flink job into a discarding sink.
   */
  private record Write(double appendWriter, double flinkSink, double flinkDiscard) {}

  private static Write write(
      BenchmarkContext context,
      String catalogDdl,
      Flink session,
      Connection client,
      int rows,
      int iteration)
      throws Exception {
    StreamTableEnvironment flink = session.table();
    // The Flink writes get a session of their own: a generator's operators stay in its stream
    // environment after the insert has run them, and would run again beside the next job that
    // environment runs (the reads' session's next job is a measured read).
    try (Flink writeSession = flink(catalogDdl, false)) {
      return write(context, flink, writeSession, client, rows, iteration);
    }
  }

  private static Write write(
      BenchmarkContext context,
      StreamTableEnvironment flink,
      Flink writeSession,
      Connection client,
      int rows,
      int iteration)
      throws Exception {
    createDiscardTable(writeSession.table());
    String clientTable = "sink_client_" + iteration;
    String flinkTable = "sink_flink_" + iteration;
    createWideTable(flink, clientTable);
    createWideTable(flink, flinkTable);
    double appendWriter =
        appendWithClient(client.table(TablePath.of(DATABASE + "." + clientTable)), rows);
    double flinkSink = writeWithFlink(writeSession, "ls." + DATABASE + "." + flinkTable, rows);
    long written = client.table(TablePath.of(DATABASE + "." + flinkTable)).latestOffset(0);
    if (written != rows) {
      throw new IllegalStateException(
          "The Flink sink wrote " + written + " rows of " + rows + " into " + flinkTable);
    }
    flink.executeSql("DROP TABLE ls." + DATABASE + "." + clientTable);
    flink.executeSql("DROP TABLE ls." + DATABASE + "." + flinkTable);
    double flinkDiscard = writeWithFlink(writeSession, DISCARD_TABLE, rows);
    context
        .progress()
        .printf(
            "    write: AppendWriter %.0f, flink %.0f rows/s; flink into a discarding sink %.0f"
                + " rows/s%n",
            appendWriter, flinkSink, flinkDiscard);
    return new Write(appendWriter, flinkSink, flinkDiscard);
  }

  private static boolean sinkOnly() {
    String variable = System.getenv(PARTS_VARIABLE);
    String parts = System.getProperty(PARTS_PROPERTY, variable == null ? "all" : variable);
    return switch (parts) {
      case "all" -> false;
      case "sink" -> true;
      default ->
          throw new IllegalArgumentException(
              "System property "
                  + PARTS_PROPERTY
                  + " (or environment variable "
                  + PARTS_VARIABLE
                  + ") is all or sink, not "
                  + parts);
    };
  }

  /** A local (MiniCluster) stream environment and its table environment. */
  private record Flink(StreamExecutionEnvironment stream, StreamTableEnvironment table)
      implements AutoCloseable {
    /** Drops the catalog {@code ls}, which closes its connections to the server. */
    @Override
    public void close() {
      table.executeSql("DROP CATALOG ls");
    }
  }

  /**
   * A table environment on a new local (MiniCluster) environment at parallelism 1, with the catalog
   * {@code ls}.
   */
  private static Flink flink(String catalogDdl, boolean checkpoints) {
    StreamExecutionEnvironment stream = StreamExecutionEnvironment.getExecutionEnvironment();
    stream.setParallelism(1);
    if (checkpoints) {
      stream.enableCheckpointing(CHECKPOINT_INTERVAL.toMillis());
    }
    StreamTableEnvironment flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    flink.getConfig().set("parallelism.default", "1");
    flink.executeSql(catalogDdl);
    flink.executeSql(
        "CREATE TEMPORARY TABLE "
            + countingTable(ALL_COLUMNS)
            + " ("
            + WideRows.COLUMNS_DDL
            + ") WITH ('connector'='"
            + CountingTableFactory.IDENTIFIER
            + "')");
    flink.executeSql(
        "CREATE TEMPORARY TABLE "
            + countingTable(String.join(", ", PROJECTION))
            + " (b0 BIGINT, s0 STRING) WITH ('connector'='"
            + CountingTableFactory.IDENTIFIER
            + "')");
    return new Flink(stream, flink);
  }

  /** The counting table in Flink's in-memory catalog that takes a read of {@code columns}. */
  private static String countingTable(String columns) {
    return "default_catalog.default_database."
        + (columns.equals(ALL_COLUMNS) ? "counted_all" : "counted_projection");
  }

  private static void createWideTable(StreamTableEnvironment flink, String name) {
    flink.executeSql(
        "CREATE TABLE ls."
            + DATABASE
            + "."
            + name
            + " ("
            + WideRows.COLUMNS_DDL
            + ") WITH ('lakestream.buckets'='1')");
  }

  /**
   * A table of the wide columns in Flink's in-memory catalog whose connector ({@code blackhole})
   * discards every row with Flink's {@code DiscardingSink}: the sink job's plan without the
   * connector.
   */
  private static void createDiscardTable(StreamTableEnvironment flink) {
    flink.executeSql(
        "CREATE TEMPORARY TABLE "
            + DISCARD_TABLE
            + " ("
            + WideRows.COLUMNS_DDL
            + ") WITH ('connector'='blackhole')");
  }

  private static void createLatencyTable(StreamTableEnvironment flink) {
    flink.executeSql(
        "CREATE TABLE ls."
            + DATABASE
            + ".latency (id BIGINT NOT NULL, sent_micros BIGINT NOT NULL, pad STRING)"
            + " WITH ('lakestream.buckets'='1')");
  }

  /** Appends rows {@code [0, rows)} and flushes; rows/s from the first append to flush() return. */
  private static double appendWithClient(Table table, int rows) {
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults())) {
      long start = System.nanoTime();
      for (int i = 0; i < rows; i++) {
        writer.append(WideRows.values(i));
      }
      writer.flush();
      return rows / ((System.nanoTime() - start) / 1e9);
    }
  }

  /**
   * Reads bucket 0 from the earliest offset to {@code rows}, reading every value of every column of
   * every row from the batches' typed Arrow vectors, column by column, as a reader that hands on
   * all values must, without boxing: longs, ints and doubles summed, every byte of every string
   * hashed 8 at a time, nulls counted; the batches must have {@code columns} columns. Rows/s from
   * the first batch to the last.
   */
  private static double scanWithClient(LogScanner scanner, long rows, int columns) {
    try (scanner) {
      long deadline = System.nanoTime() + SCAN_DEADLINE.toNanos();
      scanner.subscribe(0, LogScanner.earliest());
      long read = 0;
      long checksum = 0;
      long first = 0;
      while (scanner.position(0) < rows) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "The scan reached offset "
                  + scanner.position(0)
                  + " of "
                  + rows
                  + " by its deadline");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            if (read == 0) {
              first = System.nanoTime();
            }
            VectorSchemaRoot root = batch.root();
            if (root.getFieldVectors().size() != columns) {
              throw new IllegalStateException(
                  "A scanned batch has the columns "
                      + root.getSchema().getFields()
                      + ", expected "
                      + columns);
            }
            int count = root.getRowCount();
            for (FieldVector vector : root.getFieldVectors()) {
              checksum += readValues(vector, count);
            }
            read += count;
          }
        }
      }
      long nanos = System.nanoTime() - first;
      if (read != rows || checksum == 42) {
        throw new IllegalStateException("The scan returned " + read + " rows, expected " + rows);
      }
      return rows / (nanos / 1e9);
    }
  }

  /** A checksum over every value of the vector's first {@code count} rows. */
  private static long readValues(FieldVector vector, int count) {
    long checksum = 0;
    if (vector instanceof BigIntVector v) {
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < count; i++) {
        checksum += v.isNull(i) ? 1 : data.getLong((long) i * Long.BYTES);
      }
    } else if (vector instanceof IntVector v) {
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < count; i++) {
        checksum += v.isNull(i) ? 1 : data.getInt((long) i * Integer.BYTES);
      }
    } else if (vector instanceof Float8Vector v) {
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < count; i++) {
        checksum += v.isNull(i) ? 1 : Double.doubleToRawLongBits(data.getDouble((long) i * 8));
      }
    } else if (vector instanceof VarCharVector v) {
      ArrowBuf offsets = v.getOffsetBuffer();
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < count; i++) {
        if (v.isNull(i)) {
          checksum += 1;
          continue;
        }
        long from = offsets.getInt((long) i * Integer.BYTES);
        long to = offsets.getInt((long) (i + 1) * Integer.BYTES);
        long hash = to - from;
        long at = from;
        for (; at + Long.BYTES <= to; at += Long.BYTES) {
          hash = hash * 31 + data.getLong(at);
        }
        for (; at < to; at++) {
          hash = hash * 31 + data.getByte(at);
        }
        checksum += hash;
      }
    } else {
      throw new IllegalStateException(
          "Column " + vector.getName() + " has the unexpected vector type " + vector.getClass());
    }
    return checksum;
  }

  /**
   * Reads bucket 0 from the earliest offset to {@code rows}, touching only {@code b0} and {@code
   * s0} of every row (its length and first byte): little more than the batches' arrival, whatever
   * the columns fetched; rows/s from the first batch to the last.
   */
  private static double scanTwoColumnsWithClient(LogScanner scanner, long rows) {
    try (scanner) {
      long deadline = System.nanoTime() + SCAN_DEADLINE.toNanos();
      scanner.subscribe(0, LogScanner.earliest());
      long read = 0;
      long checksum = 0;
      long first = 0;
      while (scanner.position(0) < rows) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "The scan reached offset "
                  + scanner.position(0)
                  + " of "
                  + rows
                  + " by its deadline");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            if (read == 0) {
              first = System.nanoTime();
            }
            VectorSchemaRoot root = batch.root();
            BigIntVector b0 = (BigIntVector) root.getVector("b0");
            VarCharVector s0 = (VarCharVector) root.getVector("s0");
            ArrowBuf s0Bytes = s0.getDataBuffer();
            int count = root.getRowCount();
            for (int i = 0; i < count; i++) {
              int from = s0.getStartOffset(i);
              int to = s0.getEndOffset(i);
              checksum += b0.get(i) + (to - from) + (to > from ? s0Bytes.getByte(from) : 0);
            }
            read += count;
          }
        }
      }
      long nanos = System.nanoTime() - first;
      if (read != rows || checksum == 42) {
        throw new IllegalStateException("The scan returned " + read + " rows, expected " + rows);
      }
      return rows / (nanos / 1e9);
    }
  }

  /**
   * Reads bucket 0 from the earliest offset to {@code rows}, every row copied out as the client's
   * {@code Object[]} ({@link ScanBatch#rows()}), as a reader that hands on every value must; rows/s
   * from the first batch to the last.
   */
  private static double scanRowObjectsWithClient(LogScanner scanner, long rows) {
    try (scanner) {
      long deadline = System.nanoTime() + SCAN_DEADLINE.toNanos();
      scanner.subscribe(0, LogScanner.earliest());
      long read = 0;
      long checksum = 0;
      long first = 0;
      while (scanner.position(0) < rows) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "The scan reached offset "
                  + scanner.position(0)
                  + " of "
                  + rows
                  + " by its deadline");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            if (read == 0) {
              first = System.nanoTime();
            }
            for (Object[] row : batch.rows()) {
              checksum += row.length;
            }
            read += batch.rowCount();
          }
        }
      }
      long nanos = System.nanoTime() - first;
      if (read != rows || checksum != rows * WideRows.COLUMNS) {
        throw new IllegalStateException("The scan returned " + read + " rows, expected " + rows);
      }
      return rows / (nanos / 1e9);
    }
  }

  /**
   * Runs {@code INSERT INTO} the session's counting table of {@code columns} ({@code *} or {@code
   * b0, s0}) {@code SELECT columns FROM} the source table, a bounded read from the earliest offset;
   * rows/s from the first row the sink takes to the last.
   */
  private static double readWithFlink(Flink session, String columns, long rows) throws Exception {
    requireNothingPending(session.stream());
    CountingSink.reset(rows);
    session
        .table()
        .executeSql(
            "INSERT INTO "
                + countingTable(columns)
                + " SELECT "
                + columns
                + " FROM ls."
                + DATABASE
                + "."
                + SOURCE_TABLE
                + " /*+ OPTIONS('scan.startup.mode'='earliest', 'scan.bounded'='true') */")
        .await();
    if (CountingSink.rows() != rows) {
      throw new IllegalStateException(
          "The Flink read of " + columns + " emitted " + CountingSink.rows() + " rows of " + rows);
    }
    return (rows - 1) / (CountingSink.firstToLastNanos() / 1e9);
  }

  /**
   * Flink's own ceiling for {@link #readWithFlink}: the first {@value #CEILING_SAMPLE_ROWS} rows of
   * the same read, collected once, emitted round robin from a sequence source held in memory into
   * the same counting sink; rows/s from the first row to the last. No source fed by any store can
   * be faster at parallelism 1.
   */
  private static double pipelineCeiling(Flink session, String columns, long rows) throws Exception {
    requireNothingPending(session.stream());
    StreamTableEnvironment flink = session.table();
    org.apache.flink.table.api.Table table =
        flink.sqlQuery(
            "SELECT "
                + columns
                + " FROM ls."
                + DATABASE
                + "."
                + SOURCE_TABLE
                + " /*+ OPTIONS('scan.startup.mode'='earliest', 'scan.bounded'='true') */");
    DataStream<RowData> read =
        flink.toDataStream(
            table, table.getResolvedSchema().toPhysicalRowDataType().bridgedTo(RowData.class));
    List<RowData> sample = read.executeAndCollect(CEILING_SAMPLE_ROWS);
    if (sample.size() != Math.min(rows, CEILING_SAMPLE_ROWS)) {
      throw new IllegalStateException(
          "Collected " + sample.size() + " rows of " + columns + " for the ceiling");
    }
    PrebuiltRows.set(sample);
    CountingSink.reset(rows);
    session.stream()
        .fromSequence(0, rows - 1)
        .map(new PrebuiltRows())
        .returns(read.getType())
        .sinkTo(new CountingSink());
    session.stream().execute("lakestream-bench-ceiling");
    PrebuiltRows.set(List.of());
    if (CountingSink.rows() != rows) {
      throw new IllegalStateException(
          "The ceiling job emitted " + CountingSink.rows() + " rows of " + rows);
    }
    return (rows - 1) / (CountingSink.firstToLastNanos() / 1e9);
  }

  /**
   * Fails when {@code stream} holds operators of an earlier pipeline that no job has run: its next
   * job would run them beside the measured one, on the same two cores.
   */
  private static void requireNothingPending(StreamExecutionEnvironment stream) {
    if (!stream.getTransformations().isEmpty()) {
      throw new IllegalStateException(
          "The stream environment still holds operators no job has run: "
              + stream.getTransformations());
    }
  }

  /**
   * Inserts rows {@code [0, rows)}, generated in the job, into {@code table} (its full name);
   * rows/s from the first row generated to the job's end.
   */
  private static double writeWithFlink(Flink session, String table, int rows) throws Exception {
    FirstRowTime.reset();
    DataStream<RowData> generated =
        session.stream()
            .fromSequence(0, rows - 1)
            .map(new FirstRowTime())
            .returns(WideRows.typeInfo());
    session.table().fromDataStream(generated).executeInsert(table).await();
    long end = System.nanoTime();
    return rows / ((end - FirstRowTime.nanos()) / 1e9);
  }

  /**
   * One latency iteration: a Flink job reads the latency table unbounded from the latest offset
   * with checkpoints every second, beside a client scanner thread; rows are sent at a steady rate
   * until both have read one, then {@code samples} measured rows.
   */
  private static Latency latency(
      BenchmarkContext context, String catalogDdl, Table table, int samples, long[] nextId)
      throws Exception {
    try (Flink session = flink(catalogDdl, true)) {
      return latency(context, session.table(), table, samples, nextId);
    }
  }

  private static Latency latency(
      BenchmarkContext context,
      StreamTableEnvironment flink,
      Table table,
      int samples,
      long[] nextId)
      throws Exception {
    org.apache.flink.table.api.Table query =
        flink.sqlQuery(
            "SELECT * FROM ls."
                + DATABASE
                + ".latency /*+ OPTIONS('scan.startup.mode'='latest') */");
    DataStream<RowData> stream =
        flink.toDataStream(
            query, query.getResolvedSchema().toPhysicalRowDataType().bridgedTo(RowData.class));
    stream.map(new EmitLatency()).returns(stream.getType()).sinkTo(new DiscardingSink<>());
    LatencySamples flinkSamples = EmitLatency.SAMPLES;
    LatencySamples scannerSamples = new LatencySamples();
    flinkSamples.window(Long.MAX_VALUE - 1, Long.MAX_VALUE);
    scannerSamples.window(Long.MAX_VALUE - 1, Long.MAX_VALUE);
    long readFrom = nextId[0];
    JobClient job = stream.getExecutionEnvironment().executeAsync("lakestream-bench-latency");
    try (LogScanner scanner = table.newScanner();
        AppendWriter writer = table.newAppendWriter(WriterOptions.defaults())) {
      scanner.subscribe(0, LogScanner.latest());
      AtomicBoolean stop = new AtomicBoolean();
      Thread scannerThread =
          Thread.ofPlatform()
              .name("latency-scanner")
              .start(() -> readLatencies(scanner, scannerSamples, stop));
      try {
        long interval = TimeUnit.SECONDS.toNanos(1) / LATENCY_ROWS_PER_SECOND;
        long next = System.nanoTime();
        long deadline = next + LATENCY_DEADLINE.toNanos();
        // Warm-up rows until both readers have read one sent after they started.
        while (flinkSamples.highestId() < readFrom || scannerSamples.highestId() < readFrom) {
          requireBefore(deadline, "row read by Flink and by the scanner", job);
          next = send(writer, nextId, next, interval);
        }
        long from = nextId[0];
        flinkSamples.window(from, from + samples);
        scannerSamples.window(from, from + samples);
        for (int i = 0; i < samples; i++) {
          next = send(writer, nextId, next, interval);
        }
        writer.flush();
        awaitTrue(
            () -> flinkSamples.complete() && scannerSamples.complete(),
            System.nanoTime() + LATENCY_DEADLINE.toNanos(),
            "measured rows all read by Flink and by the scanner",
            job);
      } finally {
        stop.set(true);
        scannerThread.join();
        job.cancel().get();
      }
    }
    double[] flinkMillis = flinkSamples.sortedMillis();
    double[] scannerMillis = scannerSamples.sortedMillis();
    Latency result =
        new Latency(
            Percentile.of(flinkMillis, 0.5),
            Percentile.of(flinkMillis, 0.99),
            Percentile.of(scannerMillis, 0.5),
            Percentile.of(scannerMillis, 0.99));
    context
        .progress()
        .printf(
            "    latency ms: flink p50 %.1f p99 %.1f; scanner p50 %.1f p99 %.1f%n",
            result.flinkP50(), result.flinkP99(), result.scannerP50(), result.scannerP99());
    return result;
  }

  /** Sends the next row at {@code next} (waiting for it) and returns the next send time. */
  private static long send(AppendWriter writer, long[] nextId, long next, long interval) {
    long wait = next - System.nanoTime();
    if (wait > 0) {
      LockSupport.parkNanos(wait);
    }
    long id = nextId[0]++;
    writer.append(id, EmitLatency.epochMicros(), "latency-row-" + id);
    return next + interval;
  }

  private static void readLatencies(
      LogScanner scanner, LatencySamples samples, AtomicBoolean stop) {
    while (!stop.get()) {
      for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
        try (batch) {
          VectorSchemaRoot root = batch.root();
          BigIntVector ids = (BigIntVector) root.getVector("id");
          BigIntVector sent = (BigIntVector) root.getVector("sent_micros");
          long now = EmitLatency.epochMicros();
          for (int i = 0; i < root.getRowCount(); i++) {
            samples.record(ids.get(i), now - sent.get(i));
          }
        }
      }
    }
  }

  private static void requireBefore(long deadline, String what, JobClient job) throws Exception {
    if (System.nanoTime() - deadline > 0) {
      throw new IllegalStateException(
          "No " + what + " by the deadline; the Flink job is " + job.getJobStatus().get());
    }
  }

  private static void awaitTrue(
      BooleanSupplier condition, long deadline, String what, JobClient job) throws Exception {
    while (!condition.getAsBoolean()) {
      requireBefore(deadline, what, job);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private static List<Figure> figures(List<Throughput> throughput, List<Latency> latency) {
    List<Figure> sink =
        List.of(
            Figure.paired(
                "sink_rows_per_s",
                throughput,
                Throughput::flinkSink,
                "rows/s",
                "client AppendWriter, same rows",
                Throughput::appendWriter,
                Target.ratioAtLeast(THROUGHPUT_RATIO_TARGET)),
            Figure.pairedWithoutTarget(
                "sink_job_without_sink_rows_per_s",
                throughput,
                Throughput::flinkDiscard,
                "rows/s",
                "client AppendWriter, same rows (Flink's own pipeline, discarding every row)",
                Throughput::appendWriter));
    if (latency.isEmpty()) {
      return sink;
    }
    List<Figure> figures = new ArrayList<>(figures(throughput, latency, sink.get(0)));
    figures.add(sink.get(1));
    return figures;
  }

  private static List<Figure> figures(
      List<Throughput> throughput, List<Latency> latency, Figure sink) {
    return List.of(
        Figure.paired(
            "source_full_rows_per_s",
            throughput,
            Throughput::flinkFull,
            "rows/s",
            "client LogScanner, same table, every value of all 20 columns read from the Arrow"
                + " vectors (unboxed)",
            Throughput::scanFull,
            Target.ratioAtLeast(THROUGHPUT_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "source_full_vs_batches_rows_per_s",
            throughput,
            Throughput::flinkFull,
            "rows/s",
            "client LogScanner, same table, all columns fetched, only b0 and s0 touched",
            Throughput::scanFullTwoColumns),
        Figure.pairedWithoutTarget(
            "source_full_vs_objects_rows_per_s",
            throughput,
            Throughput::flinkFull,
            "rows/s",
            "client LogScanner, same table, every row as Object[]",
            Throughput::scanFullRowObjects),
        Figure.paired(
            "source_projected_rows_per_s",
            throughput,
            Throughput::flinkProjected,
            "rows/s",
            "client LogScanner, same table, every value of b0 and s0 read from the Arrow vectors",
            Throughput::scanProjected,
            Target.ratioAtLeast(THROUGHPUT_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "source_full_vs_flink_ceiling_rows_per_s",
            throughput,
            Throughput::flinkFull,
            "rows/s",
            "Flink's own pipeline, the same rows emitted from memory (a sequence source mapped to"
                + " rows collected once) into the same counting sink",
            Throughput::ceilingFull),
        Figure.pairedWithoutTarget(
            "source_projected_vs_flink_ceiling_rows_per_s",
            throughput,
            Throughput::flinkProjected,
            "rows/s",
            "Flink's own pipeline, the same two-column rows emitted from memory",
            Throughput::ceilingProjected),
        Figure.pairedWithoutTarget(
            "source_full_object_reuse_rows_per_s",
            throughput,
            Throughput::flinkFullObjectReuse,
            "rows/s",
            "the same full read without object reuse (Flink's default: every row copied between"
                + " chained operators)",
            Throughput::flinkFull),
        Figure.pairedWithoutTarget(
            "source_projected_object_reuse_rows_per_s",
            throughput,
            Throughput::flinkProjectedObjectReuse,
            "rows/s",
            "the same projected read without object reuse",
            Throughput::flinkProjected),
        Figure.pairedWithoutTarget(
            "source_full_object_reuse_vs_scanner_rows_per_s",
            throughput,
            Throughput::flinkFullObjectReuse,
            "rows/s",
            "client LogScanner, same table, every value of all 20 columns read (the full read's"
                + " baseline), the Flink read with pipeline.object-reuse",
            Throughput::scanFull),
        Figure.pairedWithoutTarget(
            "source_projected_object_reuse_vs_scanner_rows_per_s",
            throughput,
            Throughput::flinkProjectedObjectReuse,
            "rows/s",
            "client LogScanner, same table, every value of b0 and s0 read (the projected read's"
                + " baseline), the Flink read with pipeline.object-reuse",
            Throughput::scanProjected),
        sink,
        Figure.withoutTarget(
            "source_full_job_ms",
            Median.of(throughput, Throughput::flinkFullJobSeconds) * 1000,
            "ms",
            "client LogScanner's read time of the same rows",
            Median.of(throughput, Throughput::scanFullSeconds) * 1000),
        Figure.withoutTarget(
            "latency_ms_p50",
            Median.of(latency, Latency::flinkP50),
            "ms",
            "client LogScanner p50, same rows",
            Median.of(latency, Latency::scannerP50)),
        Figure.of(
            "latency_ms_p99",
            Median.of(latency, Latency::flinkP99),
            "ms",
            "client LogScanner p99, same rows",
            Median.of(latency, Latency::scannerP99),
            Target.below(LATENCY_P99_TARGET_MS)));
  }
}
