package io.lakestream.trino;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static io.trino.testing.TestingNames.randomNameSuffix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trino.testing.BaseConnectorTest;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import io.trino.testing.sql.TestTable;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's connector test on the {@code lakestream} catalog ({@link LakestreamQueryRunner}): every
 * query on the TPC-H tables is a union read of Lakestream log tables, part tiered and part in the
 * log, compared with the same query on H2; tables the test creates with {@code CREATE TABLE} are
 * Lakestream log tables too (the default {@code kind}), written through the stream. Where the
 * connector refuses what log tables cannot do, the overrides below assert its own message; where
 * Iceberg's semantics differ from the base's expectations, they assert Iceberg's.
 *
 * <p>Runs in failsafe (it needs the packaged server), one query runner for the class.
 */
@ExtendWith(SharedTrino.Resolver.class)
class LakestreamConnectorTest extends BaseConnectorTest {
  private final SharedTrino shared;

  LakestreamConnectorTest(SharedTrino shared) {
    this.shared = shared;
  }

  @Override
  protected QueryRunner createQueryRunner() throws Exception {
    return LakestreamQueryRunner.create(shared);
  }

  @Override
  protected boolean hasBehavior(TestingConnectorBehavior connectorBehavior) {
    return LakestreamQueryRunner.hasBehavior(connectorBehavior)
        .orElseGet(() -> super.hasBehavior(connectorBehavior));
  }

  /** Iceberg strings have no length. */
  @Override
  protected MaterializedResult getDescribeOrdersResult() {
    return resultBuilder(getSession(), VARCHAR, VARCHAR, VARCHAR, VARCHAR)
        .row("orderkey", "bigint", "", "")
        .row("custkey", "bigint", "", "")
        .row("orderstatus", "varchar", "", "")
        .row("totalprice", "double", "", "")
        .row("orderdate", "date", "", "")
        .row("orderpriority", "varchar", "", "")
        .row("clerk", "varchar", "", "")
        .row("shippriority", "integer", "", "")
        .row("comment", "varchar", "", "")
        .build();
  }

  /** Iceberg strings have no length; the table properties are the lake table's. */
  @Test
  @Override
  public void testShowCreateTable() {
    assertThat((String) computeScalar("SHOW CREATE TABLE orders"))
        .matches(
            LakestreamQueryRunner.showCreateTablePattern(
                "orders",
                "   orderkey bigint,\n   custkey bigint,\n   orderstatus varchar,\n"
                    + "   totalprice double,\n   orderdate date,\n   orderpriority varchar,\n"
                    + "   clerk varchar,\n   shippriority integer,\n   comment varchar\n"));
  }

  /** Iceberg's REST catalog client refuses with its own message. */
  @Test
  @Override
  public void testRenameSchema() {
    assertThatThrownBy(super::testRenameSchema)
        .hasMessageContaining(LakestreamQueryRunner.RENAME_SCHEMA_REFUSED);
  }

  /** Iceberg's REST catalog client refuses with its own message. */
  @Test
  @Override
  public void testMaterializedView() {
    assertThatThrownBy(super::testMaterializedView)
        .hasMessageContaining(LakestreamQueryRunner.MATERIALIZED_VIEW_REFUSED);
  }

  /** Iceberg's REST catalog client refuses with its own message. */
  @Test
  @Override
  public void testFederatedMaterializedView() {
    assertThatThrownBy(super::testFederatedMaterializedView)
        .hasMessageContaining(LakestreamQueryRunner.MATERIALIZED_VIEW_REFUSED);
  }

  /** A namespace of the server has a location and no owner. */
  @Test
  @Override
  public void testShowCreateSchema() {
    assertThat(computeScalar("SHOW CREATE SCHEMA " + LakestreamQueryRunner.SCHEMA).toString())
        .matches("\\QCREATE SCHEMA lakestream.tpch\nWITH (\n   location = '\\E.*/tpch'\n\\)");
  }

  @Override
  protected String errorMessageForInsertIntoNotNullColumn(String columnName) {
    return "NULL value not allowed for NOT NULL column: " + columnName;
  }

  /**
   * The Iceberg connector's refusals of versions a table does not have, and this connector's of any
   * version of a streaming table (a version reads only the lake).
   */
  @Override
  protected void verifyVersionedQueryFailurePermissible(Exception e) {
    assertThat(e)
        .hasMessageMatching(
            "Version pointer type is not supported: .*|Unsupported type for table version: .*"
                + "|No version history table .* at or before .*"
                + "|Iceberg snapshot ID does not exists: .*"
                + "|Cannot find snapshot with reference name: .*"
                + "|(?s)Table .* is a Lakestream streaming table.*");
  }

