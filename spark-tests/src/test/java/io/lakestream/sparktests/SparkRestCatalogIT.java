package io.lakestream.sparktests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Spark 4.0 in local mode with Iceberg's Spark runtime, using a real Lakestream server process as
 * its Iceberg REST catalog ({@code type=rest}). The server and the Spark session are the module's
 * shared ones ({@link SharedSpark}); catalog caching is off, so each statement goes through the
 * server.
 */
@ExtendWith(SharedSpark.Resolver.class)
class SparkRestCatalogIT {
  private static final Pattern CURRENT_SNAPSHOT_ID =
      Pattern.compile("\"current-snapshot-id\"\\s*:\\s*(-?\\d+)");

  private static ServerProcess server;
  private static SparkSession spark;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start(SharedSpark shared) {
    server = shared.server();
    spark = shared.spark();
  }

  /**
   * Proves the acceptance path: Spark creates a namespace and a table through the REST catalog,
   * inserts, adds a column (schema evolution committed to the server), inserts again, and reads
   * back exactly the rows written, with nulls for the new column in the old rows; the table has one
   * snapshot per insert, and time travel to the first snapshot sees the old schema and rows.
   */
  @Test
  void createInsertEvolveSchemaAndReadBack() {
    sql("CREATE NAMESPACE lake.evolve");
    sql("CREATE TABLE lake.evolve.events (id BIGINT, name STRING) USING iceberg");
    sql("INSERT INTO lake.evolve.events VALUES (1, 'a'), (2, 'b')");
    sql("ALTER TABLE lake.evolve.events ADD COLUMN score DOUBLE");
    sql("INSERT INTO lake.evolve.events VALUES (3, 'c', 0.5)");

    assertThat(spark.table("lake.evolve.events").schema().fieldNames())
        .containsExactly("id", "name", "score");
    assertThat(sql("SELECT id, name, score FROM lake.evolve.events ORDER BY id"))
        .containsExactly(row(1L, "a", null), row(2L, "b", null), row(3L, "c", 0.5));

    List<List<Object>> snapshots =
        sql(
            "SELECT snapshot_id, operation FROM lake.evolve.events.snapshots ORDER BY committed_at");
    assertThat(snapshots)
        .extracting(snapshot -> snapshot.get(1))
        .containsExactly("append", "append");
    Object firstSnapshot = snapshots.get(0).get(0);
    assertThat(
            sql("SELECT * FROM lake.evolve.events VERSION AS OF " + firstSnapshot + " ORDER BY id"))
        .containsExactly(row(1L, "a"), row(2L, "b"));
  }

  /**
   * Proves that row-level changes commit through the server: on a partitioned table, a DELETE and
   * an UPDATE each add a snapshot, reads see exactly the surviving rows, and the server's own table
   * metadata names the snapshot Spark read last as the current one.
   */
  @Test
  void deleteAndUpdateCommitNewSnapshots() throws IOException, InterruptedException {
    sql("CREATE NAMESPACE lake.dml");
    sql(
        "CREATE TABLE lake.dml.orders (id BIGINT, status STRING, amount DECIMAL(10,2)) "
            + "USING iceberg PARTITIONED BY (status)");
    sql(
        "INSERT INTO lake.dml.orders VALUES "
            + "(1, 'open', 10.50), (2, 'open', 20.00), (3, 'closed', 5.25), (4, 'closed', 7.75)");
    sql("DELETE FROM lake.dml.orders WHERE id = 2");
    sql("UPDATE lake.dml.orders SET amount = amount + 1 WHERE status = 'closed'");

    assertThat(sql("SELECT id, status, amount FROM lake.dml.orders ORDER BY id"))
        .containsExactly(
            row(1L, "open", new BigDecimal("10.50")),
            row(3L, "closed", new BigDecimal("6.25")),
            row(4L, "closed", new BigDecimal("8.75")));

    List<List<Object>> snapshots =
        sql("SELECT snapshot_id, operation FROM lake.dml.orders.snapshots ORDER BY committed_at");
    // Copy-on-write (Spark's default): the DELETE and the UPDATE each rewrite a partition's file.
    assertThat(snapshots)
        .extracting(snapshot -> snapshot.get(1))
        .containsExactly("append", "overwrite", "overwrite");
    long lastSnapshot = (Long) snapshots.get(2).get(0);
    assertThat(currentSnapshotIdOnServer("dml", "orders")).isEqualTo(lastSnapshot);
  }

  /**
   * Proves that namespace and table listing, table properties and drops go through the catalog:
   * what Spark lists and reads matches what it created, and a dropped table is gone from the server
   * (404), not only from Spark.
   */
  @Test
  void listsSetsPropertiesAndDropsTables() throws IOException, InterruptedException {
    sql("CREATE NAMESPACE lake.listing");
    sql("CREATE TABLE lake.listing.kept (id INT) USING iceberg");
    sql("CREATE TABLE lake.listing.dropped (id INT) USING iceberg");
    sql("ALTER TABLE lake.listing.kept SET TBLPROPERTIES ('app.owner' = 'spark-it')");

    assertThat(sql("SHOW NAMESPACES IN lake")).contains(row("listing"));
    assertThat(sql("SHOW TABLES IN lake.listing"))
        .extracting(table -> table.get(1))
        .containsExactlyInAnyOrder("kept", "dropped");
    assertThat(sql("SHOW TBLPROPERTIES lake.listing.kept ('app.owner')"))
        .containsExactly(row("app.owner", "spark-it"));

    // lakestream.* properties belong to stream tables: Spark gets the catalog's 400 with its
    // reason.
    assertThatThrownBy(
            () ->
                sql("ALTER TABLE lake.listing.kept SET TBLPROPERTIES ('lakestream.buckets' = '2')"))
        .hasMessageContaining("lakestream.buckets needs lakestream.kind=log or primary-key");

    sql("DROP TABLE lake.listing.dropped");

    assertThat(sql("SHOW TABLES IN lake.listing"))
        .extracting(table -> table.get(1))
        .containsExactly("kept");
    assertThat(getTable("listing", "dropped").statusCode()).isEqualTo(404);
  }

  private static List<List<Object>> sql(String statement) {
    List<List<Object>> rows = new ArrayList<>();
    for (Row row : spark.sql(statement).collectAsList()) {
      rows.add(IntStream.range(0, row.length()).mapToObj(row::get).toList());
    }
    return rows;
  }

  /** A row for comparison with {@link #sql}; unlike {@code List.of} it admits nulls. */
  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static long currentSnapshotIdOnServer(String namespace, String table)
      throws IOException, InterruptedException {
    HttpResponse<String> response = getTable(namespace, table);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    Matcher matcher = CURRENT_SNAPSHOT_ID.matcher(response.body());
    assertThat(matcher.find()).as("current-snapshot-id in " + response.body()).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  private static HttpResponse<String> getTable(String namespace, String table)
      throws IOException, InterruptedException {
    URI uri =
        URI.create(server.baseUri() + "/v1/default/namespaces/" + namespace + "/tables/" + table);
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
