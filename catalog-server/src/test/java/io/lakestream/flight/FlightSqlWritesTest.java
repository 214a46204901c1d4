package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TablePath;
import io.lakestream.testing.EmbeddedLakestream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL and DML through SQL over the Arrow Flight SQL JDBC driver, as JDBC users write them: {@code
 * CREATE TABLE} makes log and primary-key tables the catalog then holds, {@code INSERT} appends or
 * upserts (from {@code VALUES} or a query over other tables), {@code DELETE} removes keys of a
 * primary-key table, {@code DROP TABLE} drops; every result is checked against what the test wrote,
 * and bad statements fail clearly without writing anything.
 */
class FlightSqlWritesTest {
  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;
  private static String url;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("w"), new HashMap<>());
    url =
        "jdbc:arrow-flight-sql://127.0.0.1:"
            + lakestream.server().flightPort()
            + "?useEncryption=false";
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static int update(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      return statement.executeUpdate(sql);
    }
  }

  private static List<List<Object>> query(Connection connection, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          Object value = result.getObject(i);
          // Sums of integers come back as DECIMAL(38, 0) (DuckDB's HUGEINT): compare as longs.
          if (value instanceof BigDecimal decimal && decimal.scale() == 0) {
            value = decimal.longValueExact();
          } else if (value instanceof Number number && !(value instanceof BigDecimal)) {
            value = number.longValue();
          }
          row.add(value);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  @Test
  void createInsertQueryAndDropALogTable() throws SQLException {
    try (Connection connection = DriverManager.getConnection(url)) {
      assertThat(
              update(
                  connection,
                  "CREATE TABLE w.events (id BIGINT NOT NULL, category VARCHAR, amount"
                      + " DECIMAL(10, 2)) WITH ('lakestream.buckets' = '3')"))
          .isZero();
      Table table = catalog.loadTable(TableIdentifier.of("w", "events"));
      assertThat(table.properties())
          .containsEntry("lakestream.kind", "log")
          .containsEntry("lakestream.buckets", "3");
      assertThat(table.schema().findField("id").isRequired()).isTrue();

      assertThat(
              update(
                  connection,
                  "INSERT INTO w.events VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, NULL, NULL)"))
          .isEqualTo(3);
      assertThat(
              update(
                  connection,
                  "INSERT INTO w.events (category, id) SELECT 'gen', range + 100 FROM range(200)"))
          .isEqualTo(200);
      long generated = 0;
      for (long id = 100; id < 300; id++) {
        generated += id;
      }
      assertThat(query(connection, "SELECT count(*), sum(id), sum(amount) FROM w.events"))
          .containsExactly(List.of(203L, 6 + generated, new BigDecimal("3.75")));
      assertThat(
              query(
                  connection,
                  "SELECT category, count(*) FROM w.events GROUP BY category ORDER BY category"))
          .containsExactly(
              List.of("a", 1L), List.of("b", 1L), List.of("gen", 200L), nullRow(null, 1L));

      // Bad rows write nothing: a NOT NULL column left out, a value that is not a number.
      assertThatThrownBy(() -> update(connection, "INSERT INTO w.events (category) VALUES ('x')"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("NOT NULL");
      assertThatThrownBy(
              () -> update(connection, "INSERT INTO w.events VALUES (4, 'c', 1), ('x', 'd', 2)"))
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> update(connection, "DELETE FROM w.events WHERE id = 1"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("primary-key table");
      assertThat(query(connection, "SELECT count(*) FROM w.events")).containsExactly(List.of(203L));

      assertThatThrownBy(() -> update(connection, "CREATE TABLE w.events (id BIGINT)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("already exists");
      assertThat(update(connection, "CREATE TABLE IF NOT EXISTS w.events (id BIGINT)")).isZero();

      assertThat(update(connection, "DROP TABLE w.events")).isZero();
      assertThat(catalog.tableExists(TableIdentifier.of("w", "events"))).isFalse();
      assertThatThrownBy(() -> query(connection, "SELECT count(*) FROM w.events"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("does not exist");
      assertThat(update(connection, "DROP TABLE IF EXISTS w.events")).isZero();
      assertThatThrownBy(() -> update(connection, "DROP TABLE w.events"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("does not exist");
    }
  }

  private static List<Object> nullRow(Object first, Object second) {
    List<Object> row = new ArrayList<>();
    row.add(first);
    row.add(second);
    return row;
  }

  @Test
  void partitionedByColumnsAndDaysRowsLandInTheirPartitions() throws SQLException {
    try (Connection connection = DriverManager.getConnection(url)) {
      assertThat(
              update(
                  connection,
                  "CREATE TABLE w.visits (id BIGINT NOT NULL, region VARCHAR NOT NULL,"
                      + " visited TIMESTAMP) PARTITIONED BY (region, day(visited)) WITH"
                      + " ('lakestream.buckets' = '2')"))
          .isZero();
      Table table = catalog.loadTable(TableIdentifier.of("w", "visits"));
      assertThat(table.spec().fields())
          .extracting(
              field ->
                  field.transform() + "(" + table.schema().findColumnName(field.sourceId()) + ")")
          .containsExactly("identity(region)", "day(visited)");
      assertThat(table.properties()).containsEntry("lakestream.buckets", "2");

      assertThat(
              update(
                  connection,
                  "INSERT INTO w.visits VALUES (1, 'eu', TIMESTAMP '2026-11-01 10:00:00'),"
                      + " (2, 'us', TIMESTAMP '2026-11-01 11:00:00'),"
                      + " (3, 'eu', TIMESTAMP '2026-11-02 09:00:00'),"
                      + " (4, 'eu', TIMESTAMP '2026-11-02 23:59:59')"))
          .isEqualTo(4);
      assertThat(
              query(
                  connection,
                  "SELECT region, count(*), sum(id) FROM w.visits GROUP BY region ORDER BY region"))
          .containsExactly(List.of("eu", 3L, 8L), List.of("us", 1L, 2L));
      // One stream partition per region and day.
      assertThat(lakestream.connection().table(TablePath.of("w.visits")).partitions()).hasSize(3);

      // A column that does not exist or a transform streams do not have: nothing is created.
      assertThatThrownBy(
              () -> update(connection, "CREATE TABLE w.bad (id BIGINT) PARTITIONED BY (missing)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Invalid PARTITIONED BY");
      assertThatThrownBy(
              () ->
                  update(connection, "CREATE TABLE w.bad (id BIGINT) PARTITIONED BY (bucket(id))"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Unsupported partition transform bucket");
      assertThat(catalog.tableExists(TableIdentifier.of("w", "bad"))).isFalse();
      update(connection, "DROP TABLE w.visits");
    }
  }

  @Test
  void anInsertWhoseRowsFailPartWaySaysWhyAndWritesNothing() throws SQLException {
    try (Connection connection = DriverManager.getConnection(url)) {
      update(connection, "CREATE TABLE w.texts (s VARCHAR NOT NULL)");
      update(connection, "INSERT INTO w.texts SELECT range::VARCHAR FROM range(900000)");
      update(connection, "INSERT INTO w.texts VALUES ('x')");
      update(connection, "CREATE TABLE w.counts (n INTEGER NOT NULL)");
      // The last of 900,001 rows does not cast: long after the first batches of the result.
      assertThatThrownBy(
              () ->
                  update(connection, "INSERT INTO w.counts SELECT CAST(s AS INTEGER) FROM w.texts"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Could not convert string 'x'");
      assertThat(query(connection, "SELECT count(*) FROM w.counts")).containsExactly(List.of(0L));
      update(connection, "DROP TABLE w.counts");
      update(connection, "DROP TABLE w.texts");
    }
  }

  @Test
  void primaryKeyTablesUpsertAndDeleteByKey() throws SQLException {
    Map<Long, Object[]> model = new TreeMap<>();
    try (Connection connection = DriverManager.getConnection(url)) {
      update(
          connection,
          "CREATE TABLE w.users (id BIGINT PRIMARY KEY, name VARCHAR, score INTEGER)"
              + " WITH ('lakestream.buckets' = '2')");
      Table table = catalog.loadTable(TableIdentifier.of("w", "users"));
      assertThat(table.properties()).containsEntry("lakestream.kind", "primary-key");
      assertThat(table.schema().identifierFieldNames()).containsExactly("id");

      assertThat(
              update(
                  connection,
                  "INSERT INTO w.users SELECT range, 'user ' || range, range * 10 FROM range(60)"))
          .isEqualTo(60);
      for (long id = 0; id < 60; id++) {
        model.put(id, new Object[] {"user " + id, id * 10});
      }
      // An upsert of existing keys replaces their rows.
      assertThat(
              update(
                  connection,
                  "INSERT INTO w.users (id, name) SELECT id, 'renamed' FROM w.users WHERE id >= 50"))
          .isEqualTo(10);
      for (long id = 50; id < 60; id++) {
        model.put(id, new Object[] {"renamed", null});
      }
      assertThat(update(connection, "DELETE FROM w.users AS u WHERE u.id % 3 = 0")).isEqualTo(20);
      model.keySet().removeIf(id -> id % 3 == 0);
      // UPDATE rewrites the assigned columns of the rows its condition selects, keeps the others.
      assertThat(
              update(
                  connection,
                  "UPDATE w.users SET score = score + 1, name = upper(name) WHERE id < 10"))
          .isEqualTo(6);
      for (long id = 0; id < 10; id++) {
        Object[] row = model.get(id);
        if (row != null) {
          model.put(id, new Object[] {((String) row[0]).toUpperCase(Locale.ROOT), id * 10 + 1});
        }
      }
      // Commas and the word WHERE inside a string or a call are part of the value.
      assertThat(
              update(
                  connection,
                  "UPDATE w.users AS u SET name = concat('a, where ', 'b'), score = greatest(1, 2)"
                      + " WHERE u.id = 11"))
          .isEqualTo(1);
      model.put(11L, new Object[] {"a, where b", 2L});
      assertThatThrownBy(() -> update(connection, "UPDATE w.users SET id = 5 WHERE id = 1"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("UPDATE cannot change primary-key column id");
      assertThatThrownBy(() -> update(connection, "UPDATE w.users SET score = 'many'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Could not convert string 'many'");
      update(connection, "CREATE TABLE w.appended (id BIGINT, v VARCHAR)");
      assertThatThrownBy(() -> update(connection, "UPDATE w.appended SET v = 'x'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("UPDATE needs a primary-key table");

      List<List<Object>> expected = new ArrayList<>();
      model.forEach(
          (id, row) -> {
            List<Object> values = new ArrayList<>();
            values.add(id);
            values.add(row[0]);
            values.add(row[1]);
            expected.add(values);
          });
      assertThat(query(connection, "SELECT id, name, score FROM w.users ORDER BY id"))
          .isEqualTo(expected);
      assertThat(update(connection, "DELETE FROM w.users WHERE id > 1000")).isZero();
    }
  }

  @Test
  void preparedDeleteAndUpdateBindTheirParametersInTheOrderWritten() throws SQLException {
    try (Connection connection = DriverManager.getConnection(url)) {
      // The table's columns are in another order than the statements name them.
      update(
          connection, "CREATE TABLE w.scores (id BIGINT PRIMARY KEY, score INTEGER, name VARCHAR)");
      update(connection, "INSERT INTO w.scores SELECT range, range, 'n' || range FROM range(10)");
      Map<Long, List<Object>> model = new TreeMap<>();
      for (long id = 0; id < 10; id++) {
        model.put(id, List.of(id, id, "n" + id));
      }
      try (PreparedStatement set =
          connection.prepareStatement(
              "UPDATE w.scores SET name = concat('why? ', ?), score = ? WHERE id = ?")) {
        assertThat(set.getParameterMetaData().getParameterCount()).isEqualTo(3);
        for (long id : new long[] {2, 7}) {
          set.setString(1, "row " + id);
          set.setInt(2, (int) id * 100);
          set.setLong(3, id);
          assertThat(set.executeUpdate()).isEqualTo(1);
          model.put(id, List.of(id, id * 100, "why? row " + id));
        }
      }
      try (PreparedStatement delete =
          connection.prepareStatement("DELETE FROM w.scores WHERE id < ? OR name = ?")) {
        delete.setLong(1, 2);
        delete.setString(2, "why? row 7");
        assertThat(delete.executeUpdate()).isEqualTo(3);
        model.keySet().removeIf(id -> id < 2 || id == 7);
      }
      assertThat(query(connection, "SELECT id, score, name FROM w.scores ORDER BY id"))
          .isEqualTo(new ArrayList<>(model.values()));
      // A statement run without its parameters says so and changes nothing.
      assertThatThrownBy(() -> update(connection, "DELETE FROM w.scores WHERE id = ?"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("parameter");
      assertThat(query(connection, "SELECT count(*) FROM w.scores"))
          .containsExactly(List.of((long) model.size()));
    }
  }

  @Test
  void unprepareableStatementsAndOtherWritesFailClearly() throws Exception {
    try (Connection connection = DriverManager.getConnection(url)) {
      assertThatThrownBy(
              () ->
                  update(
                      connection, "MERGE INTO w.x USING w.y ON x.a = y.a WHEN MATCHED DO NOTHING"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("MERGE is not supported");
      assertThatThrownBy(() -> update(connection, "CREATE TABLE w.bad (a HUGEINT)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Column a has type HUGEINT");
      assertThatThrownBy(() -> update(connection, "INSERT INTO w.missing VALUES (1)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("does not exist");
      assertThat(catalog.tableExists(TableIdentifier.of("w", "bad"))).isFalse();
    }
    // The plain (unprepared) update command of Flight SQL runs the same statements.
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        allocator,
                        Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
                    .build())) {
      assertThat(client.executeUpdate("CREATE TABLE w.plain (id BIGINT, v VARCHAR)")).isZero();
      assertThat(client.executeUpdate("INSERT INTO w.plain VALUES (7, 'x'), (8, 'y')"))
          .isEqualTo(2);
      assertThatThrownBy(() -> client.executeUpdate("SELECT 1")).hasMessageContaining("is a query");
    }
    try (Connection connection = DriverManager.getConnection(url)) {
      assertThat(query(connection, "SELECT sum(id), string_agg(v, ',' ORDER BY v) FROM w.plain"))
          .containsExactly(List.of(15L, "x,y"));
    }
  }
}
