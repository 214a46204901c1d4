package io.lakestream.bench;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.Compression;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Workload W1 on a log table of one bucket, through the packaged server and the Java client.
 *
 * <p>One {@code bin/lakestream server} on an empty data directory serves every iteration, so the
 * warm-up iteration warms it as a long-running server is warm. Each iteration creates two new W1
 * log tables through the REST catalog ({@code bench.w1_<n>} and {@code bench.w1_zstd_<n>}, tiered
 * only hourly so that no tiering round competes with the measurements), drops them with their data
 * when done, and:
 *
 * <ul>
 *   <li>appends the rows from one client (8192-row batches, fsync on) to {@code bench.w1}
 *       uncompressed and to {@code bench.w1_zstd} with ZSTD, timing first append to {@code flush()}
 *       return. Baseline: raw {@code FileChannel.write} + {@code force(false)} of the same number
 *       of bytes as the table's stream data takes on disk, in as many writes as batches;
 *   <li>scans {@code bench.w1} fully and projected to {@code b0, s0}, touching both columns of
 *       every row in place (b0's value, s0's length and first byte), five times each way in
 *       alternation, each scan figure being the median of its five passes. Baseline of the full
 *       scan: a loopback socket copy of as many bytes as the table has on disk; baseline of the
 *       projected scan: the full scan;
 *   <li>scans {@code bench.w1} fully three more ways, reading every value of every row (the 20
 *       columns, null checked, strings by their UTF-8 length and first byte): from the Arrow
 *       vectors directly, through the typed row view ({@link ScanBatch#row()}) and through {@link
 *       ScanBatch#rows()}, alternating with the scans above, each figure the median of its passes;
 *       the three must agree on a checksum of what they read. Baseline of the row view: the Arrow
 *       vectors; baseline of {@code rows()}: the row view;
 *   <li>measures freshness: a thread polls a scanner at the latest offset while single rows are
 *       appended and flushed one at a time; the figure is the time from {@code flush()} return to
 *       the row's arrival. Baseline: the append-to-ack time of the same rows;
 *   <li>reports the on-disk size per million rows (baseline: the rows' raw size in row form) and
 *       the server's VmRSS at the end of the iteration (baseline: this benchmark client JVM's
 *       VmRSS).
 * </ul>
 */
final class LogAppendScanBenchmark implements Benchmark {
  private static final int QUICK_ROWS = 50_000;
  // W1's default size in BENCHMARKS.md.
  private static final int FULL_ROWS = 5_000_000;
  private static final int QUICK_FRESHNESS_SAMPLES = 20;
  private static final int FULL_FRESHNESS_SAMPLES = 200;
  private static final int BATCH_ROWS = 8192;
  private static final int DISTINCT_ROWS = WideEvents.DISTINCT_ROWS;
  private static final long SEED = WideEvents.SEED;

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration SCAN_DEADLINE = Duration.ofSeconds(300);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  // The throughput runs send full 8192-row batches, as a bulk producer would configure its writer.
  private static final Duration THROUGHPUT_LINGER = Duration.ofMillis(100);

  // Full and projected scans per iteration, alternating; the figures are the median passes.
  private static final int SCAN_PASSES = 5;

  private static final double FRESHNESS_P99_TARGET_MS = 10;
  private static final double PROJECTED_RATIO_TARGET = 5;

  private static final Schema W1_SCHEMA = WideEvents.schema();
  private static final List<String> PROJECTION = List.of("b0", "s0");

  @Override
  public String name() {
    return "log-append-scan";
  }

  @Override
  public String workload() {
    return "W1 wide events, "
        + FULL_ROWS
        + " rows (quick mode "
        + QUICK_ROWS
        + "), log table with 1 bucket, one client, 8192-row batches (100 ms linger), fsync on; "
        + SCAN_PASSES
        + " full, projected and every-value (Arrow vectors, row view, rows()) scan passes per"
        + " iteration (median pass); "
        + FULL_FRESHNESS_SAMPLES
        + " freshness samples (quick mode "
        + QUICK_FRESHNESS_SAMPLES
        + ")";
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    List<Figure> figures = new java.util.ArrayList<>(ownFigures(context));
    // Issue 37: Kafka and Fluss beside Lakestream's ordinary client, after our own figures.
    figures.addAll(PeerRun.forBenchmark(context, PeerRun.Suite.W1));
    return figures;
  }

  private List<Figure> ownFigures(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    int rows = quick ? QUICK_ROWS : FULL_ROWS;
    int freshnessSamples = quick ? QUICK_FRESHNESS_SAMPLES : FULL_FRESHNESS_SAMPLES;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    Object[][] pool = WideEvents.rowPool();
    List<Sample> samples = onOneServer(context, launcher, pool, rows, freshnessSamples);
    String rawBaseline =
        String.format(
            java.util.Locale.ROOT,
            "raw FileChannel.write+force of same bytes (%.1f MB/s uncompressed, %.1f MB/s ZSTD)",
            Median.of(samples, s -> s.rawMegabytesPerSecond),
            Median.of(samples, s -> s.rawZstdMegabytesPerSecond));
    return List.of(
        Figure.paired(
            "append_rows_per_s",
            samples,
            s -> s.appendRowsPerSecond,
            "rows/s",
            rawBaseline + ", as rows/s",
            s -> s.rawRowsPerSecond,
            Target.atLeast(600_000)),
        Figure.paired(
            "append_rows_per_s_zstd",
            samples,
            s -> s.appendZstdRowsPerSecond,
            "rows/s",
            "raw FileChannel.write+force of same ZSTD bytes, as rows/s",
            s -> s.rawZstdRowsPerSecond,
            Target.atLeast(400_000)),
        Figure.paired(
            "scan_rows_per_s",
            samples,
            s -> s.scanRowsPerSecond,
            "rows/s",
            "loopback socket copy of the table's disk bytes, as rows/s",
            s -> s.socketRowsPerSecond,
            Target.atLeast(1_500_000)),
        Figure.paired(
            "projected_scan_rows_per_s",
            samples,
            s -> s.projectedScanRowsPerSecond,
            "rows/s",
            "full scan (all 20 columns)",
            s -> s.scanRowsPerSecond,
            Target.ratioAtLeast(PROJECTED_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "scan_row_view_rows_per_s",
            samples,
            s -> s.rowViewScanRowsPerSecond,
            "rows/s",
            "every value read from the Arrow vectors directly",
            s -> s.arrowValuesScanRowsPerSecond),
        Figure.pairedWithoutTarget(
            "scan_object_rows_rows_per_s",
            samples,
            s -> s.objectRowsScanRowsPerSecond,
            "rows/s",
            "every value through the row view",
            s -> s.rowViewScanRowsPerSecond),
        Freshness.p50Figure(samples, s -> s.freshness, "append"),
        Freshness.p99Figure(samples, s -> s.freshness, "append", FRESHNESS_P99_TARGET_MS),
        Freshness.maxFigure(samples, s -> s.freshness, "append"),
        Figure.pairedWithoutTarget(
            "disk_bytes_per_million_rows",
            samples,
            s -> s.diskBytesPerMillion,
            "bytes",
            "raw row-form size of the same rows",
            s -> s.rawBytesPerMillion),
        Figure.pairedWithoutTarget(
            "disk_bytes_per_million_rows_zstd",
            samples,
            s -> s.diskZstdBytesPerMillion,
            "bytes",
            "raw row-form size of the same rows",
            s -> s.rawBytesPerMillion),
        Figure.pairedWithoutTarget(
            "server_rss_mib",
            samples,
            s -> s.serverRssMib,
            "MiB",
            "benchmark client JVM VmRSS",
            s -> s.clientRssMib));
  }

  /** One iteration's measurements. */
  private static final class Sample {
    double appendRowsPerSecond;
    double appendZstdRowsPerSecond;
    double rawRowsPerSecond;
    double rawZstdRowsPerSecond;
    double rawMegabytesPerSecond;
    double rawZstdMegabytesPerSecond;
    double scanRowsPerSecond;
    double projectedScanRowsPerSecond;
    double arrowValuesScanRowsPerSecond;
    double rowViewScanRowsPerSecond;
    double objectRowsScanRowsPerSecond;
    double socketRowsPerSecond;
    Freshness freshness;
    double diskBytesPerMillion;
    double diskZstdBytesPerMillion;
    double rawBytesPerMillion;
    double serverRssMib;
    double clientRssMib;
  }

  /**
   * Starts one server and runs every iteration against it, each on two new tables that it drops
   * when done: the warm-up iteration warms the server as well as this client, as a long-running
   * server is warm.
   */
  private static List<Sample> onOneServer(
      BenchmarkContext context, Path launcher, Object[][] pool, int rows, int freshnessSamples)
      throws Exception {
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-log-");
        HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      Path work = directory.path();
      Path streams = work.resolve("data").resolve("streams");
      try (LaunchedServer server =
          LaunchedServer.start(
              launcher,
              work.resolve("data"),
              work.resolve("server.log"),
              "Lakestream server",
              List.of(),
              http,
              REQUEST_TIMEOUT)) {
        List<Sample> samples;
        try (RESTCatalog catalog = LaunchedServer.catalog(server.base());
            Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null)) {
          catalog.createNamespace(Namespace.of("bench"));
          int[] iteration = {0};
          samples =
              context.iterate(
                  () ->
                      measure(
                          context,
                          new Tables(catalog, connection, streams, iteration[0]++),
                          server.process(),
                          work,
                          pool,
                          rows,
                          freshnessSamples));
        }
        server.stopCleanly();
        return samples;
      }
    }
  }

  /** One iteration's tables, created and dropped through the catalog. */
  private record Tables(RESTCatalog catalog, Connection connection, Path streams, int iteration) {
    TableIdentifier identifier(String name) {
      return TableIdentifier.of("bench", name + "_" + iteration);
    }

    Table create(String name) {
      Map<String, String> tableProperties = new HashMap<>();
      tableProperties.put(LakestreamProperties.KIND, TableKind.LOG.value());
      tableProperties.put(LakestreamProperties.BUCKETS, "1");
      // Tiering has its own benchmark: no round of it competes with this one's scans.
      tableProperties.put(LakestreamProperties.TIERING_INTERVAL, "1h");
      catalog
          .buildTable(identifier(name), W1_SCHEMA)
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperties(tableProperties)
          .create();
      return connection.table(TablePath.of("bench." + identifier(name).name()));
    }

    /** Bytes of a table's stream data on disk. */
    long diskBytes(String name) throws IOException {
      Path data = streams.resolve(catalog.loadTable(identifier(name)).uuid().toString());
      return Files.exists(data) ? directorySize(data) : 0;
    }

    void drop(String name) {
      catalog.dropTable(identifier(name), true);
    }
  }

  private static Sample measure(
      BenchmarkContext context,
      Tables tables,
      ChildProcess server,
      Path work,
      Object[][] pool,
      int rows,
      int freshnessSamples)
      throws Exception {
    Sample sample = new Sample();
    Table plain = tables.create("w1");
    Table zstd = tables.create("w1_zstd");
    int batches = (rows + BATCH_ROWS - 1) / BATCH_ROWS;

    sample.appendRowsPerSecond = append(plain, Compression.NONE, pool, rows);
    long plainBytes = tables.diskBytes("w1");
    context.progress().printf("    append uncompressed: %.0f rows/s%n", sample.appendRowsPerSecond);

    sample.appendZstdRowsPerSecond = append(zstd, Compression.ZSTD, pool, rows);
    long zstdBytes = tables.diskBytes("w1_zstd");
    context.progress().printf("    append ZSTD: %.0f rows/s%n", sample.appendZstdRowsPerSecond);

    double rawSeconds = rawWriteSeconds(work.resolve("raw.log"), plainBytes, batches);
    sample.rawRowsPerSecond = rows / rawSeconds;
    sample.rawMegabytesPerSecond = plainBytes / rawSeconds / 1e6;
    double rawZstdSeconds = rawWriteSeconds(work.resolve("raw-zstd.log"), zstdBytes, batches);
    sample.rawZstdRowsPerSecond = rows / rawZstdSeconds;
    sample.rawZstdMegabytesPerSecond = zstdBytes / rawZstdSeconds / 1e6;

    sample.diskBytesPerMillion = plainBytes * 1e6 / rows;
    sample.diskZstdBytesPerMillion = zstdBytes * 1e6 / rows;
    sample.rawBytesPerMillion = rawRowBytes(pool, rows) * 1e6 / rows;

    long end = plain.latestOffset(0);
    // Full and projected passes alternate, so both meet the same state of the machine, and the
    // iteration's figure is the median pass of each: one pass decodes only about 600 batches, too
    // few for the JIT to have compiled the client's per-batch code by the first measured
    // iteration, and a single pass of the projected scan lasts a fraction of a second.
    List<Double> fullPasses = new ArrayList<>();
    List<Double> projectedPasses = new ArrayList<>();
    List<Double> arrowValuesPasses = new ArrayList<>();
    List<Double> rowViewPasses = new ArrayList<>();
    List<Double> objectRowsPasses = new ArrayList<>();
    for (int pass = 0; pass < (quick(context) ? 1 : SCAN_PASSES); pass++) {
      fullPasses.add(scan(plain.newScanner(), end));
      projectedPasses.add(scan(plain.newScanner(PROJECTION, BatchFilter.MATCH_ALL), end));
      EveryValueScan arrow = everyValue(plain.newScanner(), end, ValueReader.ARROW_VECTORS);
      EveryValueScan view = everyValue(plain.newScanner(), end, ValueReader.ROW_VIEW);
      EveryValueScan objects = everyValue(plain.newScanner(), end, ValueReader.OBJECT_ROWS);
      if (arrow.checksum != view.checksum || arrow.checksum != objects.checksum) {
        throw new IllegalStateException(
            "every-value scans read different values: checksums "
                + arrow.checksum
                + " (Arrow vectors), "
                + view.checksum
                + " (row view), "
                + objects.checksum
                + " (rows())");
      }
      arrowValuesPasses.add(arrow.rowsPerSecond);
      rowViewPasses.add(view.rowsPerSecond);
      objectRowsPasses.add(objects.rowsPerSecond);
    }
    sample.scanRowsPerSecond = Median.of(fullPasses, Double::doubleValue);
    sample.projectedScanRowsPerSecond = Median.of(projectedPasses, Double::doubleValue);
    sample.arrowValuesScanRowsPerSecond = Median.of(arrowValuesPasses, Double::doubleValue);
    sample.rowViewScanRowsPerSecond = Median.of(rowViewPasses, Double::doubleValue);
    sample.objectRowsScanRowsPerSecond = Median.of(objectRowsPasses, Double::doubleValue);
    sample.socketRowsPerSecond = rows / loopbackCopySeconds(plainBytes);
    context
        .progress()
        .printf(
            "    scan full: %.0f rows/s, projected: %.0f rows/s%n",
            sample.scanRowsPerSecond, sample.projectedScanRowsPerSecond);
    context
        .progress()
        .printf(
            "    scan every value: Arrow vectors %.0f rows/s, row view %.0f rows/s, rows() %.0f"
                + " rows/s%n",
            sample.arrowValuesScanRowsPerSecond,
            sample.rowViewScanRowsPerSecond,
            sample.objectRowsScanRowsPerSecond);

    freshness(plain, pool, freshnessSamples, sample);
    sample.serverRssMib = server.residentMemoryMib();
    sample.clientRssMib = clientRssMib();
    tables.drop("w1");
    tables.drop("w1_zstd");
    return sample;
  }

  private static boolean quick(BenchmarkContext context) {
    return context.mode() == RunMode.QUICK;
  }

  /** Appends {@code rows} rows and returns rows/s from the first append to flush() return. */
  private static double append(Table table, Compression compression, Object[][] pool, int rows) {
    WriterOptions options =
        WriterOptions.defaults()
            .withBatchRows(BATCH_ROWS)
            .withLinger(THROUGHPUT_LINGER)
            .withCompression(compression);
    try (AppendWriter writer = table.newAppendWriter(options)) {
      long start = System.nanoTime();
      for (int i = 0; i < rows; i++) {
        Object[] row = pool[i % DISTINCT_ROWS];
        row[0] = (long) i;
        writer.append(row);
      }
      writer.flush();
      long nanos = System.nanoTime() - start;
      return rows / (nanos / 1e9);
    }
  }

  /** Scans from the earliest offset to {@code end}, touching b0 and s0 of every row; rows/s. */
  private static double scan(LogScanner scanner, long end) {
    try (scanner) {
      long start = System.nanoTime();
      long deadline = start + SCAN_DEADLINE.toNanos();
      scanner.subscribe(0, LogScanner.earliest());
      long rows = 0;
      long checksum = 0;
      while (scanner.position(0) < end) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "scan reached offset " + scanner.position(0) + " of " + end + " before its deadline");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            VectorSchemaRoot root = batch.root();
            BigIntVector b0 = (BigIntVector) root.getVector("b0");
            VarCharVector s0 = (VarCharVector) root.getVector("s0");
            ArrowBuf s0Bytes = s0.getDataBuffer();
            int count = root.getRowCount();
            for (int i = 0; i < count; i++) {
              // b0's value, s0's length and s0's first byte, read in place: copying every string
              // out would time the JVM's allocator rather than the scan.
              int from = s0.getStartOffset(i);
              int to = s0.getEndOffset(i);
              checksum += b0.get(i) + (to - from) + (to > from ? s0Bytes.getByte(from) : 0);
            }
            rows += count;
          }
        }
      }
      long nanos = System.nanoTime() - start;
      if (rows < end || checksum == 42) {
        throw new IllegalStateException("scan returned " + rows + " rows, expected " + end);
      }
      return rows / (nanos / 1e9);
    }
  }

  /** One every-value scan pass: its rate and a checksum of every value it read. */
  private record EveryValueScan(double rowsPerSecond, long checksum) {}

  /**
   * Reads every value of a W1 batch (b0..b4, i0..i4, d0..d4, s0..s4 by position) and returns a
   * checksum of them: longs and ints as they are, doubles truncated to long, strings as their UTF-8
   * length plus their first byte (W1's strings are ASCII, so rows()' String length and first char
   * give the same). Null values add nothing.
   */
  private enum ValueReader {
    ARROW_VECTORS {
      @Override
      long read(ScanBatch batch) {
        VectorSchemaRoot root = batch.root();
        BigIntVector[] longs = new BigIntVector[5];
        IntVector[] ints = new IntVector[5];
        Float8Vector[] doubles = new Float8Vector[5];
        VarCharVector[] strings = new VarCharVector[5];
        ArrowBuf[] stringBytes = new ArrowBuf[5];
        for (int c = 0; c < 5; c++) {
          longs[c] = (BigIntVector) root.getVector(c);
          ints[c] = (IntVector) root.getVector(5 + c);
          doubles[c] = (Float8Vector) root.getVector(10 + c);
          strings[c] = (VarCharVector) root.getVector(15 + c);
          stringBytes[c] = strings[c].getDataBuffer();
        }
        long checksum = 0;
        int count = root.getRowCount();
        for (int i = 0; i < count; i++) {
          for (int c = 0; c < 5; c++) {
            if (!longs[c].isNull(i)) {
              checksum += longs[c].get(i);
            }
            if (!ints[c].isNull(i)) {
              checksum += ints[c].get(i);
            }
            if (!doubles[c].isNull(i)) {
              checksum += (long) doubles[c].get(i);
            }
            VarCharVector s = strings[c];
            if (!s.isNull(i)) {
              int from = s.getStartOffset(i);
              int to = s.getEndOffset(i);
              checksum += (to - from) + (to > from ? stringBytes[c].getByte(from) : 0);
            }
          }
        }
        return checksum;
      }
    },
    ROW_VIEW {
      @Override
      long read(ScanBatch batch) {
        ScanRow row = batch.row();
        long checksum = 0;
        while (row.next()) {
          for (int c = 0; c < 5; c++) {
            if (!row.isNull(c)) {
              checksum += row.getLong(c);
            }
            if (!row.isNull(5 + c)) {
              checksum += row.getInt(5 + c);
            }
            if (!row.isNull(10 + c)) {
              checksum += (long) row.getDouble(10 + c);
            }
            if (!row.isNull(15 + c)) {
              ByteBuffer utf8 = row.getUtf8(15 + c);
              checksum += utf8.remaining() + (utf8.hasRemaining() ? utf8.get(utf8.position()) : 0);
            }
          }
        }
        return checksum;
      }
    },
    OBJECT_ROWS {
      @Override
      long read(ScanBatch batch) {
        long checksum = 0;
        for (Object[] values : batch.rows()) {
          for (int c = 0; c < 5; c++) {
            if (values[c] != null) {
              checksum += (Long) values[c];
            }
            if (values[5 + c] != null) {
              checksum += (Integer) values[5 + c];
            }
            if (values[10 + c] != null) {
              checksum += (long) (double) (Double) values[10 + c];
            }
            if (values[15 + c] instanceof String s) {
              checksum += s.length() + (s.isEmpty() ? 0 : s.charAt(0));
            }
          }
        }
        return checksum;
      }
    };

    abstract long read(ScanBatch batch);
  }

  /** Scans from the earliest offset to {@code end}, reading every value with {@code reader}. */
  private static EveryValueScan everyValue(LogScanner scanner, long end, ValueReader reader) {
    try (scanner) {
      long start = System.nanoTime();
      long deadline = start + SCAN_DEADLINE.toNanos();
      scanner.subscribe(0, LogScanner.earliest());
      long rows = 0;
      long checksum = 0;
      while (scanner.position(0) < end) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              reader
                  + " scan reached offset "
                  + scanner.position(0)
                  + " of "
                  + end
                  + " before its deadline");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            checksum += reader.read(batch);
            rows += batch.rowCount();
          }
        }
      }
      long nanos = System.nanoTime() - start;
      if (rows < end) {
        throw new IllegalStateException(
            reader + " scan returned " + rows + " rows, expected " + end);
      }
      return new EveryValueScan(rows / (nanos / 1e9), checksum);
    }
  }

  private static void freshness(Table table, Object[][] pool, int samples, Sample sample)
      throws Exception {
    try (LogScanner scanner = table.newScanner(PROJECTION, BatchFilter.MATCH_ALL);
        AppendWriter writer = table.newAppendWriter(WriterOptions.defaults())) {
      scanner.subscribe(0, LogScanner.latest());
      long first = table.latestOffset(0);
      sample.freshness =
          FreshnessProbe.measure(
              scanner,
              samples,
              new FreshnessProbe.Samples() {
                private Object[] row;

                @Override
                public void markers(ScanBatch batch, LongConsumer markers) {
                  for (int i = 0; i < batch.rowCount(); i++) {
                    markers.accept(batch.baseOffset() + i);
                  }
                }

                @Override
                public long prepare(int n) {
                  row = pool[n % DISTINCT_ROWS];
                  row[0] = (long) n;
                  return first + n;
                }

                @Override
                public void writeAndFlush() {
                  writer.append(row);
                  writer.flush();
                }

                @Override
                public boolean arrived(long offset, long expected) {
                  return offset >= expected;
                }

                @Override
                public String neverArrived(int n, long expected) {
                  return "freshness row at offset " + expected + " never arrived";
                }
              });
    }
  }

  /** Seconds to write {@code bytes} in {@code batches} writes, each followed by force(false). */
  private static double rawWriteSeconds(Path file, long bytes, int batches) throws IOException {
    int perBatch = (int) Math.max(1, bytes / batches);
    ByteBuffer buffer = ByteBuffer.allocateDirect(perBatch);
    new SplittableRandom(SEED).ints(perBatch, 0, 256).forEach(b -> buffer.put((byte) b));
    try (FileChannel channel =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      long start = System.nanoTime();
      for (int i = 0; i < batches; i++) {
        buffer.clear();
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(false);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Files.deleteIfExists(file);
      return seconds;
    }
  }

  /** Seconds to copy {@code bytes} from one loopback socket to another, 1 MiB writes. */
  static double loopbackCopySeconds(long bytes) throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (Socket socket =
                            new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
                        OutputStream out = socket.getOutputStream()) {
                      byte[] chunk = new byte[1 << 20];
                      long left = bytes;
                      while (left > 0) {
                        int n = (int) Math.min(chunk.length, left);
                        out.write(chunk, 0, n);
                        left -= n;
                      }
                    } catch (Throwable t) {
                      failure.set(t);
                    }
                  });
      long start = System.nanoTime();
      try (Socket socket = listener.accept();
          InputStream in = socket.getInputStream()) {
        byte[] chunk = new byte[1 << 20];
        long read = 0;
        int n;
        while ((n = in.read(chunk)) > 0) {
          read += n;
        }
        if (read != bytes && failure.get() != null) {
          throw new IllegalStateException("loopback copy failed", failure.get());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      writer.join(5000);
      return Math.max(seconds, 1e-6);
    }
  }

  private static long directorySize(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return 0;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      return paths
          .filter(Files::isRegularFile)
          .mapToLong(
              file -> {
                try {
                  return Files.size(file);
                } catch (IOException e) {
                  return 0; // deleted while walking
                }
              })
          .sum();
    }
  }

  private static double clientRssMib() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        String value = line.substring("VmRSS:".length()).trim();
        return Long.parseLong(value.substring(0, value.indexOf(' '))) / 1024.0;
      }
    }
    throw new IOException("no VmRSS in /proc/self/status");
  }

  /** Bytes of the rows in row form (see {@link WideEvents#rawBytes}). */
  private static long rawRowBytes(Object[][] pool, int rows) {
    long total = 0;
    for (int i = 0; i < rows; i++) {
      total += WideEvents.rawBytes(pool[i % DISTINCT_ROWS]);
    }
    return total;
  }
}