  /**
   * A version of a streaming table that the lake has (a tiered snapshot) is refused too: reading it
   * would read the lake snapshot without the log.
   */
  @Test
  public void testTimeTravelOnStreamingTableRefused() {
    long snapshot =
        (long)
            computeScalar(
                "SELECT snapshot_id FROM \"nation$snapshots\" ORDER BY committed_at DESC LIMIT 1");
    String refused =
        "(?s)Table tpch.nation is a Lakestream streaming table, whose reads include the log: FOR"
            + " VERSION or TIMESTAMP AS OF reads only a lake snapshot.*";
    assertQueryFails("SELECT * FROM nation FOR VERSION AS OF " + snapshot, refused);
    // Trino refuses a pointer that is not in the past, which the query's own start time may not be.
    assertQueryFails(
        "SELECT * FROM nation FOR TIMESTAMP AS OF current_timestamp - INTERVAL '1' SECOND",
        refused);
  }

  /** Iceberg's optimistic commit: one of two concurrent schema changes fails. */
  @Override
  protected void verifyConcurrentAddColumnFailurePermissible(Exception e) {
    assertThat(e)
        .hasMessageContaining("Commit failed: Requirement failed: last assigned field id changed");
  }

  /** Refused with the connector's own message. */
  @Test
  @Override
  public void verifySupportsDeleteDeclaration() {
    assertThatThrownBy(super::verifySupportsDeleteDeclaration)
        .hasMessageContaining(LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message. */
  @Test
  @Override
  public void verifySupportsRowLevelDeleteDeclaration() {
    assertThatThrownBy(super::verifySupportsRowLevelDeleteDeclaration)
        .hasMessageContaining(LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message. */
  @Test
  @Override
  public void verifySupportsUpdateDeclaration() {
    assertThatThrownBy(super::verifySupportsUpdateDeclaration)
        .hasMessageContaining(LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message. */
  @Test
  @Override
  public void verifySupportsRowLevelUpdateDeclaration() {
    assertThatThrownBy(super::verifySupportsRowLevelUpdateDeclaration)
        .hasMessageContaining(LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message. */
  @Test
  @Override
  public void verifySupportsMergeDeclaration() {
    assertThatThrownBy(super::verifySupportsMergeDeclaration)
        .hasMessageContaining(LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (on {@code nation}, a log table). */
  @Test
  @Override
  public void testTruncateTable() {
    assertQueryFails(
        "TRUNCATE TABLE nation",
        ".*" + Pattern.quote(LakestreamQueryRunner.TRUNCATE_REFUSED) + ".*");
  }

  /** Refused with the connector's own message, even when the table does not exist yet. */
  @Test
  @Override
  public void testCreateOrReplaceTableWhenTableDoesNotExist() {
    String table = "test_create_or_replace_" + randomNameSuffix();
    assertQueryFails(
        "CREATE OR REPLACE TABLE " + table + " (a bigint, b double, c varchar(50))",
        Pattern.quote(LakestreamQueryRunner.REPLACE_REFUSED) + ".* is not supported");
    assertThat(getQueryRunner().tableExists(getSession(), table)).isFalse();
  }

  /** Refused with the connector's own message, even when the table does not exist yet. */
  @Test
  @Override
  public void testCreateOrReplaceTableAsSelectWhenTableDoesNotExists() {
    String table = "test_create_or_replace_" + randomNameSuffix();
    assertQueryFails(
        "CREATE OR REPLACE TABLE " + table + " AS SELECT nationkey, name, regionkey FROM nation",
        Pattern.quote(LakestreamQueryRunner.REPLACE_REFUSED) + ".* is not supported");
    assertThat(getQueryRunner().tableExists(getSession(), table)).isFalse();
  }

  /** Refused with the connector's own message, naming the type. */
  @Test
  @Override
  public void testInsertArray() {
    assertQueryFails(
        "CREATE TABLE test_insert_array_" + randomNameSuffix() + " (a array(bigint))",
        ".* has type \\Qarray(bigint), " + LakestreamQueryRunner.NESTED_TYPE_REFUSED + "\\E.*");
  }

  /** Refused with the connector's own message, naming the type. */
  @Test
  @Override
  public void testInsertMap() {
    assertQueryFails(
        "CREATE TABLE test_insert_map_" + randomNameSuffix() + " (a map(integer, integer))",
        ".* has type \\Qmap(integer, integer), "
            + LakestreamQueryRunner.NESTED_TYPE_REFUSED
            + "\\E.*");
  }

  /** A row column cannot be added to a log table either. */
  @Test
  public void testAddRowColumnRefused() {
    try (TestTable table = newTrinoTable("test_add_row_column_", "(a bigint)")) {
      assertQueryFails(
          "ALTER TABLE " + table.getName() + " ADD COLUMN r row(x integer)",
          ".* has type \\Qrow(\"x\" integer), "
              + LakestreamQueryRunner.NESTED_TYPE_REFUSED
              + "\\E.*");
    }
  }

  /** Refused with the connector's own message (on {@code nation}, a log table). */
  @Test
  @Override
  public void testDropColumn() {
    assertQueryFails(
        "ALTER TABLE nation DROP COLUMN nationkey",
        ".*" + Pattern.quote(LakestreamQueryRunner.columnChangeRefused("DROP COLUMN")));
  }

  /** Refused with the connector's own message (on {@code nation}, a log table). */
  @Test
  @Override
  public void testRenameColumn() {
    assertQueryFails(
        "ALTER TABLE nation RENAME COLUMN nationkey TO test_rename_column",
        ".*" + Pattern.quote(LakestreamQueryRunner.columnChangeRefused("RENAME COLUMN")));
  }

  /** Refused with the connector's own message (on {@code nation}, a log table). */
  @Test
  @Override
  public void testSetColumnType() {
    assertQueryFails(
        "ALTER TABLE nation ALTER COLUMN nationkey SET DATA TYPE bigint",
        ".*" + Pattern.quote(LakestreamQueryRunner.columnChangeRefused("SET DATA TYPE")));
  }

  /**
   * Tables are created in Iceberg format version 2, which has no column defaults: the server
   * refuses the schema (Trino's own refusal, which the base expects, comes only from connectors
   * that declare no default values at all).
   */
  @Test
  @Override
  public void testCreateTableWithDefaultColumn() {
    String table = "test_default_value_" + randomNameSuffix();
    assertQueryFails(
        "CREATE TABLE " + table + " (x int DEFAULT 1)",
        "(?s).*" + Pattern.quote(DEFAULT_VALUE_REFUSED) + ".*");
    assertThat(getQueryRunner().tableExists(getSession(), table)).isFalse();
  }

  /** No column defaults (see {@link #testCreateTableWithDefaultColumn}): nothing to insert into. */
  @Test
  @Override
  public void testInsertForDefaultColumn() {
    String table = "test_default_value_" + randomNameSuffix();
    assertQueryFails(
        "CREATE TABLE " + table + " (col_required bigint, col_default bigint DEFAULT 43)",
        "(?s).*non-null default \\(43\\) is not supported until v3.*");
  }

  private static final String DEFAULT_VALUE_REFUSED =
      "Invalid initial default for x: non-null default (1) is not supported until v3";

  /**
   * Iceberg has no char type: the Iceberg connector creates a char(3) column of CREATE TABLE AS as
   * varchar, and the cast drops the padding, so this is a varchar comparison.
   */
  @Test
  @Override
  public void testCharVarcharComparison() {
    try (TestTable table =
        newTrinoTable(
            "test_char_varchar",
            "(k, v) AS VALUES (-1, CAST(NULL AS char(3))), (3, CAST('   ' AS char(3))),"
                + " (6, CAST('x  ' AS char(3)))")) {
      assertThat(getColumnType(table.getName(), "v")).isEqualTo("varchar");
      assertQuery("SELECT k, v FROM " + table.getName(), "VALUES (-1, NULL), (3, ''), (6, 'x')");
      assertQuery(
          "SELECT k, v FROM " + table.getName() + " WHERE v = CAST('' AS varchar(2))",
          "VALUES (3, '')");
      assertQuery(
          "SELECT k, v FROM " + table.getName() + " WHERE v = CAST('x' AS varchar(2))",
          "VALUES (6, 'x')");
      assertQueryReturnsEmptyResult(
          "SELECT k, v FROM " + table.getName() + " WHERE v = CAST('x ' AS varchar(2))");
    }
  }

  /**
   * A view of Iceberg's REST catalog keeps its columns in an Iceberg schema, whose strings have no
   * length, and has a location, which SHOW CREATE VIEW shows.
   */
  @Test
  @Override
  public void testViewMetadata() {
    String view = "meta_test_view_" + randomNameSuffix();
    assertUpdate("CREATE VIEW " + view + " AS SELECT BIGINT '123' x, 'foo' y");
    try {
      assertThat(computeActual("SHOW TABLES").getOnlyColumnAsSet()).contains(view, "nation");
      assertThat(
              computeScalar(
                  "SELECT table_type FROM information_schema.tables WHERE table_name = '"
                      + view
                      + "'"))
          .isEqualTo("VIEW");
      assertThat(query("SHOW COLUMNS FROM " + view))
          .result()
          .matches(
              resultBuilder(getSession(), VARCHAR, VARCHAR, VARCHAR, VARCHAR)
                  .row("x", "bigint", "", "")
                  .row("y", "varchar", "", "")
                  .build());
      assertQuery("SELECT * FROM " + view, "VALUES (123, 'foo')");
      assertThat((String) computeScalar("SHOW CREATE VIEW " + view))
          .matches(showCreateViewPattern(view, "SELECT\n  BIGINT '123' x\n, 'foo' y"));
    } finally {
      assertUpdate("DROP VIEW " + view);
    }
  }

  /** As the base's, with the view's location (see {@link #testViewMetadata}). */
  @Test
  @Override
  public void testShowCreateView() {
    String view = "test_show_create_view" + randomNameSuffix();
    String query =
        "SELECT *\nFROM\n  (\n VALUES \n     ROW(1, 'one')\n   , ROW(2, 't')\n)  t (col1, col2)";
    assertUpdate("CREATE VIEW " + view + " SECURITY DEFINER AS\n" + query);
    try {
      assertThat((String) computeScalar("SHOW CREATE VIEW " + view))
          .matches(showCreateViewPattern(view, query));
    } finally {
      assertUpdate("DROP VIEW " + view);
    }
  }

  private static String showCreateViewPattern(String view, String query) {
    return "\\QCREATE VIEW "
        + SharedTrino.LAKESTREAM_CATALOG
        + "."
        + LakestreamQueryRunner.SCHEMA
        + "."
        + view
        + " SECURITY DEFINER\nWITH (\n   location = '\\E[^']*/"
        + LakestreamQueryRunner.SCHEMA
        + "/"
        + view
        + "-[0-9a-f]{32}'\\Q\n) AS\n"
        + query
        + "\\E";
  }

  /**
   * As the base's, but a name longer than the server allows is refused even when only looked up:
   * the connector reports the server's refusal of the name, where the base expects the table not to
   * exist.
   */
  @Test
  @Override
  public void testRenameTableToLongTableName() {
    String source = "test_rename_source_" + randomNameSuffix();
    assertUpdate("CREATE TABLE " + source + " AS SELECT 123 x", 1);
    String base = "test_rename_target_" + randomNameSuffix();
    String valid = base + "z".repeat(MAX_NAME_LENGTH - base.length());
    assertUpdate("ALTER TABLE " + source + " RENAME TO " + valid);
    try {
      assertThat(getQueryRunner().tableExists(getSession(), source)).isFalse();
      assertQuery("SELECT x FROM " + valid, "VALUES 123");
      String invalid = valid + "z";
      assertThatThrownBy(() -> assertUpdate("ALTER TABLE " + valid + " RENAME TO " + invalid))
          .satisfies(this::verifyTableNameLengthFailurePermissible);
      assertQuery("SELECT x FROM " + valid, "VALUES 123");
      assertThatThrownBy(() -> getQueryRunner().tableExists(getSession(), invalid))
          .satisfies(this::verifyTableNameLengthFailurePermissible);
    } finally {
      assertUpdate("DROP TABLE " + valid);
    }
  }

  /** The server's limit of a namespace's name. */
  @Override
  protected OptionalInt maxSchemaNameLength() {
    return OptionalInt.of(MAX_NAME_LENGTH);
  }

  /**
   * Iceberg's REST client asks whether the namespace exists with a HEAD request, whose refusal has
   * no body to say why.
   */
  @Override
  protected void verifySchemaNameLengthFailurePermissible(Throwable e) {
    assertThat(e)
        .hasMessageStartingWith("Failed to check namespace")
        .rootCause()
        .hasMessage("Malformed request: Bad Request");
  }

  /** The server's limit of a table's name. */
  @Override
  protected OptionalInt maxTableNameLength() {
    return OptionalInt.of(MAX_NAME_LENGTH);
  }

  /** The server's refusal says why, under the Iceberg connector's message. */
  @Override
  protected void verifyTableNameLengthFailurePermissible(Throwable e) {
    assertThat(com.google.common.base.Throwables.getCausalChain(e))
        .anySatisfy(cause -> assertThat(cause).hasMessageContaining(NAME_TOO_LONG));
  }

  private static final int MAX_NAME_LENGTH = 255;
  private static final String NAME_TOO_LONG = "at most 255 allowed";
}
