package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;

import io.lakestream.testing.TieredTables;
import io.lakestream.testing.TieredTables.Expected;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Union reads through the {@code lakestream} connector: queried right after the writes are
 * acknowledged, before tiering has committed them (or while it does), a table reads with every
 * acknowledged row exactly once, the rows still in the log included. The expected results are the
 * test's own model of the rows written ({@link TieredTables}), the same checks the Iceberg
 * connector passes once everything is tiered.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamUnionReadIT {
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);

  private final SharedTrino shared;
  private TieredTables tables;
  private TieredTables paimonTables;

  LakestreamUnionReadIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort());
    paimonTables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort(), "paimon");
  }

  @AfterAll
  void close() {
    if (tables != null) {
      tables.close();
    }
    if (paimonTables != null) {
      paimonTables.close();
    }
  }

  /**
   * Proves that a log table reads exactly the rows written when they are all still in the log, and
   * when part is tiered and part is not.
   */
  @Test
  void logTableReadsLogAndLakeRowsExactlyOnce() {
    TieredTables.LogTable table = tables.createLogTable("union_events", false);
    table.append(12_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));

    table.awaitTiered(TIERING_TIMEOUT);
    table.append(8_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));
  }

  /**
   * Proves the same for a log table tiered into Paimon, whose lake part the server also describes
   * as Iceberg metadata: the tiered offsets must come with it, or rows would be read twice.
   */
  @Test
  void paimonTieredLogTableReadsLogAndLakeRowsExactlyOnce() {
    TieredTables.LogTable table = paimonTables.createLogTable("union_events", false);
    table.append(6_000);
    table.awaitTiered(TIERING_TIMEOUT);
    table.append(4_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));
  }

  /** Proves the same for a partitioned log table, per partition and with pruning filters. */
  @Test
  void partitionedLogTableReadsLogAndLakeRowsExactlyOnce() {
    TieredTables.LogTable table = tables.createLogTable("union_events_by_day", true);
    table.append(5_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));

    table.awaitTiered(TIERING_TIMEOUT);
    table.append(3_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));
  }

  /**
   * Proves that a primary-key table reads as its current state when its newest changes are still in
   * the log: upserts replace tiered rows, deletes remove them, re-inserted keys come back.
   */
  @Test
  void primaryKeyTableMergesLogChangesOverLakeRows() {
    TieredTables.KeyedTable table = tables.createKeyedTable("union_keyed");
    table.insertAll(2_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));

    table.awaitTiered(TIERING_TIMEOUT);
    table.change(4_000, 7);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));
  }

  private void assertReads(List<Expected> queries) {
    for (Expected query : queries) {
      TieredTables.assertRows(
          shared.rows(query.sql()).stream()
              .map(row -> row.stream().map(TieredTables::normalize).toList())
              .toList(),
          query);
    }
  }
}
