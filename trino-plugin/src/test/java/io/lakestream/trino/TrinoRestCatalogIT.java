package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.TrinoCatalogContract;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino 483's Iceberg connector ({@code iceberg.catalog.type=rest}) in an in-JVM query runner,
 * using a real Lakestream server process as its catalog; table data lives on the local file system
 * under the server's {@code file:} warehouse. The server, the query runner and the Spark SQL
 * session in a separate JVM (see {@link SparkSqlProcess}), for the tests that need tables another
 * engine made or reads by another engine, are the module's shared ones ({@link SharedTrino}). What
 * every tested Trino release must do is in {@link TrinoCatalogContract}.
 */
@ExtendWith(SharedTrino.Resolver.class)
class TrinoRestCatalogIT extends TrinoCatalogContract {
  private static final Duration SPARK_STATEMENT_TIMEOUT = Duration.ofMinutes(3);
  private static final Pattern CURRENT_SNAPSHOT_ID =
      Pattern.compile("\"current-snapshot-id\"\\s*:\\s*(-?\\d+)");

  private static ServerProcess server;
  private static QueryRunner trino;
  private static SparkSqlProcess spark;
  private static final HttpClient http = HttpClient.newHttpClient();

  TrinoRestCatalogIT() {
    super("483");
  }

  @BeforeAll
  static void start(SharedTrino shared) {
    server = shared.server();
    trino = shared.trino();
    spark = shared.spark();
  }

  /**
   * Proves that Trino alone can use Lakestream as its Iceberg catalog: it creates a schema and a
   * partitioned table, inserts, adds a column, inserts again and deletes a row, and reads back
   * exactly the surviving rows with nulls for the new column in old rows; each write is one
   * snapshot in order, and the server's metadata names Trino's last snapshot as the current one.
   */
  @Test
  void createsInsertsEvolvesDeletesAndSelects() throws IOException, InterruptedException {
    execute("CREATE SCHEMA lake.trino_own");
    execute(
        "CREATE TABLE lake.trino_own.orders (id BIGINT, customer VARCHAR, total DECIMAL(12,2)) "
            + "WITH (partitioning = ARRAY['customer'])");
    assertThat(
            execute(
                "INSERT INTO lake.trino_own.orders VALUES "
                    + "(1, 'ann', 10.50), (2, 'bob', 20.00), (3, 'ann', 7.25)"))
        .as("rows inserted")
        .containsExactly(row(3L));
    execute("ALTER TABLE lake.trino_own.orders ADD COLUMN note VARCHAR");
    execute("INSERT INTO lake.trino_own.orders VALUES (4, 'cid', 1.00, 'rush')");
    execute("DELETE FROM lake.trino_own.orders WHERE id = 2");

    assertThat(execute("SELECT id, customer, total, note FROM lake.trino_own.orders ORDER BY id"))
        .containsExactly(
            row(1L, "ann", new BigDecimal("10.50"), null),
            row(3L, "ann", new BigDecimal("7.25"), null),
            row(4L, "cid", new BigDecimal("1.00"), "rush"));
    assertThat(execute("SHOW TABLES FROM lake.trino_own")).containsExactly(row("orders"));

    // Trino commits an empty snapshot when it creates a table; then one per write.
    List<List<Object>> snapshots =
        execute(
            "SELECT snapshot_id, operation FROM lake.trino_own.\"orders$snapshots\" "
                + "ORDER BY committed_at");
    assertThat(snapshots)
        .extracting(snapshot -> snapshot.get(1))
        .containsExactly("append", "append", "append", "delete");
    assertThat(currentSnapshotIdOnServer("trino_own", "orders"))
        .isEqualTo(snapshots.get(snapshots.size() - 1).get(0));
  }

