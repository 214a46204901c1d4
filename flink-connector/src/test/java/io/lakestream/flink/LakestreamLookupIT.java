package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.testing.PackagedServer;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL lookup joins ({@code FOR SYSTEM_TIME AS OF}) of a bounded stream of orders against
 * primary-key tables written through the client, on a MiniCluster against the packaged server:
 * point lookups by the primary key (sync, async, with Flink's partial cache), prefix lookups by a
 * bucket key that is a proper prefix of the primary key, and the lookups that are refused. The
 * expected rows are written out by hand from what the test wrote.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LakestreamLookupIT {

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(1);

  private static TestServer servers;
  private static PackagedServer server;
  private static Connection client;

  private StreamTableEnvironment flink;

  @BeforeAll
  static void startServer() throws Exception {
    servers = TestServer.start("flink-lookup-it");
    server = servers.server();
    client = servers.client();
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
    stream.setParallelism(1);
    flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    flink.executeSql(servers.catalogDdl("ls"));
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.dims");
    // Orders 10, 11 and 13 find product 1 or 2; order 12's product 7 is not in the table. Literal
    // values stay one source that emits them in order (casts inside VALUES make a union of
    // one-row sources, in no fixed order).
    flink.executeSql(
        "CREATE TEMPORARY VIEW orders AS SELECT order_id, CAST(product AS BIGINT) AS product,"
            + " PROCTIME() AS proc_time FROM (VALUES (10, 1), (11, 2), (12, 7), (13, 1))"
            + " AS t (order_id, product)");
  }

  @AfterEach
  void dropCatalog() {
    flink.executeSql("DROP CATALOG IF EXISTS ls");
  }

  private static final LocalDate DAY = LocalDate.of(2026, 12, 5);
  private static final LocalDateTime AT = LocalDateTime.of(2026, 12, 5, 6, 30, 15, 123_456_000);

  /** A product table whose rows carry a decimal, a date and a timestamp. */
  private static void products(String name) {
    try (UpsertWriter writer = client.table(path(name)).newUpsertWriter()) {
      // Days and microseconds since the epoch of DAY and AT.
      int day = (int) DAY.toEpochDay();
      long micros = 1_796_452_215_123_456L;
      writer.upsert(1L, "pen", new BigDecimal("1.50"), day, micros);
      writer.upsert(2L, "ink", new BigDecimal("12.05"), day + 1, micros + 1);
      writer.upsert(3L, "pad", new BigDecimal("3.00"), day, micros);
      writer.upsert(2L, "ink", new BigDecimal("12.25"), day + 1, micros + 1);
      writer.flush();
    }
  }

  private void createProducts(String name) {
    flink.executeSql(
        "CREATE TABLE ls.dims."
            + name
            + " (id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), since DATE,"
            + " updated TIMESTAMP(6), PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('lakestream.buckets'='2')");
    products(name);
  }

  private static final List<Row> INNER =
      List.of(
          Row.of(10, "pen", new BigDecimal("1.50"), DAY, AT),
          Row.of(11, "ink", new BigDecimal("12.25"), DAY.plusDays(1), AT.plusNanos(1000)),
          Row.of(13, "pen", new BigDecimal("1.50"), DAY, AT));

  private static String join(String kind, String table, String hints) {
    return "SELECT o.order_id, p.name, p.price, p.since, p.updated FROM orders AS o "
        + kind
        + " JOIN ls.dims."
        + table
        + (hints.isEmpty() ? "" : " /*+ OPTIONS(" + hints + ") */")
        + " FOR SYSTEM_TIME AS OF o.proc_time AS p ON o.product = p.id";
  }

  @Test
  void synchronousLookupJoinFindsTheRowsOfFullKeys() {
    createProducts("products_sync");

    assertThat(flink.explainSql(join("", "products_sync", ""))).doesNotContain("async=[");
    assertThat(collect(join("", "products_sync", ""))).containsExactlyInAnyOrderElementsOf(INNER);
    assertThat(collect(join("LEFT", "products_sync", "")))
        .containsExactlyInAnyOrderElementsOf(withMiss(INNER));
    // A condition on the looked-up row's other columns still holds (the source's pushed filters
    // only skip batches of scans; Flink applies them to looked-up rows).
    assertThat(collect(join("", "products_sync", "") + " AND p.name <> 'ink'"))
        .containsExactlyInAnyOrder(INNER.get(0), INNER.get(2));
  }

  @Test
  void asynchronousLookupJoinFindsTheRowsOfFullKeys() {
    createProducts("products_async");
    assertThat(flink.explainSql(join("", "products_async", "'lookup.async'='true'")))
        .contains("async=[");

    assertThat(collect(join("", "products_async", "'lookup.async'='true'")))
        .containsExactlyInAnyOrderElementsOf(INNER);
    assertThat(collect(join("LEFT", "products_async", "'lookup.async'='true'")))
        .containsExactlyInAnyOrderElementsOf(withMiss(INNER));
  }

  @Test
  void partialCacheAnswersRepeatedKeysFromTheCache() {
    // Before order 13 looks product 1 up, the join key's function renames the product: a lookup
    // without a cache sees the new name, one with a cache the name it cached for order 10.
    flink.createTemporarySystemFunction("rename_before_13", RenameBefore13.class);
    String cache =
        "'lookup.cache'='PARTIAL', 'lookup.partial-cache.max-rows'='100',"
            + " 'lookup.partial-cache.expire-after-write'='1 h',"
            + " 'lookup.partial-cache.cache-missing-key'='true'";
    String query =
        "SELECT o.order_id, p.name FROM orders AS o LEFT JOIN ls.dims.%s%s FOR SYSTEM_TIME AS OF"
            + " o.proc_time AS p ON rename_before_13(o.order_id, o.product) = p.id";
    List<Row> renamed =
        List.of(Row.of(10, "pen"), Row.of(11, "ink"), Row.of(12, null), Row.of(13, "pen v2"));
    List<Row> cached =
        List.of(Row.of(10, "pen"), Row.of(11, "ink"), Row.of(12, null), Row.of(13, "pen"));

    createProducts("products_uncached");
    RenameBefore13.table = "products_uncached";
    assertThat(collect(String.format(query, "products_uncached", "")))
        .containsExactlyElementsOf(renamed);

    createProducts("products_cached");
    RenameBefore13.table = "products_cached";
    assertThat(collect(String.format(query, "products_cached", " /*+ OPTIONS(" + cache + ") */")))
        .containsExactlyElementsOf(cached);

    // Async lookups with the cache in front (orders may be in flight together, so only the
    // result is checked).
    createProducts("products_cached_async");
    assertThat(collect(join("LEFT", "products_cached_async", cache + ", 'lookup.async'='true'")))
        .containsExactlyInAnyOrderElementsOf(withMiss(INNER));
  }

  /**
   * Returns the product; when called for order 13, first renames product 1 of {@link #table} to
   * "pen v2" through the client (acknowledged before it returns).
   */
  public static final class RenameBefore13 extends ScalarFunction {
    static volatile String table;

    public Long eval(Integer orderId, Long product) {
      if (orderId == 13) {
        try (UpsertWriter writer = client.table(path(table)).newUpsertWriter()) {
          writer.upsert(
              1L, "pen v2", new BigDecimal("1.50"), (int) DAY.toEpochDay(), 1_796_452_215_123_456L);
          writer.flush();
        }
      }
      return product;
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }
  }

  @Test
  void bucketKeyPrefixLookupFindsEveryRowOfThePrefix() {
    flink.executeSql(
        "CREATE TABLE ls.dims.variants (product BIGINT NOT NULL, item BIGINT NOT NULL,"
            + " color STRING, PRIMARY KEY (product, item) NOT ENFORCED)"
            + " DISTRIBUTED BY HASH(product) INTO 2 BUCKETS");
    try (UpsertWriter writer = client.table(path("variants")).newUpsertWriter()) {
      writer.upsert(1L, 1L, "red");
      writer.upsert(1L, 2L, "blue");
      writer.upsert(1L, 3L, "green");
      writer.upsert(2L, 1L, "black");
      writer.upsert(3L, 1L, "white");
      writer.delete(1L, 3L);
      writer.flush();
    }
    String query =
        "SELECT o.order_id, v.item, v.color FROM orders AS o %s JOIN ls.dims.variants%s"
            + " FOR SYSTEM_TIME AS OF o.proc_time AS v ON o.product = v.product";

    List<Row> expected =
        List.of(
            Row.of(10, 1L, "red"),
            Row.of(10, 2L, "blue"),
            Row.of(11, 1L, "black"),
            Row.of(13, 1L, "red"),
            Row.of(13, 2L, "blue"));
    assertThat(collect(String.format(query, "", ""))).containsExactlyInAnyOrderElementsOf(expected);
    List<Row> left = new ArrayList<>(expected);
    left.add(Row.of(12, null, null));
    assertThat(collect(String.format(query, "LEFT", " /*+ OPTIONS('lookup.async'='true') */")))
        .containsExactlyInAnyOrderElementsOf(left);
  }

  @Test
  void compositePrimaryKeyLookupNamedInAnotherOrder() {
    flink.executeSql(
        "CREATE TABLE ls.dims.sizes (product BIGINT NOT NULL, item BIGINT NOT NULL,"
            + " label STRING, PRIMARY KEY (product, item) NOT ENFORCED)"
            + " DISTRIBUTED BY HASH(product) INTO 2 BUCKETS");
    try (UpsertWriter writer = client.table(path("sizes")).newUpsertWriter()) {
      writer.upsert(1L, 1L, "small");
      writer.upsert(1L, 2L, "large");
      writer.upsert(2L, 1L, "tiny");
      writer.flush();
    }

    // The query names item before product in the select list and in the join condition; the
    // client's key is (product, item). Orders look up (1, 2), (2, 3), (7, 4) and (1, 5); with the
    // key's values swapped order 10 would find (2, 1) instead.
    assertThat(
            collect(
                "SELECT o.order_id, s.item, s.product, s.label FROM orders AS o LEFT JOIN"
                    + " ls.dims.sizes FOR SYSTEM_TIME AS OF o.proc_time AS s"
                    + " ON s.item = CAST(o.order_id - 8 AS BIGINT) AND o.product = s.product"))
        .containsExactlyInAnyOrder(
            Row.of(10, 2L, 1L, "large"),
            Row.of(11, null, null, null),
            Row.of(12, null, null, null),
            Row.of(13, null, null, null));
  }

  @Test
  void lookupsTheTableCannotServeAreRefused() {
    createProducts("products_refused");
    assertThatThrownBy(
            () ->
                collect(
                    "SELECT o.order_id FROM orders AS o JOIN ls.dims.products_refused FOR"
                        + " SYSTEM_TIME AS OF o.proc_time AS p ON CAST(o.order_id AS STRING) ="
                        + " p.name"))
        .hasStackTraceContaining("Cannot look up rows of ls.dims.products_refused by [name]")
        .hasStackTraceContaining("its primary key [id]");

    flink.executeSql("CREATE TABLE ls.dims.events (id BIGINT NOT NULL, name STRING)");
    assertThatThrownBy(
            () ->
                collect(
                    "SELECT o.order_id FROM orders AS o JOIN ls.dims.events FOR SYSTEM_TIME AS OF"
                        + " o.proc_time AS e ON o.product = e.id"))
        .hasStackTraceContaining(
            "Cannot look up rows of ls.dims.events: a lookup join needs a primary-key table");

    assertThatThrownBy(() -> collect(join("", "products_refused", "'lookup.cache'='FULL'")))
        .hasStackTraceContaining("must be NONE or PARTIAL");
    assertThatThrownBy(() -> collect(join("", "products_refused", "'lookup.asynch'='true'")))
        .hasStackTraceContaining("Unknown option 'lookup.asynch'");
  }

  @Test
  void tableDeclaredOutsideTheCatalogIsLookedUp() {
    createProducts("products_declared");
    flink.executeSql(
        "CREATE TEMPORARY TABLE declared_products (id BIGINT NOT NULL, name STRING,"
            + " price DECIMAL(10, 2), since DATE, updated TIMESTAMP(6),"
            + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "', 'table'='dims.products_declared', 'lookup.async'='true',"
            + " 'lookup.cache'='PARTIAL', 'lookup.partial-cache.max-rows'='10')");

    assertThat(
            collect(
                "SELECT o.order_id, p.name, p.price, p.since, p.updated FROM orders AS o JOIN"
                    + " declared_products FOR SYSTEM_TIME AS OF o.proc_time AS p"
                    + " ON o.product = p.id"))
        .containsExactlyInAnyOrderElementsOf(INNER);
  }

  // ------------------------------------------------------------------ helpers

  private static List<Row> withMiss(List<Row> inner) {
    List<Row> rows = new ArrayList<>(inner);
    rows.add(Row.of(12, null, null, null, null));
    return rows;
  }

  private static TablePath path(String name) {
    return new TablePath(null, List.of("dims"), name);
  }

  private List<Row> collect(String query) {
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> result = flink.executeSql(query).collect()) {
      result.forEachRemaining(rows::add);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }
}
