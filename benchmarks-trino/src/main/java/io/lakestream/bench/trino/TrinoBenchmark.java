package io.lakestream.bench.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;

import io.airlift.log.Level;
import io.airlift.log.Logging;
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
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.trino.LakestreamConfig;
import io.lakestream.trino.LakestreamConnectorFactory;
import io.lakestream.trino.LakestreamPlugin;
import io.trino.Session;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The Trino plugin on workload W3 (TPC-H) in an in-JVM Trino query runner ({@code
 * DistributedQueryRunner}, coordinator only), beside Trino's own Iceberg connector in the same
 * runner on the same REST endpoint and the same files, against the packaged server in its own
 * process.
 *
 * <p>Once per run: starts {@code bin/lakestream server} and writes two sets of the eight TPC-H
 * tables (scale factor 1, quick mode 0.01) through the streaming append path: {@value
 * #TIERED_NAMESPACE}, every row tiered, and {@value #TAIL_NAMESPACE}, the first 90% of each table's
 * rows tiered and tiering then paused while the last 10% are written and stay in the log (see
 * {@link TpchTables}; checked again after the queries). Then, with the run mode's warm-up and
 * measured iterations:
 *
 * <ul>
 *   <li><b>TPC-H</b>: each of the 22 queries three times in a row, in an order that rotates per
 *       iteration: on the fully tiered tables through the {@code lakestream} catalog and through
 *       the {@code iceberg} catalog, and on the tables with the tail through the {@code lakestream}
 *       catalog (union reads). All three must return the same rows, in any order;
 *   <li><b>freshness</b>: a row appended to a log table and acknowledged, then {@code SELECT
 *       count(*) ... WHERE id = ?} through the plugin until it sees the row; each sample beside
 *       Trino's own {@code SELECT 1} in the same runner.
 * </ul>
 *
 * <p>Times are wall time to the last row of the materialized result. Figures: the geometric mean
 * over the 22 queries of the fully tiered run beside Trino's Iceberg connector (target ratio at
 * most 1.05), of the run with the tail beside the fully tiered run (target ratio at most 1.3),
 * freshness p50/p99/max (target p99 below 300 ms), then every query of both runs.
 */
public final class TrinoBenchmark implements Benchmark {
  static final String LAKESTREAM_CATALOG = "lakestream";
  static final String ICEBERG_CATALOG = "iceberg";

  /** The fully tiered tables; the queries name this schema. */
  static final String TIERED_NAMESPACE = "tpch";

  /** The same tables with the last 10% of each in the log. */
  static final String TAIL_NAMESPACE = "tpch_tail";

  private static final List<String> RUNS =
      List.of(
          "through lakestream, fully tiered",
          "through iceberg, fully tiered",
          "through lakestream with the tail in the log");
  private static final double FULL_SCALE = 1.0;
  private static final double QUICK_SCALE = 0.01;
  private static final double TIERED_SHARE = 0.9;
  private static final int FULL_FRESHNESS_SAMPLES = 200;
  private static final int QUICK_FRESHNESS_SAMPLES = 10;
  private static final int QUERIES = 22;
  private static final double TIERED_RATIO_TARGET = 1.05;
  private static final double TAIL_RATIO_TARGET = 1.3;
  private static final double FRESHNESS_P99_TARGET_MS = 300;

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration VISIBLE_DEADLINE = Duration.ofSeconds(10);

  @Override
  public String name() {
    return "trino";
  }

  @Override
  public String workload() {
    return "W3 TPC-H scale factor "
        + FULL_SCALE
        + " (quick mode "
        + QUICK_SCALE
        + "), 8 log tables of 2 buckets written through the append path; the 22 queries in an"
        + " in-JVM Trino query runner through the lakestream connector, fully tiered beside"
        + " Trino's Iceberg connector on the same files, and a second set with 10% of each table"
        + " in the log beside the fully tiered set; freshness of "
        + FULL_FRESHNESS_SAMPLES
        + " appends (quick mode "
        + QUICK_FRESHNESS_SAMPLES
        + ") beside SELECT 1";
  }

