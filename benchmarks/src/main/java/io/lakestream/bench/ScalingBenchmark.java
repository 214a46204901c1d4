package io.lakestream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.vector.BigIntVector;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * How cost grows with the work (issue 37): curves of figures over the number of catalog tables, of
 * streaming tables written at once, of buckets of one table, and over the seconds of a mixed soak
 * ({@link MemorySoak}). Each curve runs against its own packaged server ({@code bin/lakestream
 * server}, defaults); each figure is reported beside the same quantity at the curve's first size,
 * and every curve is also drawn as an SVG chart ({@link ScalingChart}) beside the JSON report.
 *
 * <ul>
 *   <li><b>catalog</b>: one server; tables are created through the REST catalog by 8 threads in
 *       namespaces of 1,000, and at each size the latency of {@code GET} list-tables (one whole
 *       namespace) and load-table (random tables) is sampled after a warm-up, with the server's
 *       VmRSS and its heap used after a full collection;
 *   <li><b>streams</b>: a new server per size; that many log tables of 4 buckets (tiered every
 *       second) are written at once by 4 client threads, each appending 100-row batches to its
 *       tables in turn for a fixed time; the aggregate acknowledged rate, VmRSS and open files at
 *       the end of writing, the time from the last acknowledgement until every table's rows are
 *       tiered, and the start-up time of the server restarted on those tables (process start to the
 *       first 200 of {@code GET /ready});
 *   <li><b>buckets</b>: one server; W1 rows appended by one client (8192-row batches) to a log
 *       table of that many buckets, then scanned from every bucket; each rate the median of the
 *       measured passes after a warm-up pass, each pass on a new table;
 *   <li><b>memory</b>: see {@link MemorySoak};
 *   <li><b>tpch</b> (full mode only): a new server per scale factor, loaded and queried as the
 *       flight-sql benchmark's TPC-H part does ({@link FlightSqlBenchmark#tpchAt}); the geometric
 *       means through Flight SQL and in DuckDB, their ratio, and the load time.
 * </ul>
 *
 * <p>Quick mode runs every curve but tpch at two tiny sizes. Full mode's sizes are those of issue
 * 37; on a machine too slow for them in the time at hand, system properties cut them, and the
 * report's figure names carry the sizes actually measured: {@code lakestream.bench.catalog-sizes}
 * and {@code lakestream.bench.stream-sizes} (comma-separated), {@code lakestream.bench.bucket-rows}
 * and {@code lakestream.bench.soak-seconds}; {@code lakestream.bench.tpch-scales} (comma-separated
 * scale factors); {@code lakestream.bench.server-flags} (space-separated) adds flags to every
 * server the curves start, to compare settings.
 */
final class ScalingBenchmark implements Benchmark {
  private static final List<Integer> QUICK_CATALOG_SIZES = List.of(20, 100);
  private static final List<Integer> FULL_CATALOG_SIZES =
      sizes("lakestream.bench.catalog-sizes", "1000,10000,100000");
  private static final int NAMESPACE_TABLES = 1000;
  private static final int CREATE_THREADS = 8;

  private static final List<Integer> QUICK_STREAM_SIZES = List.of(1, 4);
  private static final List<Integer> FULL_STREAM_SIZES =
      sizes("lakestream.bench.stream-sizes", "1,10,100,1000");
  private static final int STREAM_BUCKETS = 4;
  private static final int STREAM_THREADS = 4;
  private static final int STREAM_BATCH_ROWS = 100;
  private static final Duration QUICK_STREAM_WRITE = Duration.ofSeconds(2);
  private static final Duration FULL_STREAM_WRITE = Duration.ofSeconds(15);
  private static final Duration TIERED_DEADLINE = Duration.ofMinutes(5);

  private static final List<Integer> QUICK_BUCKET_SIZES = List.of(1, 4);
  private static final List<Integer> FULL_BUCKET_SIZES = List.of(1, 4, 16, 64);
  private static final int QUICK_BUCKET_ROWS = 20_000;
  private static final int FULL_BUCKET_ROWS =
      Integer.getInteger("lakestream.bench.bucket-rows", 1_000_000);
  private static final int BUCKET_BATCH_ROWS = 8192;
  private static final int FULL_BUCKET_PASSES = 3;

  private static final List<Double> FULL_TPCH_SCALES =
      Arrays.stream(System.getProperty("lakestream.bench.tpch-scales", "0.1,1,3").split(","))
          .map(String::trim)
          .map(Double::valueOf)
          .toList();

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  private static final ObjectMapper JSON = new ObjectMapper();

