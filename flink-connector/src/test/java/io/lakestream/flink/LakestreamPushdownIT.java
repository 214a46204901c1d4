package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.testing.PackagedServer;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the source takes over from Flink's planner, on a MiniCluster against the packaged server
 * (tiering every second): watermarks generated per split, partition pruning and the upsert
 * changelog mode. Expected rows come from a model of what the test wrote.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LakestreamPushdownIT {
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration WINDOW_TIMEOUT = Duration.ofSeconds(60);
  private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 1, 1, 0, 0);

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(4);

  private static TestServer servers;
  private static PackagedServer server;
  private static Connection client;
  private static RESTCatalog lake;

  private StreamTableEnvironment flink;

  @BeforeAll
  static void startServer() throws Exception {
    servers = TestServer.start("flink-pushdown-it", "--tiering-discovery-interval", "1s");
    server = servers.server();
    client = servers.client();
    lake = servers.lake();
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (servers != null) {
      servers.close();
    }
  }

  @BeforeEach
  void createCatalog() {
    StreamExecutionEnvironment stream = StreamExecutionEnvironment.getExecutionEnvironment();
    stream.setParallelism(2);
    flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    flink.executeSql(servers.catalogDdl("ls"));
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
  }

  @AfterEach
  void dropCatalog() {
    flink.executeSql("DROP CATALOG IF EXISTS ls");
  }

  // ------------------------------------------------------------------ watermarks

  /**
   * Rows 0..89 at second id/3 (three 10-second windows of 30 rows each), tiered, then (once a read
   * runs) 30 rows at second 100 that move every bucket's watermark past the three windows: the
   * windows close while the job runs, read from the log alone and from the lake snapshot plus the
   * log.
   */
  @Test
  void eventTimeWindowsCloseOnWatermarksGeneratedPerSplit() throws Exception {
    flink.executeSql(
        "CREATE TABLE ls.src.events (id BIGINT NOT NULL, ts TIMESTAMP(6))"
            + " DISTRIBUTED BY HASH(id) INTO 3 BUCKETS WITH ('lakestream.tiering.interval'='1s')");
    TablePath path = new TablePath(null, List.of("src"), "events");
    insertEvents(path, LongStream.range(0, 90), id -> id / 3);
    servers.awaitTiered(path, 90, TIERING_TIMEOUT);

    // Model: window start second -> (count, sum of ids).
    Map<Long, List<Long>> expected = new TreeMap<>();
    for (long id = 0; id < 90; id++) {
      long window = (id / 3) / 10 * 10;
      expected.computeIfAbsent(window, w -> new ArrayList<>(List.of(0L, 0L)));
      expected.get(window).set(0, expected.get(window).get(0) + 1);
      expected.get(window).set(1, expected.get(window).get(1) + id);
    }

    for (String mode : List.of("earliest", "full")) {
      flink.executeSql(
          "CREATE TEMPORARY TABLE events_"
              + mode
              + " (id BIGINT NOT NULL, ts TIMESTAMP(6), rt AS CAST(ts AS TIMESTAMP(3)),"
              + " WATERMARK FOR rt AS rt - INTERVAL '5' SECOND) WITH ("
              + servers.connectorOptions("src.events")
              + ", 'scan.startup.mode'='"
              + mode
              + "')");
      String query =
          "SELECT window_start, COUNT(*), SUM(id) FROM TABLE(TUMBLE(TABLE events_"
              + mode
              + ", DESCRIPTOR(rt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end";
      assertThat(flink.explainSql(query))
          .as("watermarks pushed into the source")
          .contains("watermark=[");

      Map<Long, List<Long>> windows = new TreeMap<>();
      TableResult result = flink.executeSql(query);
      // Written once the read is planned, so they are in its log part in either mode (a union
      // read's log splits hold the watermark back until their buckets have rows).
      long closers = mode.equals("earliest") ? 1000 : 2000;
      insertEvents(path, LongStream.range(closers, closers + 30), id -> 100);
      try (CloseableIterator<Row> rows = result.collect()) {
        // Unbounded: these come only when watermarks close the windows.
        for (int i = 0; i < expected.size(); i++) {
          Row row = nextWithin(WINDOW_TIMEOUT, rows, result);
          long start = Duration.between(EPOCH, (LocalDateTime) row.getField(0)).toSeconds();
          windows.put(
              start, List.of((Long) row.getField(1), ((Number) row.getField(2)).longValue()));
        }
      }
      assertThat(windows).as("windows read with startup mode %s", mode).isEqualTo(expected);
    }
  }

  /**
   * The next row of an unbounded result, failing with the job's watermarks (from Flink's REST API)
   * when none comes in time.
   */
  private static Row nextWithin(Duration timeout, CloseableIterator<Row> rows, TableResult result)
      throws Exception {
    java.util.concurrent.CompletableFuture<Row> next =
        java.util.concurrent.CompletableFuture.supplyAsync(rows::next);
    try {
      return next.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      String watermarks = watermarks(result.getJobClient().orElseThrow().getJobID().toString());
      result.getJobClient().orElseThrow().cancel();
      throw new AssertionError("No window closed within " + timeout + "; " + watermarks, e);
    }
  }

  private static String watermarks(String job) throws Exception {
    org.apache.flink.configuration.Configuration config = FLINK.getClientConfiguration();
    String base =
        "http://"
            + config.get(org.apache.flink.configuration.RestOptions.ADDRESS)
            + ":"
            + config.get(org.apache.flink.configuration.RestOptions.PORT)
            + "/jobs/"
            + job;
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String plan =
        http.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(base)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    StringBuilder out = new StringBuilder("watermarks by vertex: ");
    java.util.regex.Matcher vertex =
        java.util.regex.Pattern.compile(
                "\"id\":\"([0-9a-f]{32})\",\"slotSharingGroupId\"[^}]*?\"name\":\"([^\"]*)\"")
            .matcher(plan);
    while (vertex.find()) {
      out.append(vertex.group(2))
          .append(" -> ")
          .append(
              http.send(
                      java.net.http.HttpRequest.newBuilder(
                              java.net.URI.create(
                                  base + "/vertices/" + vertex.group(1) + "/watermarks"))
                          .build(),
                      java.net.http.HttpResponse.BodyHandlers.ofString())
                  .body())
          .append("; ");
    }
    return out.append(" job: ").append(plan).toString();
  }

  /** Appends rows {@code ids}, row id at {@code second(id)} seconds after {@link #EPOCH}. */
  private static void insertEvents(
      TablePath path, LongStream ids, java.util.function.LongUnaryOperator second) {
    long epochMicros = EPOCH.toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L;
    try (AppendWriter writer = client.table(path).newAppendWriter()) {
      ids.forEach(id -> writer.append(id, epochMicros + second.applyAsLong(id) * 1_000_000L));
      writer.flush();
    }
  }

  // ------------------------------------------------------------------ partitions

  /**
   * The planner drops a partition filter it pushed into the source: a row of another partition that
   * the source read would show in the result. The lake snapshot holds both partitions' first rows,
   * the log the rest.
   */
  @Test
  void partitionFilterReadsOnlyTheSelectedPartitionsSplitsAndLakeFiles() {
    org.apache.iceberg.Schema schema =
        new org.apache.iceberg.Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()));
    TablePath path = new TablePath(null, List.of("src"), "by_region");
    client
        .admin()
        .createTable(
            path,
            io.lakestream.client.TableDescriptor.logTable(schema, 2)
                .withPartitionSpecJson(
                    PartitionSpecParser.toJson(
                        PartitionSpec.builderFor(schema).identity("region").build())));
    appendRegion(path, "eu", 0, 100);
    appendRegion(path, "us", 100, 300);
    appendRegion(path, "apac", 300, 350);
    servers.awaitTiered(path, 350, TIERING_TIMEOUT);
    appendRegion(path, "eu", 350, 400);
    appendRegion(path, "us", 400, 600);
    appendRegion(path, "apac", 600, 650);

    for (String mode : List.of("earliest", "full")) {
      flink.executeSql(
          "CREATE TEMPORARY TABLE by_region_"
              + mode
              + " (id BIGINT NOT NULL, region STRING NOT NULL) PARTITIONED BY (region) WITH ("
              + servers.connectorOptions("src.by_region")
              + ", 'scan.startup.mode'='"
              + mode
              + "', 'scan.bounded'='true')");
      String query = "SELECT id, region FROM by_region_" + mode + " WHERE region = 'eu'";
      assertThat(flink.explainSql(query)).contains("partitions=[{region=eu}]");

      List<Row> rows = collect(query);

      assertThat(ids(rows))
          .as("startup mode %s", mode)
          .containsExactlyInAnyOrderElementsOf(
              LongStream.concat(LongStream.range(0, 100), LongStream.range(350, 400))
                  .boxed()
                  .toList());
      assertThat(rows).allSatisfy(row -> assertThat(row.getField(1)).isEqualTo("eu"));

      // Two partitions of three, and a filter on another column that stays with Flink.
      List<Row> two =
          collect(
              "SELECT id, region FROM by_region_"
                  + mode
                  + " WHERE region IN ('eu', 'apac') AND id >= 50");
      assertThat(ids(two))
          .as("startup mode %s", mode)
          .containsExactlyInAnyOrderElementsOf(
              LongStream.concat(
                      LongStream.range(50, 100),
                      LongStream.concat(LongStream.range(300, 400), LongStream.range(600, 650)))
                  .boxed()
                  .toList());
    }
  }

  private static void appendRegion(TablePath path, String region, long from, long to) {
    try (AppendWriter writer = client.table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, region);
      }
      writer.flush();
    }
  }

  // ------------------------------------------------------------------ upsert mode

  @Test
  void upsertModeDropsUpdateBeforeAndFoldsToTheTablesState() {
    flink.executeSql(
        "CREATE TABLE ls.src.pk_upserts (k BIGINT NOT NULL, v BIGINT,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ('lakestream.buckets'='2',"
            + " 'lakestream.tiering.interval'='1s')");
    TablePath path = new TablePath(null, List.of("src"), "pk_upserts");
    Map<Long, Long> model = new TreeMap<>();
    Random random = new Random(7);
    try (UpsertWriter writer = client.table(path).newUpsertWriter()) {
      writeRandomly(writer, random, model, 400);
      writer.flush();
      servers.awaitTieredAtLeast(path, 1, TIERING_TIMEOUT);
      writeRandomly(writer, random, model, 400);
      writer.flush();
    }

    for (String mode : List.of("earliest", "full")) {
      String query =
          "SELECT k, v FROM ls.src.pk_upserts /*+ OPTIONS('scan.changelog-mode'='upsert',"
              + " 'scan.startup.mode'='"
              + mode
              + "', 'scan.bounded'='true') */";
      String plan = flink.explainSql(query, ExplainDetail.CHANGELOG_MODE);
      assertThat(plan)
          .as("the source declares upserts, the planner normalizes them")
          .contains("changelogMode=[I,UA,D]")
          .contains("ChangelogNormalize");

      Map<Long, Long> folded = new TreeMap<>();
      for (Row change : collect(query)) {
        long key = (Long) change.getField(0);
        switch (change.getKind()) {
          case INSERT, UPDATE_AFTER -> folded.put(key, (Long) change.getField(1));
          case UPDATE_BEFORE, DELETE -> folded.remove(key);
        }
      }
      assertThat(folded).as("startup mode %s", mode).isEqualTo(model);
    }
    // The default stays the full changelog.
    assertThat(
            flink.explainSql(
                "SELECT k, v FROM ls.src.pk_upserts /*+ OPTIONS('scan.startup.mode'='earliest') */",
                ExplainDetail.CHANGELOG_MODE))
        .contains("changelogMode=[I,UB,UA,D]")
        .doesNotContain("ChangelogNormalize");
  }

  private static void writeRandomly(
      UpsertWriter writer, Random random, Map<Long, Long> model, int writes) {
    for (int i = 0; i < writes; i++) {
      long key = random.nextInt(60);
      if (random.nextInt(5) == 0) {
        writer.delete(key);
        model.remove(key);
      } else {
        long value = random.nextLong();
        writer.upsert(key, value);
        model.put(key, value);
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  private List<Row> collect(String query) {
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> result = flink.executeSql(query).collect()) {
      result.forEachRemaining(rows::add);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }

  private static List<Long> ids(List<Row> rows) {
    return rows.stream().map(row -> (Long) row.getField(0)).toList();
  }
}
