package io.lakestream.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Lakestream's Iceberg REST catalog beside Iceberg's reference REST server ({@link
 * ReferenceRestServer}), both started as separate processes and given the same workload in the same
 * run.
 *
 * <p>Set-up, on each server: namespace {@code bench}, table {@code bench.events} and 50 fast
 * appends (5 in quick mode) of one fake data file each through Iceberg's client, so loadTable
 * answers carry 50 snapshots. Then every iteration, on each server in turn (which goes first
 * alternates):
 *
 * <ul>
 *   <li><b>loadTable</b>: {@value #LOAD_THREADS} threads issue raw HTTP {@code GET}s of {@code
 *       bench.events} in a closed loop ({@link LoadTableLoad}) for a warm-up period, then a
 *       measured one. Figures: answers per second, p50 and p99 latency.
 *   <li><b>commits</b>: a new table, then {@value #WRITERS} writers each commit a fixed number of
 *       fast appends through Iceberg's client, which retries conflicts ({@link ConcurrentAppends}).
 *       Figures: commits per second and commit attempts per commit.
 * </ul>
 *
 * <p>Figures are medians over the measured iterations, each beside the reference server's. Faults
 * are totals over every iteration, warm-up included: loadTable requests not answered 200, and
 * commits acknowledged but missing afterwards. Lakestream's are figures; a full-mode run with any
 * fault on either server fails after its report ({@link FaultedRunException}).
 */
final class RestCatalogBenchmark implements Benchmark {
  static final int LOAD_THREADS = 16;
  static final int WRITERS = 8;

  private static final Namespace NAMESPACE = Namespace.of("bench");
  private static final TableIdentifier LOADED_TABLE = TableIdentifier.of(NAMESPACE, "events");

  // Enough retries that no writer gives up under contention; short waits so that the catalog, not
  // the client's back-off, bounds the commit rate.
  private static final Map<String, String> APPEND_TABLE_PROPERTIES =
      Map.of(
          TableProperties.COMMIT_NUM_RETRIES, "1000",
          TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10",
          TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "100");

  private static final double LOAD_TABLE_RATIO_TARGET = 10;
  private static final double LOAD_TABLE_P99_TARGET_MS = 20;
  private static final double COMMITS_RATIO_TARGET = 2;

  private static final Duration START_DEADLINE = Duration.ofSeconds(90);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(20);
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  private static final String REFERENCE = "Iceberg reference server";

  @Override
  public String name() {
    return "rest-catalog";
  }

  @Override
  public String workload() {
    Sizes full = Sizes.of(RunMode.FULL);
    return String.format(
        Locale.ROOT,
        "one table with %d fast appends; loadTable: %d threads of raw keep-alive HTTP/1.1 GETs"
            + " (full body read), %d s measured"
            + " after %d s warm-up; commits: %d writers x %d fast appends to a new table, conflicts"
            + " retried by Iceberg's client, each writer writing its manifests on its own"
            + " thread. Lakestream (bin/lakestream server, defaults) vs"
            + " Iceberg's RESTCatalogServer (JdbcCatalog on a SQLite file, 1 connection,"
            + " HadoopFileIO on a local warehouse)",
        full.setupCommits(),
        LOAD_THREADS,
        full.measured().toSeconds(),
        full.warmup().toSeconds(),
        WRITERS,
        full.appendsPerWriter());
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    quietIcebergClientLogging();
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    Path referenceClassPath = ReferenceRestServer.classPath(context.lakestreamHome());
    Sizes sizes = Sizes.of(context.mode());
    PrintStream progress = context.progress();
    int[] ports = FreePorts.onLoopback(4);
    URI lakestreamBase = loopback(ports[0]);
    URI referenceBase = loopback(ports[3]);

    try (TemporaryDirectory work = TemporaryDirectory.create("lakestream-bench-rest-catalog-");
        HttpClient http =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(PROBE_TIMEOUT)
                .build()) {
      Path referenceDirectory = Files.createDirectories(work.resolve("reference"));
      try (ChildProcess lakestreamServer =
              ChildProcess.start(
                  "Lakestream server",
                  LakestreamLauncher.server(
                      launcher, work.resolve("lakestream"), ports[0], ports[1], ports[2]),
                  work.resolve("lakestream.log"));
          ChildProcess referenceServer =
              ChildProcess.start(
                  REFERENCE,
                  ReferenceRestServer.command(referenceClassPath, referenceDirectory, ports[3]),
                  work.resolve("reference.log"))) {
        lakestreamServer.awaitCondition(
            "GET /ready answering 200",
            START_DEADLINE,
            POLL_INTERVAL,
            () -> HttpProbes.answersOk(http, lakestreamBase.resolve("/ready"), PROBE_TIMEOUT));
        referenceServer.awaitCondition(
            "GET /v1/config answering 200",
            START_DEADLINE,
            POLL_INTERVAL,
            () -> HttpProbes.answersOk(http, referenceBase.resolve("/v1/config"), PROBE_TIMEOUT));
        progress.printf(
            "  servers ready: Lakestream on %s, %s on %s (%s)%n",
            lakestreamBase,
            REFERENCE,
            referenceBase,
            ReferenceRestServer.catalogEnvironment(referenceDirectory, ports[3]));

        try (CatalogUnderTest lakestream =
                CatalogUnderTest.connect("Lakestream", lakestreamServer, lakestreamBase, http);
            CatalogUnderTest reference =
                CatalogUnderTest.connect(REFERENCE, referenceServer, referenceBase, http)) {
          for (CatalogUnderTest catalog : List.of(lakestream, reference)) {
            prepare(catalog, sizes.setupCommits(), http, progress);
          }
          Rounds rounds = new Rounds(lakestream, reference, sizes, progress);
          List<Sample> samples = context.iterate(rounds::next);
          List<Figure> figures = figures(samples, rounds.lakestreamFaults);
          if (context.mode() == RunMode.FULL
              && (rounds.lakestreamFaults.any() || rounds.referenceFaults.any())) {
            throw new FaultedRunException(
                "faults seen: Lakestream "
                    + rounds.lakestreamFaults
                    + "; "
                    + REFERENCE
                    + " "
                    + rounds.referenceFaults,
                figures);
          }
          return figures;
        } catch (Exception e) {
          // The servers' logs go with their directory; keep their last lines with the failure.
          e.addSuppressed(lakestreamServer.failure("log when the benchmark failed"));
          e.addSuppressed(referenceServer.failure("log when the benchmark failed"));
          throw e;
        }
      }
    }
  }

  private static void prepare(
      CatalogUnderTest catalog, int commits, HttpClient http, PrintStream progress)
      throws Exception {
    long startNanos = System.nanoTime();
    catalog.createNamespace(NAMESPACE);
    catalog.createTable(LOADED_TABLE, Map.of());
    catalog.appendSequentially(LOADED_TABLE, commits);
    int bytes = catalog.checkLoadTable(http, LOADED_TABLE, commits);
    progress.printf(
        Locale.ROOT,
        "  %s: %s with %d snapshots in %.1f s; loadTable answers %d bytes from %s%n",
        catalog.name(),
        LOADED_TABLE,
        commits,
        (System.nanoTime() - startNanos) / 1e9,
        bytes,
        catalog.loadTableUri(LOADED_TABLE).getPath());
  }

  private static List<Figure> figures(List<Sample> samples, Faults lakestreamFaults) {
    return List.of(
        Figure.paired(
            "load_table_rps",
            samples,
            sample -> sample.lakestream().load().requestsPerSecond(),
            "req/s (higher is better)",
            REFERENCE,
            sample -> sample.reference().load().requestsPerSecond(),
            Target.ratioAtLeast(LOAD_TABLE_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "load_table_p50_ms",
            samples,
            sample -> sample.lakestream().load().p50Millis(),
            "ms (lower is better)",
            REFERENCE,
            sample -> sample.reference().load().p50Millis()),
        Figure.paired(
            "load_table_p99_ms",
            samples,
            sample -> sample.lakestream().load().p99Millis(),
            "ms (lower is better)",
            REFERENCE,
            sample -> sample.reference().load().p99Millis(),
            Target.below(LOAD_TABLE_P99_TARGET_MS)),
        Figure.pairedWithoutTarget(
            "load_table_server_cpu_us",
            samples,
            sample -> sample.lakestream().load().serverCpuMicrosPerRequest(),
            "us per request (lower is better)",
            REFERENCE,
            sample -> sample.reference().load().serverCpuMicrosPerRequest()),
        Figure.of(
            "load_table_errors",
            lakestreamFaults.loadTableErrors,
            "requests",
            "loadTable requests sent to Lakestream, all iterations",
            Math.max(1, lakestreamFaults.loadTableRequests),
            Target.below(1)),
        Figure.paired(
            "commits_per_s",
            samples,
            sample -> sample.lakestream().appends().commitsPerSecond(),
            "commits/s (higher is better)",
            REFERENCE,
            sample -> sample.reference().appends().commitsPerSecond(),
            Target.ratioAtLeast(COMMITS_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "commit_attempts_per_commit",
            samples,
            sample -> sample.lakestream().appends().attemptsPerCommit(),
            "attempts (lower is better)",
            REFERENCE,
            sample -> sample.reference().appends().attemptsPerCommit()),
        Figure.pairedWithoutTarget(
            "commit_server_cpu_ms",
            samples,
            sample -> sample.lakestream().appends().serverCpuMillisPerCommit(),
            "ms per commit (lower is better)",
            REFERENCE,
            sample -> sample.reference().appends().serverCpuMillisPerCommit()),
        Figure.of(
            "lost_commits",
            lakestreamFaults.lostCommits,
            "commits",
            "commits Lakestream acknowledged, all iterations",
            Math.max(1, lakestreamFaults.acknowledgedCommits),
            Target.below(1)));
  }

  /**
   * Iceberg's client logs a line per commit and a warning with a stack trace per retried conflict;
   * in this JVM they would drown the progress output. Set only where nobody configured them.
   */
  private static void quietIcebergClientLogging() {
    for (String logger : List.of("org.apache.iceberg", "org.apache.hc")) {
      String property = "org.slf4j.simpleLogger.log." + logger;
      if (System.getProperty(property) == null) {
        System.setProperty(property, "error");
      }
    }
  }

  private static URI loopback(int port) {
    return URI.create("http://127.0.0.1:" + port);
  }

  /**
   * How many appends make the loaded table, how long the loadTable windows are and how many appends
   * each writer commits.
   */
  private record Sizes(int setupCommits, Duration warmup, Duration measured, int appendsPerWriter) {
    static Sizes of(RunMode mode) {
      return switch (mode) {
        case QUICK -> new Sizes(5, Duration.ofMillis(300), Duration.ofSeconds(1), 3);
        case FULL -> new Sizes(50, Duration.ofSeconds(3), Duration.ofSeconds(10), 25);
      };
    }
  }

  private record ServerSample(LoadTableLoad.Result load, ConcurrentAppends.Result appends) {}

  private record Sample(ServerSample lakestream, ServerSample reference) {}

  /** Faults of one server, totalled over every iteration. */
  private static final class Faults {
    private long loadTableRequests;
    private long loadTableErrors;
    private long acknowledgedCommits;
    private long lostCommits;

    void add(ServerSample sample) {
      loadTableRequests += sample.load().requests();
      loadTableErrors += sample.load().errors();
      acknowledgedCommits += sample.appends().commits();
      lostCommits += sample.appends().lost();
    }

    boolean any() {
      return loadTableErrors > 0 || lostCommits > 0;
    }

    @Override
    public String toString() {
      return loadTableErrors
          + " of "
          + loadTableRequests
          + " loadTable requests failed, "
          + lostCommits
          + " of "
          + acknowledgedCommits
          + " acknowledged commits lost";
    }
  }

  /** The iterations of one run: both servers per iteration, in alternating order. */
  private static final class Rounds {
    private final CatalogUnderTest lakestream;
    private final CatalogUnderTest reference;
    private final Sizes sizes;
    private final PrintStream progress;
    private final LoadTableLoad load;
    private final Faults lakestreamFaults = new Faults();
    private final Faults referenceFaults = new Faults();
    private int round;

    Rounds(
        CatalogUnderTest lakestream,
        CatalogUnderTest reference,
        Sizes sizes,
        PrintStream progress) {
      this.lakestream = lakestream;
      this.reference = reference;
      this.sizes = sizes;
      this.progress = progress;
      this.load = new LoadTableLoad(LOAD_THREADS, sizes.warmup(), sizes.measured());
    }

    Sample next() throws Exception {
      round++;
      TableIdentifier appendTable = TableIdentifier.of(NAMESPACE, "appends_" + round);
      List<CatalogUnderTest> order =
          round % 2 == 1 ? List.of(lakestream, reference) : List.of(reference, lakestream);
      List<LoadTableLoad.Result> loads = new ArrayList<>(2);
      for (CatalogUnderTest catalog : order) {
        loads.add(load.run(catalog, LOADED_TABLE));
      }
      List<ConcurrentAppends.Result> appends = new ArrayList<>(2);
      for (CatalogUnderTest catalog : order) {
        catalog.createTable(appendTable, APPEND_TABLE_PROPERTIES);
        appends.add(
            new ConcurrentAppends(catalog, WRITERS, sizes.appendsPerWriter()).run(appendTable));
      }
      int lakestreamIndex = order.indexOf(lakestream);
      ServerSample lakestreamSample =
          new ServerSample(loads.get(lakestreamIndex), appends.get(lakestreamIndex));
      ServerSample referenceSample =
          new ServerSample(loads.get(1 - lakestreamIndex), appends.get(1 - lakestreamIndex));
      lakestreamFaults.add(lakestreamSample);
      referenceFaults.add(referenceSample);
      print(lakestream.name(), lakestreamSample);
      print(reference.name(), referenceSample);
      return new Sample(lakestreamSample, referenceSample);
    }

    private void print(String server, ServerSample sample) {
      LoadTableLoad.Result load = sample.load();
      ConcurrentAppends.Result appends = sample.appends();
      progress.printf(
          Locale.ROOT,
          "    %s: loadTable %.0f req/s, p50 %.2f ms, p99 %.2f ms, %d of %d failed, CPU per"
              + " request %.0f us server, %.0f us client; commits %.1f/s, %.2f attempts each,"
              + " %d of %d lost, server CPU %.1f ms each%n",
          server,
          load.requestsPerSecond(),
          load.p50Millis(),
          load.p99Millis(),
          load.errors(),
          load.requests(),
          load.serverCpuMicrosPerRequest(),
          load.clientCpuMicrosPerRequest(),
          appends.commitsPerSecond(),
          appends.attemptsPerCommit(),
          appends.lost(),
          appends.commits(),
          appends.serverCpuMillisPerCommit());
    }
  }
}