  private List<Curve> curves = List.of();

  @Override
  public String name() {
    return "scaling";
  }

  @Override
  public String workload() {
    return "curves: catalog tables "
        + FULL_CATALOG_SIZES
        + " (quick "
        + QUICK_CATALOG_SIZES
        + ", namespaces of 1000, 8 creating threads; list/load p50/p99, RSS, live heap); log"
        + " tables of 4 buckets written at once "
        + FULL_STREAM_SIZES
        + " (quick "
        + QUICK_STREAM_SIZES
        + ", 4 client threads, 100-row batches, "
        + FULL_STREAM_WRITE.toSeconds()
        + " s of writes; rate, RSS, open files, tiering lag, restart time); buckets of one table "
        + FULL_BUCKET_SIZES
        + " (quick "
        + QUICK_BUCKET_SIZES
        + ", "
        + FULL_BUCKET_ROWS
        + " W1 rows, append and scan rates, median of "
        + FULL_BUCKET_PASSES
        + " passes after a warm-up); "
        + MemorySoak.describe()
        + "; TPC-H at scale factors "
        + FULL_TPCH_SCALES
        + " (full mode only: quick mode's TPC-H is the flight-sql benchmark's), the geometric"
        + " means through Flight SQL and in DuckDB and their ratio"
        + "; each figure beside the same quantity at the curve's first size";
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    List<Curve> measured = new ArrayList<>();
    List<String> selected = curvesToRun();
    try (HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      if (selected.contains("catalog")) {
        context.progress().println("  curve: catalog tables");
        measured.add(
            catalog(context, launcher, http, quick ? QUICK_CATALOG_SIZES : FULL_CATALOG_SIZES));
      }
      if (selected.contains("streams")) {
        context.progress().println("  curve: streaming tables written at once");
        measured.add(
            streams(context, launcher, http, quick ? QUICK_STREAM_SIZES : FULL_STREAM_SIZES));
      }
      if (selected.contains("buckets")) {
        context.progress().println("  curve: buckets of one table");
        measured.add(buckets(context, launcher, http, quick));
      }
      if (selected.contains("memory")) {
        context.progress().println("  curve: memory under a mixed soak");
        measured.add(MemorySoak.run(context, launcher, http));
      }
      if (selected.contains("tpch") && !quick) {
        context.progress().println("  curve: TPC-H by scale factor");
        measured.add(tpch(context, FULL_TPCH_SCALES));
      }
    }
    curves = List.copyOf(measured);
    List<Figure> figures = new ArrayList<>();
    for (Curve curve : curves) {
      figures.addAll(curve.figures());
    }
    return figures;
  }

  /**
   * The curves to measure: system property {@code lakestream.bench.scaling-curves}, a
   * comma-separated subset of {@code catalog,streams,buckets,memory,tpch} (all by default; quick
   * mode skips {@code tpch}).
   */
  private static List<String> curvesToRun() {
    List<String> all = List.of("catalog", "streams", "buckets", "memory", "tpch");
    String value = System.getProperty("lakestream.bench.scaling-curves", String.join(",", all));
    List<String> selected = new ArrayList<>();
    for (String name : value.split(",")) {
      String curve = name.trim();
      if (!all.contains(curve)) {
        throw new IllegalArgumentException(
            "lakestream.bench.scaling-curves names " + curve + "; the curves are " + all);
      }
      selected.add(curve);
    }
    return selected;
  }

  /** The curves of the last run, drawn as {@code scaling-<curve>.svg}. */
  @Override
  public List<Path> writeCharts(Path resultsDirectory) throws IOException {
    return ScalingChart.writeAll(curves, resultsDirectory);
  }

  // ---- catalog ----------------------------------------------------------------------------

