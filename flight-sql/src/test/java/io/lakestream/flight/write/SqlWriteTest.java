package io.lakestream.flight.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.SqlTokens;
import io.lakestream.flight.sql.TableReference;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which statements are writes, and how their heads are taken apart (with a real DuckDB). */
class SqlWriteTest {
  private Connection duckdb;

  @BeforeEach
  void open() throws SQLException {
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterEach
  void close() throws SQLException {
    duckdb.close();
  }

  private SqlWrite parse(String sql) {
    return SqlWrite.parse(duckdb, sql).orElseThrow();
  }

  @Test
  void parametersAreNumberedInOrderOutsideQuotes() {
    assertThat(SqlTokens.numberParameters("a = ? AND b = '?' AND \"c?\" = ?", 3))
        .isEqualTo(new SqlTokens.Numbered("a = $3 AND b = '?' AND \"c?\" = $4", 2));
    assertThat(SqlTokens.numberParameters("f(?, (?))", 1))
        .isEqualTo(new SqlTokens.Numbered("f($1, ($2))", 2));
    assertThat(SqlTokens.numberParameters("no parameters", 1))
        .isEqualTo(new SqlTokens.Numbered("no parameters", 0));
    assertThat(SqlTokens.numberParameters("", 1)).isEqualTo(new SqlTokens.Numbered("", 0));
  }

  @Test
  void queriesAreNotWrites() {
    assertThat(SqlWrite.parse(duckdb, "SELECT 1")).isEmpty();
    assertThat(SqlWrite.parse(duckdb, " -- note\n WITH x AS (SELECT 1) SELECT * FROM x")).isEmpty();
    assertThat(SqlWrite.parse(duckdb, "VALUES (1)")).isEmpty();
  }

  @Test
  void createTableReadsColumnsPrimaryKeyAndProperties() {
    SqlWrite.CreateTable create =
        (SqlWrite.CreateTable)
            parse(
                "/* c */ create table if not exists wh.\"App\".users (id BIGINT PRIMARY KEY,"
                    + " name VARCHAR NOT NULL, score DECIMAL(12, 2), seen TIMESTAMPTZ, tags"
                    + " VARCHAR) WITH ('lakestream.buckets' = '4', lakestream.merge-engine ="
                    + " 'first-row');");
    assertThat(create.table()).isEqualTo(new TableReference("wh", "App", "users"));
    assertThat(create.ifNotExists()).isTrue();
    Schema expected =
        new Schema(
            java.util.List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "name", Types.StringType.get()),
                Types.NestedField.optional(3, "score", Types.DecimalType.of(12, 2)),
                Types.NestedField.optional(4, "seen", Types.TimestampType.withZone()),
                Types.NestedField.optional(5, "tags", Types.StringType.get())),
            java.util.Set.of(1));
    assertThat(create.schema().sameSchema(expected)).as("%s", create.schema()).isTrue();
    assertThat(create.schema().identifierFieldIds()).containsExactly(1);
    assertThat(create.properties())
        .containsExactly(
            Map.entry("lakestream.buckets", "4"),
            Map.entry("lakestream.merge-engine", "first-row"));
  }

  @Test
  void badDefinitionsAreClearErrors() {
    assertThatThrownBy(() -> parse("CREATE TABLE s.t (a HUGEINT)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Column a has type HUGEINT");
    assertThatThrownBy(() -> parse("CREATE TABLE s.t (a NOSUCHTYPE)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Invalid column definitions");
    assertThatThrownBy(() -> parse("CREATE TABLE t (a INT)"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("namespace.table");
    assertThatThrownBy(() -> parse("CREATE TABLE s.t AS SELECT 1"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("INSERT INTO");
    assertThatThrownBy(() -> parse("CREATE VIEW s.v AS SELECT 1"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Only CREATE TABLE");
    assertThatThrownBy(() -> parse("MERGE INTO s.t USING s.u ON t.a = u.a"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("MERGE is not supported");
    assertThatThrownBy(() -> parse("UPDATE s.t a = 1"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Expected UPDATE table SET");
    assertThatThrownBy(() -> parse("UPDATE s.t SET a = 1 WHERE "))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("WHERE without a condition");
    assertThatThrownBy(() -> parse("UPDATE s.t SET a = 1, A = 2"))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("Column A is set twice");
    assertThatThrownBy(() -> parse("UPDATE s.t SET a ="))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("No value for column a");
  }

  @Test
  void updateSplitsItsAssignmentsAndConditionOutsideQuotesAndParentheses() {
    assertThat(
            parse(
                "UPDATE s.t AS x SET a = f(1, 2), b = 'w, where c' , \"where\" = (SELECT 1 WHERE"
                    + " true) WHERE x.a > 1 AND x.b <> 'where'"))
        .isEqualTo(
            new SqlWrite.Update(
                new TableReference("", "s", "t"),
                "x",
                Map.of("a", "f(1, 2)", "b", "'w, where c'", "where", "(SELECT 1 WHERE true)"),
                "x.a > 1 AND x.b <> 'where'"));
    assertThat(parse("update s.t set a = a + 1"))
        .isEqualTo(
            new SqlWrite.Update(new TableReference("", "s", "t"), "", Map.of("a", "a + 1"), ""));
  }

  @Test
  void dropInsertAndDeleteHeads() {
    assertThat(parse("DROP TABLE IF EXISTS s.t;"))
        .isEqualTo(new SqlWrite.DropTable(new TableReference("", "s", "t"), true));
    assertThat(parse("insert into s.t (a, b) select x, y from s.u where x > 1"))
        .isEqualTo(
            new SqlWrite.Insert(
                new TableReference("", "s", "t"), "(a, b)", "select x, y from s.u where x > 1"));
    assertThat(parse("INSERT INTO s.t VALUES (1, 'a'), (2, 'b')"))
        .isEqualTo(
            new SqlWrite.Insert(new TableReference("", "s", "t"), "", "VALUES (1, 'a'), (2, 'b')"));
    assertThat(parse("INSERT INTO s.t (SELECT 1)"))
        .isEqualTo(new SqlWrite.Insert(new TableReference("", "s", "t"), "", "(SELECT 1)"));
    assertThat(parse("DELETE FROM s.t AS x WHERE x.id IN (SELECT id FROM s.u)"))
        .isEqualTo(
            new SqlWrite.Delete(
                new TableReference("", "s", "t"), "x", "x.id IN (SELECT id FROM s.u)"));
    assertThat(parse("DELETE FROM s.t"))
        .isEqualTo(new SqlWrite.Delete(new TableReference("", "s", "t"), "", ""));
  }
}
