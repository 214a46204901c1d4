package io.lakestream.trino;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  /** Iceberg has no {@code char} type. */
  @Test
  @Override
  public void testCharVarcharComparison() {
    assertThatThrownBy(super::testCharVarcharComparison)
        .hasMessage("Type not supported for Iceberg: char(3)");
  }
}