  private static Curve catalog(
      BenchmarkContext context, Path launcher, HttpClient http, List<Integer> sizes)
      throws Exception {
    Curve.Builder curve =
        new Curve.Builder(
            "catalog", "Catalog: latency and memory by number of tables", "tables", true);
    boolean quick = context.mode() == RunMode.QUICK;
    int loads = quick ? 50 : 2000;
    int lists = quick ? 10 : 100;
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "at", Types.TimestampType.withZone()));
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-scaling-");
        LaunchedServer server = start(launcher, directory.path(), "catalog", List.of(), http);
        RESTCatalog catalog = LaunchedServer.catalog(server.base())) {
      ExecutorService creators = Executors.newFixedThreadPool(CREATE_THREADS);
      try {
        int created = 0;
        SplittableRandom random = new SplittableRandom(37);
        for (int size : sizes) {
          long start = System.nanoTime();
          for (int ns = created / NAMESPACE_TABLES; ns * NAMESPACE_TABLES < size; ns++) {
            if (ns * NAMESPACE_TABLES >= created) {
              catalog.createNamespace(Namespace.of(namespace(ns)));
            }
          }
          List<Future<?>> creations = new ArrayList<>();
          for (int t = created; t < size; t++) {
            TableIdentifier identifier =
                TableIdentifier.of(namespace(t / NAMESPACE_TABLES), "t" + t);
            creations.add(
                creators.submit(
                    () ->
                        catalog
                            .buildTable(identifier, schema)
                            .withPartitionSpec(PartitionSpec.unpartitioned())
                            .create()));
          }
          for (Future<?> creation : creations) {
            creation.get();
          }
          double createRate = (size - created) / ((System.nanoTime() - start) / 1e9);
          created = size;
          int namespaces = (size + NAMESPACE_TABLES - 1) / NAMESPACE_TABLES;
          int perNamespace = Math.min(size, NAMESPACE_TABLES);
          // Warm-up, then the measured samples.
          for (int i = 0; i < Math.min(100, loads); i++) {
            load(http, server.base(), random.nextInt(size));
          }
          double[] loadMs = new double[loads];
          for (int i = 0; i < loads; i++) {
            long begin = System.nanoTime();
            load(http, server.base(), random.nextInt(size));
            loadMs[i] = (System.nanoTime() - begin) / 1e6;
          }
          double[] listMs = new double[lists];
          for (int i = 0; i < lists; i++) {
            int ns = random.nextInt(namespaces);
            int expected = ns == namespaces - 1 ? size - ns * NAMESPACE_TABLES : perNamespace;
            long begin = System.nanoTime();
            int listed = list(http, server.base(), namespace(ns));
            listMs[i] = (System.nanoTime() - begin) / 1e6;
            if (listed != expected) {
              throw new IllegalStateException(
                  "Listing " + namespace(ns) + " returned " + listed + " tables, not " + expected);
            }
          }
          Arrays.sort(loadMs);
          Arrays.sort(listMs);
          ServerProbes.Heap heap = ServerProbes.heapAfterFullGc(server.process().pid());
          double rss = server.process().residentMemoryMib();
          curve
              .add("create_tables_per_s", "tables/s", size, createRate)
              .add("load_p50_ms", "ms", size, Percentile.of(loadMs, 0.5))
              .add("load_p99_ms", "ms", size, Percentile.of(loadMs, 0.99))
              .add("list_p50_ms", "ms", size, Percentile.of(listMs, 0.5))
              .add("list_p99_ms", "ms", size, Percentile.of(listMs, 0.99))
              .add("server_rss_mib", "MiB", size, rss)
              .add("live_heap_mib", "MiB", size, heap.usedMib());
          context
              .progress()
              .printf(
                  "    %d tables (created at %.0f/s): load p50 %.2f p99 %.2f ms, list of %d p50"
                      + " %.2f p99 %.2f ms, RSS %.0f MiB, live heap %.0f MiB%n",
                  size,
                  createRate,
                  Percentile.of(loadMs, 0.5),
                  Percentile.of(loadMs, 0.99),
                  perNamespace,
                  Percentile.of(listMs, 0.5),
                  Percentile.of(listMs, 0.99),
                  rss,
                  heap.usedMib());
        }
      } finally {
        creators.shutdownNow();
      }
      server.stopCleanly();
    }
    return curve.build();
  }

  private static String namespace(int index) {
    return "ns" + index;
  }

  private static void load(HttpClient http, URI base, int table)
      throws IOException, InterruptedException {
    String path = "/v1/namespaces/" + namespace(table / NAMESPACE_TABLES) + "/tables/t" + table;
    HttpResponse<byte[]> response = get(http, base.resolve(path));
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
    }
  }

  /** Lists a namespace's tables, following page tokens; returns how many were listed. */
  private static int list(HttpClient http, URI base, String namespace)
      throws IOException, InterruptedException {
    int listed = 0;
    String token = null;
    do {
      String path =
          "/v1/namespaces/"
              + namespace
              + "/tables"
              + (token == null ? "" : "?pageToken=" + java.net.URLEncoder.encode(token, "UTF-8"));
      HttpResponse<byte[]> response = get(http, base.resolve(path));
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
      }
      JsonNode body = JSON.readTree(response.body());
      listed += body.path("identifiers").size();
      JsonNode next = body.path("next-page-token");
      token = next.isTextual() && !next.asText().isEmpty() ? next.asText() : null;
    } while (token != null);
    return listed;
  }

  private static HttpResponse<byte[]> get(HttpClient http, URI uri)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  // ---- streaming tables written at once ---------------------------------------------------

  private static Curve streams(
      BenchmarkContext context, Path launcher, HttpClient http, List<Integer> sizes)
      throws Exception {
    Curve.Builder curve =
        new Curve.Builder("streams", "Log tables of 4 buckets written at once", "tables", true);
    Duration writeTime = context.mode() == RunMode.QUICK ? QUICK_STREAM_WRITE : FULL_STREAM_WRITE;
    List<String> flags = List.of("--tiering-discovery-interval", "1s");
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "at", Types.LongType.get()),
            Types.NestedField.optional(3, "payload", Types.StringType.get()));
    for (int size : sizes) {
      try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-scaling-")) {
        StreamPoint point;
        try (LaunchedServer server = start(launcher, directory.path(), "streams", flags, http)) {
          point = writeAtOnce(context, server, http, schema, size, writeTime);
          server.stopCleanly();
        }
        double restartMs;
        try (LaunchedServer restarted =
            start(launcher, directory.path(), "streams-restart", flags, http)) {
          restartMs = restarted.process().millisSinceStart();
          restarted.stopCleanly();
        }
        curve
            .add("append_rows_per_s", "rows/s", size, point.rowsPerSecond)
            .add("server_rss_mib", "MiB", size, point.rssMib)
            .add("open_files", "files", size, point.openFiles)
            .add("tiering_lag_ms", "ms", size, point.tieringLagMs)
            .add("restart_ms", "ms", size, restartMs);
        context
            .progress()
            .printf(
                "    %d tables: %.0f rows/s, RSS %.0f MiB, %d open files, tiered %.0f ms after the"
                    + " last ack, restart to ready %.0f ms%n",
                size,
                point.rowsPerSecond,
                point.rssMib,
                point.openFiles,
                point.tieringLagMs,
                restartMs);
      }
    }
    return curve.build();
  }

  private record StreamPoint(
      double rowsPerSecond, double rssMib, int openFiles, double tieringLagMs) {}

  private static StreamPoint writeAtOnce(
      BenchmarkContext context,
      LaunchedServer server,
      HttpClient http,
      Schema schema,
      int size,
      Duration writeTime)
      throws Exception {
    Map<String, String> properties = new HashMap<>();
    properties.put(LakestreamProperties.KIND, TableKind.LOG.value());
    properties.put(LakestreamProperties.BUCKETS, Integer.toString(STREAM_BUCKETS));
    properties.put(LakestreamProperties.TIERING_INTERVAL, "1s");
    ExecutorService threads = Executors.newFixedThreadPool(CREATE_THREADS);
    try (RESTCatalog catalog = LaunchedServer.catalog(server.base());
        Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null)) {
      catalog.createNamespace(Namespace.of("streams"));
      List<Future<?>> creations = new ArrayList<>();
      for (int t = 0; t < size; t++) {
        TableIdentifier identifier = TableIdentifier.of("streams", "s" + t);
        creations.add(
            threads.submit(
                () ->
                    catalog
                        .buildTable(identifier, schema)
                        .withPartitionSpec(PartitionSpec.unpartitioned())
                        .withProperties(properties)
                        .create()));
      }
      for (Future<?> creation : creations) {
        creation.get();
      }
      Table[] tables = new Table[size];
      for (int t = 0; t < size; t++) {
        tables[t] = connection.table(TablePath.of("streams.s" + t));
      }
      long[] written = new long[size];
      AtomicLong total = new AtomicLong();
      WriterOptions options =
          WriterOptions.defaults()
              .withBatchRows(STREAM_BATCH_ROWS)
              .withLinger(Duration.ofMillis(5));
      String payload = "x".repeat(64);
      int threadCount = Math.min(STREAM_THREADS, size);
      // Writers are opened before the clock starts: opening one asks the server for metadata.
      List<List<Integer>> owned = new ArrayList<>();
      List<List<AppendWriter>> open = new ArrayList<>();
      for (int w = 0; w < threadCount; w++) {
        owned.add(new ArrayList<>());
        open.add(new ArrayList<>());
      }
      for (int t = 0; t < size; t++) {
        owned.get(t % threadCount).add(t);
        open.get(t % threadCount).add(tables[t].newAppendWriter(options));
      }
      long start = System.nanoTime();
      long end = start + writeTime.toNanos();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < threadCount; w++) {
        List<Integer> mine = owned.get(w);
        List<AppendWriter> mineOpen = open.get(w);
        writers.add(
            threads.submit(
                () -> {
                  try {
                    long id = 0;
                    // At least one round, however late this thread starts on a loaded machine.
                    do {
                      for (AppendWriter writer : mineOpen) {
                        for (int r = 0; r < STREAM_BATCH_ROWS; r++) {
                          writer.append(new Object[] {id++, System.currentTimeMillis(), payload});
                        }
                      }
                      for (int i = 0; i < mine.size(); i++) {
                        mineOpen.get(i).flush();
                        written[mine.get(i)] += STREAM_BATCH_ROWS;
                        total.addAndGet(STREAM_BATCH_ROWS);
                      }
                    } while (System.nanoTime() - end < 0);
                  } finally {
                    for (AppendWriter writer : mineOpen) {
                      writer.close();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> writer : writers) {
        writer.get();
      }
      long acked = System.nanoTime();
      double rowsPerSecond = total.get() / ((acked - start) / 1e9);
      double rss = server.process().residentMemoryMib();
      int openFiles = ServerProbes.openFiles(server.process().pid());
      awaitTiered(http, server.base(), written);
      double lagMs = (System.nanoTime() - acked) / 1e6;
      return new StreamPoint(rowsPerSecond, rss, openFiles, lagMs);
    } finally {
      threads.shutdownNow();
    }
  }

  /** Polls every table's tiering status until its tiered offsets cover the rows written to it. */
  private static void awaitTiered(HttpClient http, URI base, long[] written)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TIERED_DEADLINE.toNanos();
    List<Integer> pending = new ArrayList<>();
    for (int t = 0; t < written.length; t++) {
      pending.add(t);
    }
    while (!pending.isEmpty()) {
      List<Integer> still = new ArrayList<>();
      for (int t : pending) {
        String path = "/v1/namespaces/streams/tables/s" + t + "/tiering";
        HttpResponse<byte[]> response = get(http, base.resolve(path));
        if (response.statusCode() != 200) {
          throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
        }
        JsonNode status = JSON.readTree(response.body());
        long tiered = 0;
        for (JsonNode bucket : status.path("buckets")) {
          tiered += bucket.path("tiered-offset").asLong();
        }
        if (tiered < written[t]) {
          still.add(t);
        }
      }
      pending = still;
      if (!pending.isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              pending.size() + " tables were not tiered within " + TIERED_DEADLINE);
        }
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
    }
  }

  // ---- TPC-H by scale factor -------------------------------------------------------------

  private static Curve tpch(BenchmarkContext context, List<Double> scales) throws Exception {
    Curve.Builder curve =
        new Curve.Builder(
            "tpch", "TPC-H through Flight SQL beside DuckDB by scale factor", "sf", true);
    for (double scale : scales) {
      context.progress().printf("    scale factor %s%n", Curve.plain(scale));
      FlightSqlBenchmark.TpchPoint point = FlightSqlBenchmark.tpchAt(context, scale);
      curve
          .add("flight_sql_geomean_ms", "ms", scale, point.flightGeomeanMs())
          .add("duckdb_geomean_ms", "ms", scale, point.duckdbGeomeanMs())
          .add("ratio_to_duckdb", "x", scale, point.ratio())
          .add("load_s", "s", scale, point.loadSeconds());
      context
          .progress()
          .printf(
              "    SF %s: geometric mean %.1f ms through Flight SQL, %.1f ms in DuckDB (%.2fx);"
                  + " loaded in %.0f s%n",
              Curve.plain(scale),
              point.flightGeomeanMs(),
              point.duckdbGeomeanMs(),
              point.ratio(),
              point.loadSeconds());
    }
    return curve.build();
  }

  // ---- buckets of one table ---------------------------------------------------------------

  private static Curve buckets(
      BenchmarkContext context, Path launcher, HttpClient http, boolean quick) throws Exception {
    Curve.Builder curve =
        new Curve.Builder("buckets", "One log table: rates by number of buckets", "buckets", true);
    int rows = quick ? QUICK_BUCKET_ROWS : FULL_BUCKET_ROWS;
    int passes = quick ? 1 : FULL_BUCKET_PASSES;
    int warmups = quick ? 0 : 1;
    Object[][] pool = WideEvents.rowPool();
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-scaling-");
        LaunchedServer server = start(launcher, directory.path(), "buckets", List.of(), http)) {
      try (RESTCatalog catalog = LaunchedServer.catalog(server.base());
          Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null)) {
        catalog.createNamespace(Namespace.of("buckets"));
        int tableNumber = 0;
        for (int buckets : quick ? QUICK_BUCKET_SIZES : FULL_BUCKET_SIZES) {
          List<Double> appendRates = new ArrayList<>();
          List<Double> scanRates = new ArrayList<>();
          for (int pass = 0; pass < warmups + passes; pass++) {
            TableIdentifier identifier = TableIdentifier.of("buckets", "b" + tableNumber++);
            catalog
                .buildTable(identifier, WideEvents.schema())
                .withPartitionSpec(PartitionSpec.unpartitioned())
                .withProperties(
                    Map.of(
                        LakestreamProperties.KIND,
                        TableKind.LOG.value(),
                        LakestreamProperties.BUCKETS,
                        Integer.toString(buckets),
                        LakestreamProperties.TIERING_INTERVAL,
                        "1h"))
                .create();
            Table table = connection.table(TablePath.of("buckets." + identifier.name()));
            double append = append(table, pool, rows);
            double scan = scan(table, rows);
            catalog.dropTable(identifier, true);
            if (pass >= warmups) {
              appendRates.add(append);
              scanRates.add(scan);
            }
          }
          double append = Median.of(appendRates, Double::doubleValue);
          double scan = Median.of(scanRates, Double::doubleValue);
          curve
              .add("append_rows_per_s", "rows/s", buckets, append)
              .add("scan_rows_per_s", "rows/s", buckets, scan);
          context
              .progress()
              .printf(
                  "    %d buckets: append %.0f rows/s, scan %.0f rows/s%n", buckets, append, scan);
        }
      }
      server.stopCleanly();
    }
    return curve.build();
  }

  private static double append(Table table, Object[][] pool, int rows) {
    WriterOptions options =
        WriterOptions.defaults()
            .withBatchRows(BUCKET_BATCH_ROWS)
            .withLinger(Duration.ofMillis(100));
    try (AppendWriter writer = table.newAppendWriter(options)) {
      long start = System.nanoTime();
      for (int i = 0; i < rows; i++) {
        Object[] row = pool[i % WideEvents.DISTINCT_ROWS];
        row[0] = (long) i;
        writer.append(row);
      }
      writer.flush();
      return rows / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** Scans every bucket from its start until {@code rows} rows came back, touching b0; rows/s. */
  private static double scan(Table table, int rows) {
    try (LogScanner scanner = table.newScanner()) {
      long start = System.nanoTime();
      long deadline = start + Duration.ofMinutes(5).toNanos();
      scanner.subscribeAll(LogScanner.earliest());
      long seen = 0;
      long checksum = 0;
      while (seen < rows) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("scan saw " + seen + " of " + rows + " rows in 5 min");
        }
        for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
          try (batch) {
            BigIntVector b0 = (BigIntVector) batch.root().getVector("b0");
            int count = batch.root().getRowCount();
            for (int i = 0; i < count; i++) {
              checksum += b0.get(i);
            }
            seen += count;
          }
        }
      }
      double rate = seen / ((System.nanoTime() - start) / 1e9);
      if (seen != rows || checksum == 42) {
        throw new IllegalStateException("scan saw " + seen + " rows, expected " + rows);
      }
      return rate;
    }
  }

  // ---- shared ------------------------------------------------------------------------------

  static LaunchedServer start(
      Path launcher, Path work, String name, List<String> flags, HttpClient http) throws Exception {
    List<String> all = new ArrayList<>(flags);
    String extra = System.getProperty("lakestream.bench.server-flags", "").trim();
    if (!extra.isEmpty()) {
      all.addAll(Arrays.asList(extra.split("\\s+")));
    }
    return LaunchedServer.start(
        launcher,
        work.resolve("data"),
        work.resolve(name + "-" + System.nanoTime() + ".log"),
        "Lakestream server (" + name + ")",
        all,
        http,
        REQUEST_TIMEOUT);
  }

  private static List<Integer> sizes(String property, String defaults) {
    return Arrays.stream(System.getProperty(property, defaults).split(","))
        .map(String::trim)
        .map(Integer::valueOf)
        .toList();
  }
}
