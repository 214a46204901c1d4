package io.lakestream.testing;

import io.lakestream.testing.TieredTables.Expected;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every lake engine must read from tables Lakestream's tiering service committed: tables
 * written only through the stream client (W1 rows into log tables, W2 upserts and deletes into a
 * primary-key table) read as plain Iceberg tables through the REST catalog, once each table's
 * current snapshot records its log's high watermarks. The expected rows come from what the test
 * wrote ({@link TieredTables}), not from the server.
 *
 * <p>One subclass per engine (Spark, Trino) and lake format supplies the shared server's tables and
 * runs SQL; the statements are the same for every engine. For tables tiered into Paimon ({@link
 * TieredTables#connect(String, int, String)}) the engine reads the Iceberg metadata Paimon wrote
 * through the catalog entry, and the partitioned table is partitioned by {@code identity(region)}
 * only (the queries are the same).
 */
public abstract class TieredTablesContract {
  private static final Duration TIERING_TIMEOUT = Duration.ofMinutes(2);

  /** The tables of the engine's shared server. */
  protected abstract TieredTables tables();

  /** Runs a statement in the engine; values normalised with {@link TieredTables#normalize}. */
  protected abstract List<List<Object>> sql(String statement);

  /**
   * Proves that an unpartitioned log table tiered in two rounds of appends (12,000 then 8,000 W1
   * rows) reads in the engine with every row exactly once: count, distinct ids and sums of all 20
   * columns match the rows written, and so do the full rows of a sample.
   */
  @Test
  void unpartitionedLogTableReadsExactlyTheRowsWritten() {
    TieredTables.LogTable table = tables().createLogTable("events", false);
    table.append(12_000);
    table.awaitTiered(TIERING_TIMEOUT);
    assertReads(table.expectedQueries("lake"));

    table.append(8_000);
    table.awaitTiered(TIERING_TIMEOUT);
    assertReads(table.expectedQueries("lake"));
  }

  /**
   * Proves the same for a log table partitioned by {@code day(ts)} and {@code identity(region)} (12
   * partitions over 4 days, some with a null region, some with a space in it): besides the
   * whole-table checks, each partition holds its rows, and a query the partition filters prune and
   * one on the null partition count exactly.
   */
  @Test
  void partitionedLogTableReadsExactlyTheRowsWrittenPerPartition() {
    TieredTables.LogTable table = tables().createLogTable("events_by_day", true);
    table.append(5_000);
    table.awaitTiered(TIERING_TIMEOUT);
    table.append(3_000);
    table.awaitTiered(TIERING_TIMEOUT);
    assertReads(table.expectedQueries("lake"));
  }

  /**
   * Proves that a tiered primary-key table reads as its current state only: after 2,000 inserts
   * (tiered), then 4,000 random upserts and deletes over the same keys (re-upserts changing every
   * column, deletes of tiered rows, re-inserts of deleted keys), the engine sees each present key
   * once with its newest values and no deleted key: count, sums, the exact key set, and full rows
   * of every tenth key all match the test's own model of the state.
   */
  @Test
  void primaryKeyTableReadsCurrentStateOnly() {
    TieredTables.KeyedTable table = tables().createKeyedTable("keyed");
    table.insertAll(2_000);
    table.awaitTiered(TIERING_TIMEOUT);
    assertReads(table.expectedQueries("lake"));

    table.change(4_000, 7);
    table.awaitTiered(TIERING_TIMEOUT);
    assertReads(table.expectedQueries("lake"));
  }

  private void assertReads(List<Expected> queries) {
    for (Expected query : queries) {
      long start = System.nanoTime();
      List<List<Object>> rows = sql(query.sql());
      System.out.printf(
          "%s: %d rows in %d ms%n",
          query.description(), rows.size(), (System.nanoTime() - start) / 1_000_000);
      TieredTables.assertRows(rows, query);
    }
  }
}
