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
 * log; tables the test creates with {@code CREATE TABLE} are Lakestream log tables too (the default
 * {@code kind}), written through the stream.
 *
 * <p>Runs in failsafe (it needs the packaged server), one query runner for the class.
 */
@ExtendWith(SharedTrino.Resolver.class)
class LakestreamConnectorSmokeTest extends BaseConnectorSmokeTest {
  private final SharedTrino shared;

  private static final String LOG_TABLE_ROWS_APPEND_ONLY =
      LakestreamQueryRunner.LOG_TABLE_ROWS_APPEND_ONLY;
  private static final String TRUNCATE_REFUSED = LakestreamQueryRunner.TRUNCATE_REFUSED;

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

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void testMerge() {
    assertThatThrownBy(super::testMerge).hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void testRowLevelUpdate() {
    assertThatThrownBy(super::testRowLevelUpdate).hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void verifySupportsDeleteDeclaration() {
    assertThatThrownBy(super::verifySupportsDeleteDeclaration)
        .hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void verifySupportsRowLevelDeleteDeclaration() {
    assertThatThrownBy(super::verifySupportsRowLevelDeleteDeclaration)
        .hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void verifySupportsRowLevelUpdateDeclaration() {
    assertThatThrownBy(super::verifySupportsRowLevelUpdateDeclaration)
        .hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #LOG_TABLE_ROWS_APPEND_ONLY}). */
  @Test
  @Override
  public void verifySupportsUpdateDeclaration() {
    assertThatThrownBy(super::verifySupportsUpdateDeclaration)
        .hasMessageContaining(LOG_TABLE_ROWS_APPEND_ONLY);
  }

  /** Refused with the connector's own message (see {@link #TRUNCATE_REFUSED}). */
  @Test
  @Override
  public void testTruncateTable() {
    assertThatThrownBy(super::testTruncateTable).hasMessageContaining(TRUNCATE_REFUSED);
  }
}
