package io.lakestream.trino;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trino.Session;
import io.trino.testing.BaseConnectorTest;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's connector test on the {@code lakestream} catalog ({@link LakestreamQueryRunner}): every
 * query on the TPC-H tables is a union read of Lakestream log tables, part tiered and part in the
 * log, compared with the same query on H2; tables the test creates are plain Iceberg tables of the
 * catalog.
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

  /** Iceberg's optimistic commit: one of two concurrent schema changes fails. */
  @Override
  protected void verifyConcurrentAddColumnFailurePermissible(Exception e) {
    assertThat(e)
        .hasMessageContaining("Commit failed: Requirement failed: last assigned field id changed");
  }

  /** Iceberg's optimistic commit: one of two concurrent row changes fails. */
  @Override
  protected void verifyConcurrentUpdateFailurePermissible(Exception e) {
    assertThat(e).hasMessageContaining("Failed to commit the transaction during write");
  }

  /** Reads every file with Trino's Parquet reader, however small. */
  @Override
  protected Session withoutSmallFileThreshold(Session session) {
    return Session.builder(session)
        .setCatalogSessionProperty(
            SharedTrino.LAKESTREAM_CATALOG, "parquet_small_file_threshold", "0B")
        .build();
  }
}
