package io.lakestream.server;

import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.TestingPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes sharing one PostgreSQL catalog database and one warehouse: writers on both
 * race to append to one table through Iceberg's REST client. The database must arbitrate every
 * race, so that no append is lost or applied twice and the snapshot history stays one line.
 */
class PostgresSharedCatalogIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  /** Generous: the appends take about a minute on two idle cores, several on a loaded machine. */
  private static final Duration WRITE_TIMEOUT = Duration.ofMinutes(10);

  private static final int WRITERS_PER_SERVER = 4;
  private static final int APPENDS_PER_WRITER = 50;
  private static final Namespace NAMESPACE = Namespace.of("shop");
  private static final TableIdentifier EVENTS = TableIdentifier.of(NAMESPACE, "events");
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));

  private static final Pattern UPDATE_TABLE_REQUESTS =
      Pattern.compile(
          "(?m)^lakestream_http_requests_total\\{route=\"update_table\",status=\"(\\d+)\"\\}"
              + " (\\S+)$");

  @TempDir Path temp;

  @Test
  void appendsFromTwoServersAreAllCommittedExactlyOnce() throws Exception {
    // An existing directory's URI ends with a slash.
    String warehouse = Files.createDirectories(temp.resolve("warehouse")).toUri().toString();
    try (TestingPostgres postgres = TestingPostgres.start();
        ServerProcess first = launch(postgres, "first", warehouse);
        ServerProcess second = launch(postgres, "second", warehouse)) {
      // Started together, the servers race to migrate the empty database and create the warehouse.
      first.awaitReady(START_TIMEOUT);
      second.awaitReady(START_TIMEOUT);

      try (RESTCatalog viaFirst = connect(first);
          RESTCatalog viaSecond = connect(second)) {
        viaFirst.createNamespace(NAMESPACE, new HashMap<>(Map.of("owner", "shop")));
        // The client retries a commit that lost a race (HTTP 409) on the refreshed table; backing
        // off keeps eight writers on two cores from spending most of their time on doomed attempts.
        viaSecond.createTable(
            EVENTS,
            SCHEMA,
            PartitionSpec.unpartitioned(),
            new HashMap<>(
                Map.of(
                    TableProperties.COMMIT_NUM_RETRIES, "1000",
                    TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "50",
                    TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "1000")));
        assertThat(viaFirst.loadNamespaceMetadata(NAMESPACE)).containsEntry("owner", "shop");
        assertThat(viaFirst.tableExists(EVENTS)).isTrue();

        long started = System.nanoTime();
        List<String> appended = appendConcurrently(List.of(viaFirst, viaSecond), warehouse);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        int expected = 2 * WRITERS_PER_SERVER * APPENDS_PER_WRITER;
        assertThat(appended).hasSize(expected).doesNotHaveDuplicates();
        Table table = viaFirst.loadTable(EVENTS);
        assertThat(table.snapshots()).hasSize(expected);
        assertThat(lineage(table))
            .extracting(Snapshot::sequenceNumber)
            .containsExactlyElementsOf(
                LongStream.rangeClosed(1, expected).map(n -> expected + 1 - n).boxed().toList());
        assertThat(filesOf(table)).containsExactlyInAnyOrderElementsOf(appended);
        assertThat(viaSecond.loadTable(EVENTS).currentSnapshot().snapshotId())
            .isEqualTo(table.currentSnapshot().snapshotId());

        // Exactly one successful commit per append: none was lost, none applied twice.
        Map<Integer, Long> viaFirstCommits = commitResponses(first);
        Map<Integer, Long> viaSecondCommits = commitResponses(second);
        assertThat(viaFirstCommits.getOrDefault(200, 0L) + viaSecondCommits.getOrDefault(200, 0L))
            .isEqualTo(expected);
        assertThat(viaFirstCommits.keySet()).isSubsetOf(200, 409);
        assertThat(viaSecondCommits.keySet()).isSubsetOf(200, 409);
        System.out.printf(
            "PostgresSharedCatalogIT: %d appends through 2 servers in %d ms; commits answered"
                + " per status: first server %s, second server %s; %d conflicts retried%n",
            expected,
            elapsed.toMillis(),
            viaFirstCommits,
            viaSecondCommits,
            viaFirstCommits.getOrDefault(409, 0L) + viaSecondCommits.getOrDefault(409, 0L));
      }
      assertThat(first.terminate(Duration.ofSeconds(30))).isZero();
      assertThat(second.terminate(Duration.ofSeconds(30))).isZero();
    }
  }

  private ServerProcess launch(TestingPostgres postgres, String name, String warehouse)
      throws Exception {
    return postgres.launchServer(
        temp.resolve("data-" + name), temp.resolve("logs-" + name), warehouse);
  }

  /** How many table commits a server answered, by HTTP status, from its Prometheus metrics. */
  private static Map<Integer, Long> commitResponses(ServerProcess server) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    String metrics =
        client
            .send(
                HttpRequest.newBuilder(URI.create(server.baseUri() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Map<Integer, Long> responses = new TreeMap<>();
    Matcher matcher = UPDATE_TABLE_REQUESTS.matcher(metrics);
    while (matcher.find()) {
      responses.put(
          Integer.parseInt(matcher.group(1)), (long) Double.parseDouble(matcher.group(2)));
    }
    return responses;
  }

  private static RESTCatalog connect(ServerProcess server) {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(
        "lakestream",
        new HashMap<>(
            Map.of(
                "uri",
                server.baseUri(),
                "io-impl",
                LocalFileIO.class.getName(),
                // Commit reports would double the requests; this test counts commits itself.
                "rest-metrics-reporting-enabled",
                "false")));
    return catalog;
  }

  /**
   * Runs {@link #WRITERS_PER_SERVER} writers against each catalog, each appending {@link
   * #APPENDS_PER_WRITER} files one commit at a time and retrying a commit that lost a race. Returns
   * the paths of the appended files.
   */
  private static List<String> appendConcurrently(List<RESTCatalog> catalogs, String warehouse)
      throws Exception {
    int writers = catalogs.size() * WRITERS_PER_SERVER;
    ExecutorService executor = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<String>>> futures = new ArrayList<>();
      for (int writer = 0; writer < writers; writer++) {
        RESTCatalog catalog = catalogs.get(writer % catalogs.size());
        String name = "writer-" + writer;
        futures.add(
            executor.submit(
                () -> {
                  // Table handles are not shared between threads: each writer loads its own.
                  Table table = catalog.loadTable(EVENTS);
                  start.await();
                  List<String> paths = new ArrayList<>();
                  for (int append = 0; append < APPENDS_PER_WRITER; append++) {
                    String path =
                        warehouse + "shop/events/data/" + name + "-" + append + ".parquet";
                    // Each attempt refreshes the table and builds on its latest snapshot.
                    table.newAppend().appendFile(dataFile(path)).commit();
                    paths.add(path);
                  }
                  return paths;
                }));
      }
      start.countDown();
      long deadline = System.nanoTime() + WRITE_TIMEOUT.toNanos();
      List<String> appended = new ArrayList<>();
      for (Future<List<String>> future : futures) {
        appended.addAll(future.get(Math.max(0, deadline - System.nanoTime()), NANOSECONDS));
      }
      return appended;
    } finally {
      executor.shutdownNow();
    }
  }

  private static DataFile dataFile(String path) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(path)
        .withFileSizeInBytes(4096)
        .withRecordCount(100)
        .withFormat(FileFormat.PARQUET)
        .build();
  }

  /** The current snapshot and its ancestors, newest first; each must have the next as parent. */
  private static List<Snapshot> lineage(Table table) {
    List<Snapshot> lineage = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (Snapshot snapshot = table.currentSnapshot();
        snapshot != null;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      assertThat(seen.add(snapshot.snapshotId())).isTrue();
      lineage.add(snapshot);
    }
    assertThat(lineage.getLast().parentId()).isNull();
    return lineage;
  }

  private static List<String> filesOf(Table table) throws Exception {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add(task.file().location());
      }
    }
    return files;
  }
}
