package io.lakestream.flight.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The columns a query may read ({@link TableReferences.Parsed}), which decide what of a log tail is
 * copied into DuckDB: a superset of what the query uses, all columns whenever it may use columns it
 * does not name.
 */
class QueryColumnsTest {
  private static Connection duckdb;

  @BeforeAll
  static void open() throws SQLException {
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  static void close() throws SQLException {
    duckdb.close();
  }

  private static TableReferences.Parsed parse(String sql) {
    return TableReferences.parse(duckdb, sql);
  }

  @Test
  void namedColumnsQualifiedOrNotInSelectWhereJoinAndGroupBy() {
    TableReferences.Parsed parsed =
        parse(
            "SELECT e.category, sum(B0) FROM app.events e JOIN app.users u USING (user_id)"
                + " WHERE e.id > 3 AND u.name LIKE 'a%' GROUP BY e.category");
    assertThat(parsed.allColumns()).isFalse();
    for (String column : new String[] {"category", "b0", "user_id", "id", "name", "ID"}) {
      assertThat(parsed.reads(column)).as(column).isTrue();
    }
    assertThat(parsed.reads("padding")).isFalse();
  }

  @Test
  void countStarNeedsNoColumn() {
    TableReferences.Parsed parsed = parse("SELECT count(*) FROM app.events");
    assertThat(parsed.allColumns()).isFalse();
    assertThat(parsed.reads("id")).isFalse();
  }

  @Test
  void structFieldsKeepTheirColumn() {
    assertThat(parse("SELECT address.city FROM app.users").reads("address")).isTrue();
  }

  @Test
  void queriesThatMayReadUnnamedColumnsReadAll() {
    for (String sql :
        new String[] {
          "SELECT * FROM app.events",
          "SELECT e.* FROM app.events e",
          "SELECT COLUMNS('b.*') FROM app.events",
          "SELECT e FROM app.events e",
          "SELECT to_json(events) FROM app.events",
          "SELECT #1 FROM app.events",
          "SELECT 1 FROM app.events NATURAL JOIN app.users",
          "SELECT a FROM app.events AS x(a, b)",
          "SELECT id FROM (SELECT * FROM app.events) s"
        }) {
      assertThat(parse(sql).allColumns()).as(sql).isTrue();
    }
  }
}
