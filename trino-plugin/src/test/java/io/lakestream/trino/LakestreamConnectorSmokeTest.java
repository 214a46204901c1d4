package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trino.testing.BaseConnectorSmokeTest;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's connector smoke test on the {@code lakestream} catalog ({@link LakestreamQueryRunner}):
 * reads of the TPC-H tables are union reads of Lakestream log tables, part tiered and part in the
 * log; tables the test creates with {@code CREATE TABLE} are plain Iceberg tables of the catalog,
 * which the connector writes, alters and drops as Trino's Iceberg connector does on a REST catalog.
 *
 * <p>Runs in failsafe (it needs the packaged server), one query runner for the class.
 */
@ExtendWith(SharedTrino.Resolver.class)
class LakestreamConnectorSmokeTest extends BaseConnectorSmokeTest {
  private final SharedTrino shared;

  LakestreamConnectorSmokeTest(SharedTrino shared) {
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

  /** Iceberg strings have no length; the table properties are the lake table's. */
  @Test
  @Override
  public void testShowCreateTable() {
    assertThat((String) computeScalar("SHOW CREATE TABLE region"))
        .matches(
            LakestreamQueryRunner.showCreateTablePattern(
                "region", "   regionkey bigint,\n   name varchar,\n   comment varchar\n"));
  }
}
