package io.lakestream.flight.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.flight.server.LakestreamFlightSqlProducer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TableReferencesTest {
  private static Connection duckdb;

  @BeforeAll
  static void open() throws SQLException {
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  static void close() throws SQLException {
    duckdb.close();
  }

  @Test
  void findsQualifiedTablesInJoinsSubqueriesAndCommonTableExpressions() {
    assertThat(
            TableReferences.of(
                duckdb,
                "WITH recent AS (SELECT * FROM app.events WHERE ts > 0)"
                    + " SELECT r.id, 'other.not_a_table', u.name FROM recent r"
                    + " JOIN \"lake\".app.users u ON r.id = u.id"
                    + " WHERE r.id IN (SELECT id FROM app.events)"
                    + " AND EXISTS (SELECT 1 FROM crm.accounts a WHERE a.id = u.id)"))
        .containsExactly(
            new TableReference("", "app", "events"),
            new TableReference("lake", "app", "users"),
            new TableReference("", "crm", "accounts"));
  }

  @Test
  void leavesUnqualifiedAndSystemNamesToDuckDb() {
    assertThat(
            TableReferences.of(
                duckdb, "SELECT * FROM plain, information_schema.tables, memory.main.t, range(3)"))
        .isEmpty();
  }

  @Test
  void refusesWhatIsNotOneQuery() {
    assertThatThrownBy(() -> TableReferences.of(duckdb, "SELEC 1"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("syntax error");
    assertThatThrownBy(() -> TableReferences.of(duckdb, "DROP TABLE app.events"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Only queries");
    assertThatThrownBy(() -> TableReferences.of(duckdb, "SELECT 1; SELECT 2"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Expected one statement");
  }

  @Test
  void likePatternsMatchAsSqlDoes() {
    assertThat(LakestreamFlightSqlProducer.like(true, "ev%").matcher("events").matches()).isTrue();
    assertThat(LakestreamFlightSqlProducer.like(true, "ev_nts").matcher("events").matches())
        .isTrue();
    assertThat(LakestreamFlightSqlProducer.like(true, "ev_").matcher("events").matches()).isFalse();
    assertThat(LakestreamFlightSqlProducer.like(true, "a\\_b").matcher("axb").matches()).isFalse();
    assertThat(LakestreamFlightSqlProducer.like(true, "a.b").matcher("axb").matches()).isFalse();
    assertThat(LakestreamFlightSqlProducer.like(false, "").matcher("anything").matches()).isTrue();
  }
}