  /** One iteration's per-query times, in milliseconds, of the three runs of each query. */
  private record QueryTimes(double[] tieredMs, double[] icebergMs, double[] tailMs) {}

  /** One iteration's freshness and {@code SELECT 1} percentiles, in milliseconds. */
  private record FreshnessSample(
      double p50,
      double p99,
      double max,
      double selectOneP50,
      double selectOneP99,
      double selectOneMax) {}

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    double scale = quick ? QUICK_SCALE : FULL_SCALE;
    int freshnessSamples = quick ? QUICK_FRESHNESS_SAMPLES : FULL_FRESHNESS_SAMPLES;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    List<String> queries = queries(context.lakestreamHome(), scale);
    List<QueryTimes> times;
    List<FreshnessSample> freshness;
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-trino-");
        HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      Path work = directory.path();
      try (LaunchedServer server =
          LaunchedServer.start(
              launcher,
              work.resolve("data"),
              work.resolve("server.log"),
              "Lakestream server",
              List.of("--tiering-discovery-interval", "1s"),
              http,
              REQUEST_TIMEOUT)) {
        try (Connection streams = Connection.open("127.0.0.1", server.rpcPort(), null);
            QueryRunner trino = startTrino(server.base(), server.rpcPort())) {
          TpchTables tiered =
              new TpchTables(
                  TIERED_NAMESPACE, streams, http, server.base(), context.progress(), scale);
          tiered.loadFullyTiered();
          TpchTables tail =
              new TpchTables(
                  TAIL_NAMESPACE, streams, http, server.base(), context.progress(), scale);
          tail.loadWithTail(TIERED_SHARE);
          Session lakestream = session(LAKESTREAM_CATALOG);
          Session iceberg = session(ICEBERG_CATALOG);

          // Each query runs three times in a row (fully tiered through both catalogs, then with
          // the tail), starting with a different one each iteration so no run always goes first.
          List<List<List<Object>>> expected = new ArrayList<>();
          int[] iteration = {0};
          times =
              context.iterate(
                  () -> {
                    double[] tieredMs = new double[QUERIES];
                    double[] icebergMs = new double[QUERIES];
                    double[] tailMs = new double[QUERIES];
                    for (int q = 0; q < QUERIES; q++) {
                      String sql = queries.get(q);
                      String tailSql = sql.replace(TIERED_NAMESPACE + ".", TAIL_NAMESPACE + ".");
                      for (int run = 0; run < 3; run++) {
                        List<List<Object>> rows =
                            switch ((run + iteration[0]) % 3) {
                              case 0 -> timeQuery(trino, lakestream, sql, tieredMs, q);
                              case 1 -> timeQuery(trino, iceberg, sql, icebergMs, q);
                              default -> timeQuery(trino, lakestream, tailSql, tailMs, q);
                            };
                        if (expected.size() <= q) {
                          expected.add(rows);
                        } else {
                          requireSameRows(
                              q, RUNS.get((run + iteration[0]) % 3), rows, expected.get(q));
                        }
                      }
                    }
                    iteration[0]++;
                    printTimes(context, "lakestream, tiered", tieredMs);
                    printTimes(context, "iceberg, tiered", icebergMs);
                    printTimes(context, "lakestream, tail", tailMs);
                    return new QueryTimes(tieredMs, icebergMs, tailMs);
                  });
          tail.assertTailInLog();

          tiered.createLogTable(
              "fresh", new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
          context.progress().println("  phase freshness");
          long[] nextId = {0};
          freshness =
              context.iterate(
                  () -> freshness(trino, lakestream, streams, freshnessSamples, nextId));
        }
        server.stopCleanly();
      }
    }
    return figures(times, freshness);
  }

  private static List<Figure> figures(List<QueryTimes> times, List<FreshnessSample> freshness) {
    List<Figure> perQuery = new ArrayList<>();
    double logTiered = 0;
    double logIceberg = 0;
    double logTail = 0;
    List<Figure> tailPerQuery = new ArrayList<>();
    for (int q = 0; q < QUERIES; q++) {
      int query = q;
      double tieredMs = Median.of(times, s -> s.tieredMs()[query]);
      double icebergMs = Median.of(times, s -> s.icebergMs()[query]);
      double tailMs = Median.of(times, s -> s.tailMs()[query]);
      logTiered += Math.log(tieredMs);
      logIceberg += Math.log(icebergMs);
      logTail += Math.log(tailMs);
      perQuery.add(
          Figure.withoutTarget(
              String.format(Locale.ROOT, "tpch_tiered_q%02d_ms", q + 1),
              tieredMs,
              "ms",
              "Trino's Iceberg connector, same files",
              icebergMs));
      tailPerQuery.add(
          Figure.withoutTarget(
              String.format(Locale.ROOT, "tpch_tail_q%02d_ms", q + 1),
              tailMs,
              "ms",
              "this connector, fully tiered",
              tieredMs));
    }
    List<Figure> figures = new ArrayList<>();
    figures.add(
        Figure.of(
            "tpch_tiered_geomean_ms",
            Math.exp(logTiered / QUERIES),
            "ms",
            "Trino's Iceberg connector, same files (geometric mean)",
            Math.exp(logIceberg / QUERIES),
            Target.ratioAtMost(TIERED_RATIO_TARGET)));
    figures.add(
        Figure.of(
            "tpch_tail_geomean_ms",
            Math.exp(logTail / QUERIES),
            "ms",
            "this connector, fully tiered (geometric mean)",
            Math.exp(logTiered / QUERIES),
            Target.ratioAtMost(TAIL_RATIO_TARGET)));
    figures.add(
        Figure.withoutTarget(
            "freshness_ms_p50",
            Median.of(freshness, FreshnessSample::p50),
            "ms",
            "Trino's SELECT 1 p50",
            Median.of(freshness, FreshnessSample::selectOneP50)));
    figures.add(
        Figure.of(
            "freshness_ms_p99",
            Median.of(freshness, FreshnessSample::p99),
            "ms",
            "Trino's SELECT 1 p99",
            Median.of(freshness, FreshnessSample::selectOneP99),
            Target.below(FRESHNESS_P99_TARGET_MS)));
    figures.add(
        Figure.withoutTarget(
            "freshness_ms_max",
            Median.of(freshness, FreshnessSample::max),
            "ms",
            "Trino's SELECT 1 max",
            Median.of(freshness, FreshnessSample::selectOneMax)));
    figures.addAll(perQuery);
    figures.addAll(tailPerQuery);
    return figures;
  }

  /**
   * A coordinator-only query runner with catalog {@value #ICEBERG_CATALOG} (Trino's Iceberg
   * connector on the server's REST endpoint) and {@value #LAKESTREAM_CATALOG} (the plugin, which
   * embeds the same connector with the same file system settings).
   */
  private static QueryRunner startTrino(URI restBase, int rpcPort) throws Exception {
    QueryRunner trino =
        DistributedQueryRunner.builder(session(LAKESTREAM_CATALOG)).setWorkerCount(0).build();
    // Iceberg logs a line per table scan at INFO, thousands per run; keep the progress readable.
    Logging.initialize().setLevel("org.apache.iceberg", Level.WARN);
    try {
      trino.installPlugin(new IcebergPlugin());
      trino.createCatalog(
          ICEBERG_CATALOG,
          "iceberg",
          Map.of(
              "iceberg.catalog.type", "rest",
              "iceberg.rest-catalog.uri", restBase.toString(),
              "fs.local.enabled", "true",
              "local.location", "/"));
      trino.installPlugin(new LakestreamPlugin());
      trino.createCatalog(
          LAKESTREAM_CATALOG,
          LakestreamConnectorFactory.NAME,
          Map.of(
              LakestreamConfig.URI_KEY,
              restBase.toString(),
              LakestreamConfig.RPC_ADDRESS,
              "127.0.0.1:" + rpcPort,
              "fs.local.enabled",
              "true",
              "local.location",
              "/"));
      return trino;
    } catch (Exception | Error e) {
      trino.close();
      throw e;
    }
  }

  private static Session session(String catalog) {
    return testSessionBuilder().setCatalog(catalog).setSchema(TIERED_NAMESPACE).build();
  }

  /** Runs {@code sql}, records its time in {@code times[q]} and returns its rows. */
  private static List<List<Object>> timeQuery(
      QueryRunner trino, Session session, String sql, double[] times, int q) {
    long start = System.nanoTime();
    List<MaterializedRow> rows = trino.execute(session, sql).getMaterializedRows();
    times[q] = (System.nanoTime() - start) / 1e6;
    return rows.stream().map(MaterializedRow::getFields).toList();
  }

  /** Fails unless both row lists hold the same rows, in any order. */
  private static void requireSameRows(
      int q, String run, List<List<Object>> actual, List<List<Object>> expected) {
    Comparator<List<Object>> byText = Comparator.comparing(Object::toString);
    List<List<Object>> actualSorted = actual.stream().sorted(byText).toList();
    List<List<Object>> expectedSorted = expected.stream().sorted(byText).toList();
    if (!actualSorted.equals(expectedSorted)) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "Q%d %s returned %d rows unlike its first run's %d (first %s, expected first %s)",
              q + 1,
              run,
              actual.size(),
              expected.size(),
              actualSorted.isEmpty() ? "none" : actualSorted.getFirst(),
              expectedSorted.isEmpty() ? "none" : expectedSorted.getFirst()));
    }
  }

  private static void printTimes(BenchmarkContext context, String what, double[] times) {
    context
        .progress()
        .printf(
            "  %-20s ms %s%n",
            what, Arrays.toString(Arrays.stream(times).mapToLong(Math::round).toArray()));
  }

  /**
   * {@code samples} appends of one row each, acknowledged, then queried through the plugin until a
   * query sees the row; before each, Trino's {@code SELECT 1}.
   */
  private static FreshnessSample freshness(
      QueryRunner trino, Session lakestream, Connection streams, int samples, long[] nextId) {
    double[] visible = new double[samples];
    double[] selectOne = new double[samples];
    try (AppendWriter writer =
        streams
            .table(TablePath.of(TIERED_NAMESPACE + ".fresh"))
            .newAppendWriter(WriterOptions.defaults().withLinger(Duration.ZERO))) {
      for (int i = 0; i < samples; i++) {
        long start = System.nanoTime();
        trino.execute(lakestream, "SELECT 1");
        selectOne[i] = (System.nanoTime() - start) / 1e6;
        long id = nextId[0]++;
        writer.append(id);
        writer.flush();
        long acknowledged = System.nanoTime();
        long deadline = acknowledged + VISIBLE_DEADLINE.toNanos();
        String query = "SELECT count(*) FROM " + TIERED_NAMESPACE + ".fresh WHERE id = " + id;
        while ((long) trino.execute(lakestream, query).getOnlyValue() != 1) {
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException(
                "Row "
                    + id
                    + " was not visible through Trino "
                    + VISIBLE_DEADLINE
                    + " after its ack");
          }
        }
        visible[i] = (System.nanoTime() - acknowledged) / 1e6;
      }
    }
    Arrays.sort(visible);
    Arrays.sort(selectOne);
    return new FreshnessSample(
        Percentile.of(visible, 0.5),
        Percentile.of(visible, 0.99),
        visible[samples - 1],
        Percentile.of(selectOne, 0.5),
        Percentile.of(selectOne, 0.99),
        selectOne[samples - 1]);
  }

  /** The 22 query texts of the TPC-H test, Q11's fraction set for the scale factor. */
  private static List<String> queries(Path home, double scale) throws Exception {
    Path directory = home.resolve("catalog-server/src/test/resources/tpch");
    List<String> queries = new ArrayList<>();
    for (int q = 1; q <= QUERIES; q++) {
      String sql =
          Files.readString(
              directory.resolve(String.format(Locale.ROOT, "q%02d.sql", q)),
              StandardCharsets.UTF_8);
      if (q == 11) {
        sql =
            sql.replace(
                "* 0.001",
                "* " + BigDecimal.valueOf(0.0001 / scale).setScale(8, RoundingMode.HALF_UP));
      }
      queries.add(sql);
    }
    return queries;
  }
}
