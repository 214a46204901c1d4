package io.lakestream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Workload W1 tiered into Iceberg by the tiering service embedded in the packaged server.
 *
 * <p>One {@code bin/lakestream server} on an empty data directory (with {@code
 * tiering.discovery-interval=1s}, so that a changed table interval is seen within a second) serves
 * every iteration, so that the warm-up iteration warms its tiering service as a long-running
 * server's is warm (a first round in a new JVM spends about a quarter of its CPU compiling). Each
 * iteration creates new tables, drops them (with their files) when done, and:
 *
 * <ul>
 *   <li><b>throughput</b>: appends the rows to a log table of one bucket whose {@code
 *       lakestream.tiering.interval} is one hour, so nothing is tiered; the append rate, from one
 *       client with the settings of {@code log-append-scan} (8192-row batches, 100 ms linger, fsync
 *       on), is the baseline. Then sets the interval to 1 s and polls the tiering status endpoint
 *       until the table's tiered offset reaches the high watermark. The figure is the rows of the
 *       round that tiered them divided by that round's duration as the server measured it (from
 *       loading the table to the end of the commit): the embedded path exactly as it runs, without
 *       the up to two seconds the service takes to notice the new interval and reach its next tick.
 *       The end-to-end rate including those is reported beside it;
 *   <li><b>lag</b>: appends to a second such table, tiered every second, at half the append rate
 *       just measured, in chunks of a tenth of a second's rows, each flushed (acknowledged) before
 *       the next; a poller reads the status endpoint every 100 ms. A chunk's lag is the time from
 *       its acknowledgement to the first poll whose tiered offset covers it, i.e. until its rows
 *       are in the Iceberg table (resolution: the poll interval). Reported as p50, p99 and max,
 *       with the status endpoint's own {@code lag-seconds} p99 over the same polls.
 * </ul>
 *
 * Both run with the default {@code tiering.data-file-writer=duckdb}. A second server, started the
 * same way with {@code tiering.data-file-writer=iceberg} (Iceberg's row-by-row generic writer),
 * measures the throughput part again in each iteration, so the two writers compare in one run.
 */
final class TieringBenchmark implements Benchmark {
  private static final int QUICK_ROWS = 20_000;
  private static final int FULL_ROWS = 2_000_000;
  private static final Duration QUICK_LAG_RUN = Duration.ofSeconds(4);
  private static final Duration FULL_LAG_RUN = Duration.ofSeconds(60);
  private static final int BATCH_ROWS = 8192;
  private static final int DISTINCT_ROWS = WideEvents.DISTINCT_ROWS;
  private static final Duration THROUGHPUT_LINGER = Duration.ofMillis(100);

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration TIERING_DEADLINE = Duration.ofMinutes(10);
  private static final Duration STATUS_POLL = Duration.ofMillis(100);
  private static final Duration THROUGHPUT_POLL = Duration.ofMillis(20);
  private static final Duration INGEST_STEP = Duration.ofMillis(100);
  private static final Duration INTERVAL = Duration.ofSeconds(1);

  private static final double LAG_P99_TARGET_MS = 5000;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String name() {
    return "tiering";
  }

  @Override
  public String workload() {
    return "W1 wide events, "
        + FULL_ROWS
        + " rows (quick mode "
        + QUICK_ROWS
        + ") appended to a log table of 1 bucket, then tiered by the embedded service in one round;"
        + " lag: "
        + FULL_LAG_RUN.toSeconds()
        + " s (quick mode "
        + QUICK_LAG_RUN.toSeconds()
        + " s) of ingest at half the append rate into a table tiered every 1 s";
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    int rows = quick ? QUICK_ROWS : FULL_ROWS;
    Duration lagRun = quick ? QUICK_LAG_RUN : FULL_LAG_RUN;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    Object[][] pool = WideEvents.rowPool();
    List<Sample> samples;
    try (Server duckdb = Server.start(launcher, "duckdb");
        Server iceberg = Server.start(launcher, "iceberg")) {
      int[] iteration = {0};
      samples =
          context.iterate(
              () -> {
                int n = iteration[0]++;
                Sample sample = duckdb.measure(context, pool, rows, lagRun, n);
                sample.icebergWriterRowsPerSecond =
                    iceberg.measure(context, pool, rows, null, n).tieringRowsPerSecond;
                return sample;
              });
      duckdb.stop();
      iceberg.stop();
    }
    String appendBaseline = "log append of the same rows, same client, fsync on (log-append-scan)";
    double intervalMs = INTERVAL.toMillis();
    return List.of(
        Figure.paired(
            "tiering_rows_per_s",
            samples,
            s -> s.tieringRowsPerSecond,
            "rows/s",
            appendBaseline,
            s -> s.appendRowsPerSecond,
            Target.ratioAtLeast(1)),
        Figure.pairedWithoutTarget(
            "tiering_iceberg_writer_rows_per_s",
            samples,
            s -> s.icebergWriterRowsPerSecond,
            "rows/s",
            "tiering_rows_per_s (tiering.data-file-writer=duckdb, the default)",
            s -> s.tieringRowsPerSecond),
        Figure.pairedWithoutTarget(
            "tiering_end_to_end_rows_per_s",
            samples,
            s -> s.endToEndRowsPerSecond,
            "rows/s",
            appendBaseline,
            s -> s.appendRowsPerSecond),
        Figure.pairedWithoutTarget(
            "lag_ingest_rows_per_s",
            samples,
            s -> s.ingestRowsPerSecond,
            "rows/s",
            "half the append rate (the rate asked for)",
            s -> s.appendRowsPerSecond / 2),
        Figure.withoutTarget(
            "tiering_lag_ms_p50",
            Median.of(samples, s -> s.lagP50),
            "ms",
            "the tables' tiering interval",
            intervalMs),
        Figure.of(
            "tiering_lag_ms_p99",
            Median.of(samples, s -> s.lagP99),
            "ms",
            "the tables' tiering interval",
            intervalMs,
            Target.below(LAG_P99_TARGET_MS)),
        Figure.withoutTarget(
            "tiering_lag_ms_max",
            Median.of(samples, s -> s.lagMax),
            "ms",
            "the tables' tiering interval",
            intervalMs),
        Figure.withoutTarget(
            "status_lag_ms_p99",
            Median.of(samples, s -> s.statusLagP99),
            "ms",
            "the tables' tiering interval",
            intervalMs));
  }

  /** One iteration's measurements. */
  private static final class Sample {
    double appendRowsPerSecond;
    double tieringRowsPerSecond;
    double endToEndRowsPerSecond;
    double ingestRowsPerSecond;
    double lagP50;
    double lagP99;
    double lagMax;
    double statusLagP99;
    double icebergWriterRowsPerSecond;
  }

  /** A started server with one data-file writer, its catalog client and stream connection. */
  private static final class Server implements AutoCloseable {
    private final String dataFileWriter;
    private final TemporaryDirectory directory;
    private final HttpClient http;
    private final LaunchedServer process;
    private final URI base;
    private final RESTCatalog catalog;
    private final Connection connection;

    private Server(
        String dataFileWriter,
        TemporaryDirectory directory,
        HttpClient http,
        LaunchedServer process,
        URI base,
        RESTCatalog catalog,
        Connection connection) {
      this.dataFileWriter = dataFileWriter;
      this.directory = directory;
      this.http = http;
      this.process = process;
      this.base = base;
      this.catalog = catalog;
      this.connection = connection;
    }

    static Server start(Path launcher, String dataFileWriter) throws Exception {
      TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-tiering-");
      HttpClient http = null;
      LaunchedServer process = null;
      RESTCatalog catalog = null;
      try {
        http = LaunchedServer.httpClient(REQUEST_TIMEOUT);
        Path work = directory.path();
        process =
            LaunchedServer.start(
                launcher,
                work.resolve("data"),
                work.resolve("server.log"),
                "Lakestream server (" + dataFileWriter + " writer)",
                List.of(
                    "--tiering-discovery-interval",
                    "1s",
                    "--tiering-data-file-writer",
                    dataFileWriter),
                http,
                REQUEST_TIMEOUT);
        URI base = process.base();
        catalog = LaunchedServer.catalog(base);
        catalog.createNamespace(Namespace.of("bench"));
        Connection connection = Connection.open("127.0.0.1", process.rpcPort(), null);
        return new Server(dataFileWriter, directory, http, process, base, catalog, connection);
      } catch (Exception | Error e) {
        try (directory;
            HttpClient ignoredHttp = http;
            LaunchedServer ignoredProcess = process;
            RESTCatalog ignoredCatalog = catalog) {
          throw e;
        }
      }
    }

    /** One iteration on new tables named after {@code iteration}, dropped when done. */
    Sample measure(
        BenchmarkContext context, Object[][] pool, int rows, Duration lagRun, int iteration)
        throws Exception {
      Sample sample = new Sample();
      String throughputTable = "w1_" + iteration;
      throughput(
          context,
          catalog,
          connection,
          http,
          base,
          pool,
          rows,
          dataFileWriter,
          throughputTable,
          sample);
      catalog.dropTable(TableIdentifier.of("bench", throughputTable), true);
      if (lagRun != null) {
        String lagTable = "w1_lag_" + iteration;
        lag(context, catalog, connection, http, base, pool, lagRun, lagTable, sample);
        catalog.dropTable(TableIdentifier.of("bench", lagTable), true);
      }
      return sample;
    }

    /** Stops the server with SIGTERM; it must exit with 0. */
    void stop() throws Exception {
      connection.close();
      catalog.close();
      process.stopCleanly();
    }

    @Override
    public void close() throws Exception {
      try (directory;
          http;
          process;
          catalog;
          connection) {
        // Closes in reverse order; stop() has already ended a server that ran to completion.
      }
    }
  }

  private static void createTable(RESTCatalog catalog, String name, String interval) {
    catalog
        .buildTable(TableIdentifier.of("bench", name), WideEvents.schema())
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperties(
            Map.of(
                LakestreamProperties.KIND,
                TableKind.LOG.value(),
                LakestreamProperties.BUCKETS,
                "1",
                LakestreamProperties.TIERING_INTERVAL,
                interval))
        .create();
  }

  private static void throughput(
      BenchmarkContext context,
      RESTCatalog catalog,
      Connection connection,
      HttpClient http,
      URI base,
      Object[][] pool,
      int rows,
      String dataFileWriter,
      String name,
      Sample sample)
      throws Exception {
    createTable(catalog, name, "1h");
    Table table = connection.table(TablePath.of("bench." + name));
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(BATCH_ROWS).withLinger(THROUGHPUT_LINGER);
    try (AppendWriter writer = table.newAppendWriter(options)) {
      long start = System.nanoTime();
      for (int i = 0; i < rows; i++) {
        Object[] row = pool[i % DISTINCT_ROWS];
        row[0] = (long) i;
        writer.append(row);
      }
      writer.flush();
      sample.appendRowsPerSecond = rows / ((System.nanoTime() - start) / 1e9);
    }
    JsonNode before = status(http, base, name);
    if (tieredOffset(before) != 0) {
      throw new IllegalStateException(
          "bench." + name + " was tiered before its interval changed: " + before);
    }

    long start = System.nanoTime();
    catalog
        .loadTable(TableIdentifier.of("bench", name))
        .updateProperties()
        .set(LakestreamProperties.TIERING_INTERVAL, INTERVAL.toSeconds() + "s")
        .commit();
    long deadline = start + TIERING_DEADLINE.toNanos();
    JsonNode status;
    while (true) {
      status = status(http, base, name);
      // The round's counts are recorded a moment after its commit is visible.
      if (tieredOffset(status) >= rows && status.path("rounds").path("committed").asLong() > 0) {
        break;
      }
      if (!status.path("last-error").isNull()) {
        throw new IllegalStateException("A tiering round of bench." + name + " failed: " + status);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "bench." + name + " was not tiered within " + TIERING_DEADLINE + ": " + status);
      }
      LockSupport.parkNanos(THROUGHPUT_POLL.toNanos());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    sample.endToEndRowsPerSecond = rows / seconds;
    JsonNode lastCommit = status.path("rounds").path("last-commit");
    long roundRows = lastCommit.path("rows").asLong();
    long roundMillis = lastCommit.path("duration-ms").asLong();
    if (roundRows != rows || roundMillis <= 0) {
      throw new IllegalStateException(
          "Expected one round to tier all " + rows + " rows of bench." + name + ": " + status);
    }
    sample.tieringRowsPerSecond = roundRows / (roundMillis / 1e3);
    Snapshot snapshot = catalog.loadTable(TableIdentifier.of("bench", name)).currentSnapshot();
    long records = Long.parseLong(snapshot.summary().getOrDefault("total-records", "-1"));
    if (records != rows) {
      throw new IllegalStateException(
          "bench."
              + name
              + " holds "
              + records
              + " rows in Iceberg after tiering, expected "
              + rows);
    }
    context
        .progress()
        .printf(
            Locale.ROOT,
            "    append: %.0f rows/s; tiering round (%s writer): %.0f rows/s (%d ms); end to end"
                + " %.0f rows/s%n",
            sample.appendRowsPerSecond,
            dataFileWriter,
            sample.tieringRowsPerSecond,
            roundMillis,
            sample.endToEndRowsPerSecond);
  }

  /** A poll of the status endpoint: when it answered, the tiered offset, and its lag. */
  private record Poll(long nanos, long tieredOffset, double lagSeconds) {}

  /** A flushed chunk: the offset after its last row, and when its flush returned. */
  private record Ack(long endOffset, long nanos) {}

  private static void lag(
      BenchmarkContext context,
      RESTCatalog catalog,
      Connection connection,
      HttpClient http,
      URI base,
      Object[][] pool,
      Duration run,
      String name,
      Sample sample)
      throws Exception {
    createTable(catalog, name, INTERVAL.toSeconds() + "s");
    Table table = connection.table(TablePath.of("bench." + name));
    // Ingest starts once the service tiers the table, so its first rows do not wait for discovery.
    long found = System.nanoTime() + TIERING_DEADLINE.toNanos();
    while (!status(http, base, name).path("state").asText().equals("active")) {
      if (System.nanoTime() - found > 0) {
        throw new IllegalStateException("The tiering service did not find bench." + name);
      }
      LockSupport.parkNanos(THROUGHPUT_POLL.toNanos());
    }
    double rate = sample.appendRowsPerSecond / 2;
    List<Ack> acks = new ArrayList<>();
    ConcurrentLinkedQueue<Poll> polls = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread poller =
        Thread.ofPlatform()
            .name("tiering-status-poller")
            .daemon()
            .start(
                () -> {
                  try {
                    while (!stop.get()) {
                      long next = System.nanoTime() + STATUS_POLL.toNanos();
                      JsonNode status = status(http, base, name);
                      polls.add(
                          new Poll(
                              System.nanoTime(),
                              tieredOffset(status),
                              status.path("lag-seconds").asDouble()));
                      LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
                    }
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
    long appended = 0;
    long ingestStart;
    long ingestNanos;
    try (AppendWriter writer =
        table.newAppendWriter(WriterOptions.defaults().withBatchRows(BATCH_ROWS))) {
      long start = System.nanoTime();
      ingestStart = start;
      long end = start + run.toNanos();
      long chunk = Math.max(1, (long) (rate * INGEST_STEP.toNanos() / 1e9));
      while (true) {
        long now = System.nanoTime();
        if (now - end >= 0) {
          break;
        }
        long due = (long) (rate * (now - start) / 1e9);
        if (due <= appended) {
          LockSupport.parkNanos(
              Math.min(INGEST_STEP.toNanos(), (long) ((appended + 1 - due) / rate * 1e9)));
          continue;
        }
        long upTo = Math.min(due, appended + chunk);
        for (long i = appended; i < upTo; i++) {
          Object[] row = pool[(int) (i % DISTINCT_ROWS)];
          row[0] = i;
          writer.append(row);
        }
        writer.flush();
        acks.add(new Ack(upTo, System.nanoTime()));
        appended = upTo;
        if (failure.get() != null) {
          throw new IllegalStateException("The status poller failed", failure.get());
        }
      }
      ingestNanos = System.nanoTime() - start;
    }
    sample.ingestRowsPerSecond = appended / (ingestNanos / 1e9);
    long deadline = System.nanoTime() + TIERING_DEADLINE.toNanos();
    long total = appended;
    while (polls.stream().noneMatch(poll -> poll.tieredOffset() >= total)) {
      if (failure.get() != null) {
        throw new IllegalStateException("The status poller failed", failure.get());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "bench." + name + " was not tiered to " + total + " within " + TIERING_DEADLINE);
      }
      LockSupport.parkNanos(STATUS_POLL.toNanos());
    }
    stop.set(true);
    poller.join(REQUEST_TIMEOUT.toMillis() * 2);

    List<Poll> series = new ArrayList<>(polls);
    double[] lags = new double[acks.size()];
    int next = 0;
    for (int i = 0; i < acks.size(); i++) {
      Ack ack = acks.get(i);
      while (series.get(next).tieredOffset() < ack.endOffset()) {
        next++;
      }
      lags[i] = Math.max(0, series.get(next).nanos() - ack.nanos()) / 1e6;
    }
    Arrays.sort(lags);
    sample.lagP50 = Percentile.of(lags, 0.50);
    sample.lagP99 = Percentile.of(lags, 0.99);
    sample.lagMax = lags[lags.length - 1];
    long ingestEnd = ingestStart + ingestNanos;
    double[] statusLags =
        series.stream()
            .filter(poll -> poll.nanos() - ingestStart >= 0 && poll.nanos() - ingestEnd <= 0)
            .mapToDouble(poll -> poll.lagSeconds() * 1000)
            .sorted()
            .toArray();
    sample.statusLagP99 = statusLags.length == 0 ? 0 : Percentile.of(statusLags, 0.99);
    context
        .progress()
        .printf(
            Locale.ROOT,
            "    ingest %.0f rows/s (asked %.0f); lag p50 %.0f ms, p99 %.0f ms, max %.0f ms;"
                + " status lag p99 %.0f ms%n",
            sample.ingestRowsPerSecond,
            rate,
            sample.lagP50,
            sample.lagP99,
            sample.lagMax,
            sample.statusLagP99);
  }

  private static long tieredOffset(JsonNode status) {
    long offset = 0;
    for (JsonNode bucket : status.path("buckets")) {
      offset += bucket.path("tiered-offset").asLong();
    }
    return offset;
  }

  private static JsonNode status(HttpClient http, URI base, String table)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    base.resolve("/v1/namespaces/bench/tables/" + table + "/tiering"))
                .timeout(REQUEST_TIMEOUT)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET tiering status of bench."
              + table
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return JSON.readTree(response.body());
  }
}