  /**
   * Proves that Trino sees the tables Spark made through the same catalog: the namespace and both
   * tables are listed; a partitioned table whose schema Spark evolved reads back with Spark's
   * columns in order, its exact rows and nulls in the added column; and a merge-on-read table from
   * which Spark deleted a row through a position delete file reads back without that row.
   */
  @Test
  void seesTablesSparkMade() throws IOException, InterruptedException {
    sparkSql(
        "CREATE NAMESPACE lake.from_spark",
        "CREATE TABLE lake.from_spark.trips (id BIGINT, city STRING, fare DECIMAL(10,2), day DATE) "
            + "USING iceberg PARTITIONED BY (city)",
        "INSERT INTO lake.from_spark.trips VALUES (1, 'berlin', 12.50, DATE '2025-01-01'), "
            + "(2, 'paris', 8.00, DATE '2025-01-02'), (3, 'berlin', 30.25, DATE '2025-01-03')",
        "ALTER TABLE lake.from_spark.trips ADD COLUMN rating INT",
        "INSERT INTO lake.from_spark.trips VALUES (4, 'paris', 15.75, DATE '2025-01-04', 5)",
        "CREATE TABLE lake.from_spark.accounts (id BIGINT, owner STRING) USING iceberg "
            + "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')",
        "INSERT INTO lake.from_spark.accounts VALUES (1, 'ann'), (2, 'bob'), (3, 'cid')",
        "DELETE FROM lake.from_spark.accounts WHERE id = 2");

    assertThat(execute("SHOW SCHEMAS FROM lake")).contains(row("from_spark"));
    assertThat(execute("SHOW TABLES FROM lake.from_spark"))
        .containsExactlyInAnyOrder(row("trips"), row("accounts"));
    assertThat(execute("SHOW COLUMNS FROM lake.from_spark.trips"))
        .extracting(column -> column.get(0))
        .containsExactly("id", "city", "fare", "day", "rating");
    assertThat(execute("SELECT id, city, fare, day, rating FROM lake.from_spark.trips ORDER BY id"))
        .containsExactly(
            row(1L, "berlin", new BigDecimal("12.50"), LocalDate.of(2025, 1, 1), null),
            row(2L, "paris", new BigDecimal("8.00"), LocalDate.of(2025, 1, 2), null),
            row(3L, "berlin", new BigDecimal("30.25"), LocalDate.of(2025, 1, 3), null),
            row(4L, "paris", new BigDecimal("15.75"), LocalDate.of(2025, 1, 4), 5));
    assertThat(execute("SELECT count(*) FROM lake.from_spark.trips WHERE city = 'paris'"))
        .containsExactly(row(2L));

    assertThat(execute("SELECT count(*) FROM lake.from_spark.\"accounts$files\" WHERE content = 1"))
        .as("position delete files Spark wrote")
        .containsExactly(row(1L));
    assertThat(execute("SELECT id, owner FROM lake.from_spark.accounts ORDER BY id"))
        .containsExactly(row(1L, "ann"), row(3L, "cid"));
  }

  /**
   * Proves the way back: Spark reads exactly the rows Trino wrote to a table Trino created, and
   * appends to it, and Trino then reads Trino's and Spark's rows together.
   */
  @Test
  void sparkReadsAndAppendsToTableTrinoMade() throws IOException, InterruptedException {
    execute("CREATE SCHEMA lake.to_spark");
    execute("CREATE TABLE lake.to_spark.items (id BIGINT, label VARCHAR, price DOUBLE)");
    execute("INSERT INTO lake.to_spark.items VALUES (1, 'one', 1.5), (2, NULL, 2.25)");

    assertThat(sparkSql("SELECT id, label, price FROM lake.to_spark.items ORDER BY id"))
        .containsExactly(List.of("1", "one", "1.5"), List.of("2", "NULL", "2.25"));
    sparkSql("INSERT INTO lake.to_spark.items VALUES (3, 'three', 3.0)");

    assertThat(execute("SELECT id, label, price FROM lake.to_spark.items ORDER BY id"))
        .containsExactly(row(1L, "one", 1.5), row(2L, null, 2.25), row(3L, "three", 3.0));
  }

  /** Runs the statements in Spark in order and returns the rows of the last one. */
  private static List<List<String>> sparkSql(String... statements)
      throws IOException, InterruptedException {
    List<List<String>> rows = List.of();
    for (String statement : statements) {
      rows = spark.execute(statement, SPARK_STATEMENT_TIMEOUT);
    }
    return rows;
  }

  private static List<List<Object>> execute(String sql) {
    return trino.execute(sql).getMaterializedRows().stream()
        .map(MaterializedRow::getFields)
        .toList();
  }

  @Override
  protected List<List<Object>> query(String sql) {
    return execute(sql);
  }

  private static long currentSnapshotIdOnServer(String namespace, String table)
      throws IOException, InterruptedException {
    URI uri =
        URI.create(server.baseUri() + "/v1/default/namespaces/" + namespace + "/tables/" + table);
    HttpResponse<String> response =
        http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    Matcher matcher = CURRENT_SNAPSHOT_ID.matcher(response.body());
    assertThat(matcher.find()).as("current-snapshot-id in " + response.body()).isTrue();
    return Long.parseLong(matcher.group(1));
  }
}
