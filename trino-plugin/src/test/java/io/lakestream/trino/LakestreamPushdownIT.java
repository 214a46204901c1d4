package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.TieredTables;
import io.lakestream.testing.WideRows;
import io.trino.Session;
import io.trino.execution.QueryStats;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the {@code lakestream} connector pushes into its reads of streaming tables, each checked for
 * correctness against the test's own model of the rows written ({@link WideRows}: row {@code n} has
 * {@code b0 = n}) and, where it saves work, for effectiveness through the query's statistics:
 * projection and filters on the log tail (fewer bytes read), limits, {@code count(*)} from metadata
 * (no scan of the rows) and dynamic filters on the lake splits (fewer rows read).
 *
 * <p>Tables whose reads must stay in the log are created with a tiering interval of 7 days (the
 * first round is one interval after the server finds a table), so they hold still while a test
 * compares two queries' statistics.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamPushdownIT {
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);
  private static final int LOG_ROWS = 30_000;
  private static final int BATCH_ROWS = 1_000;

  private final SharedTrino shared;
  private TieredTables tables;
  private Connection connection;

  LakestreamPushdownIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort());
    connection = Connection.open("127.0.0.1", shared.rpcPort(), null);
  }

  @AfterAll
  void close() {
    if (connection != null) {
      connection.close();
    }
    if (tables != null) {
      tables.close();
    }
  }

  /**
   * A W1 log table of 3 buckets (bucket key {@code b0}) that does not tier during the test, with
   * rows {@code [0, rows)} appended in batches of {@value #BATCH_ROWS} rows.
   */
  private String createLogOnlyTable(String name, int rows) {
    TablePath path = TablePath.of(TieredTables.NAMESPACE + "." + name);
    connection
        .admin()
        .createTable(
            path,
            TableDescriptor.logTable(WideRows.w1Schema(), 3)
                .withBucketKey("b0")
                .withProperty("lakestream.tiering.interval", "7d"));
    try (AppendWriter writer =
        connection
            .table(path)
            .newAppendWriter(WriterOptions.defaults().withBatchRows(BATCH_ROWS))) {
      for (long n = 0; n < rows; n++) {
        writer.append(WideRows.row(n, 0));
      }
      writer.flush();
    }
    return LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE + "." + name;
  }

  /**
   * Proves that filters on a log table's tail return exactly the model's rows (range, {@code IN},
   * string equality, double and unenforced combinations), and that a selective filter on {@code b0}
   * reads far fewer bytes than the whole tail: the server skips the batches whose statistics rule
   * the filter out.
   */
  @Test
  void filtersOnTheLogTailReturnTheModelRowsAndSkipBatches() {
    String table = createLogOnlyTable("push_filter", LOG_ROWS);
    String probe = (String) WideRows.row(123, 0)[15];
    assertCountAndSum(table, "true", n -> true);
    assertCountAndSum(table, "b0 < 500", n -> n < 500);
    assertCountAndSum(table, "b0 BETWEEN 10000 AND 10099", n -> n >= 10_000 && n <= 10_099);
    assertCountAndSum(table, "b0 IN (5, 17000, 29999)", n -> n == 5 || n == 17_000 || n == 29_999);
    assertCountAndSum(table, "b0 >= 29000 AND i0 > 0", n -> n >= 29_000 && i0(n) > 0);
    assertCountAndSum(table, "d0 < 1000.0", n -> (Double) WideRows.row(n, 0)[10] < 1000.0);
    assertCountAndSum(table, "s0 = '" + probe + "'", n -> WideRows.row(n, 0)[15].equals(probe));
    assertCountAndSum(table, "b0 > 40000", n -> false);

    long all = physicalInputBytes("SELECT count(b0), sum(i0) FROM " + table);
    long selective =
        physicalInputBytes("SELECT count(b0), sum(i0) FROM " + table + " WHERE b0 < 500");
    System.out.printf("push_filter: %d bytes unfiltered, %d with b0 < 500%n", all, selective);
    assertThat(selective)
        .as("bytes read with b0 < 500 (3 of 30 batches match) vs. %d without a filter", all)
        .isPositive()
        .isLessThan(all / 4);
  }

  /**
   * Proves that a log tail read reads only the columns the query uses: one column of the 20 reads a
   * small part of the bytes all of them read, with the same row count.
   */
  @Test
  void tailReadsOnlyTheProjectedColumns() {
    String table = createLogOnlyTable("push_projection", 10_000);
    List<String> maxima = new ArrayList<>();
    for (String column : WideRows.columnNames("b0")) {
      maxima.add("max(" + column + ")");
    }
    assertThat(shared.rows("SELECT count(b0) FROM " + table)).containsExactly(List.of(10_000L));
    long one = physicalInputBytes("SELECT count(b0) FROM " + table);
    long every =
        physicalInputBytes("SELECT count(b0), " + String.join(", ", maxima) + " FROM " + table);
    System.out.printf("push_projection: %d bytes for b0, %d for all columns%n", one, every);
    assertThat(one).as("bytes read for b0 alone vs. %d for all 20 columns", every).isPositive();
    assertThat(one * 8).isLessThan(every);
  }

  /**
   * Proves that a limit returns that many of the table's rows, each once, from the tail alone and
   * from lake and tail together.
   */
  @Test
  void limitReturnsThatManyOfTheTablesRows() {
    String logOnly = createLogOnlyTable("push_limit", 5_000);
    assertLimit(logOnly, 7, 5_000);
    assertLimit(logOnly, 4_999, 5_000);
    assertLimit(logOnly, 6_000, 5_000);

    TieredTables.LogTable union = tables.createLogTable("push_limit_union", false);
    union.append(2_000);
    union.awaitTiered(TIERING_TIMEOUT);
    union.append(1_000);
    String qualified = LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE + "." + union.name();
    assertLimit(qualified, 11, 3_000);
    assertLimit(qualified, 3_000, 3_000);
  }

  private void assertLimit(String table, int limit, int rows) {
    List<List<Object>> result = shared.rows("SELECT b0 FROM " + table + " LIMIT " + limit);
    assertThat(result)
        .as("rows of LIMIT %s of %s rows", limit, rows)
        .hasSize(Math.min(limit, rows));
    Set<Long> seen = new HashSet<>();
    for (List<Object> row : result) {
      long b0 = (Long) row.getFirst();
      assertThat(b0).as("b0 of a row of LIMIT %s", limit).isBetween(0L, rows - 1L);
      assertThat(seen.add(b0)).as("row b0 = %s returned once", b0).isTrue();
    }
  }

  /**
   * Proves that {@code count(*)} of a log table with rows in the lake and in the log is answered
   * from metadata: the plan has no aggregation left (the scan yields the count), and the count is
   * the rows written; with a filter, or on a primary-key table, the rows are counted as before.
   */
  @Test
  void countStarOfALogTableComesFromMetadata() {
    TieredTables.LogTable table = tables.createLogTable("push_count", false);
    table.append(4_000);
    table.awaitTiered(TIERING_TIMEOUT);
    table.append(1_500);
    String qualified = LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE + "." + table.name();

    String plan = explain("SELECT count(*) FROM " + qualified);
    System.out.println("count(*) plan:\n" + plan);
    assertThat(plan).doesNotContain("Aggregate").contains("exact count");
    assertThat(shared.rows("SELECT count(*) FROM " + qualified)).containsExactly(List.of(5_500L));

    String filtered = "SELECT count(*) FROM " + qualified + " WHERE b0 < 4100";
    assertThat(explain(filtered)).contains("Aggregate").doesNotContain("exact count");
    assertThat(shared.rows(filtered)).containsExactly(List.of(4_100L));

    String logOnly = createLogOnlyTable("push_count_log", 2_345);
    assertThat(explain("SELECT count(*) FROM " + logOnly)).doesNotContain("Aggregate");
    assertThat(shared.rows("SELECT count(*) FROM " + logOnly)).containsExactly(List.of(2_345L));

    TieredTables.KeyedTable keyed = tables.createKeyedTable("push_count_keyed");
    keyed.insertAll(300);
    String keyedTable = LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE + "." + keyed.name();
    assertThat(explain("SELECT count(*) FROM " + keyedTable)).contains("Aggregate");
    assertThat(shared.rows("SELECT count(*) FROM " + keyedTable)).containsExactly(List.of(300L));
  }

  /**
   * Proves that the dynamic filter of a join with a selective build side reaches the lake splits: a
   * table tiered in three rounds (files of disjoint {@code b0} ranges) reads at most half the rows
   * with dynamic filtering that it reads without, and the join's result is the model's.
   */
  @Test
  void dynamicFiltersPruneTheLakeSplits() {
    TieredTables.LogTable table = tables.createLogTable("push_dynamic", false);
    for (int round = 0; round < 3; round++) {
      table.append(1_000);
      table.awaitTiered(TIERING_TIMEOUT);
    }
    String qualified = LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE + "." + table.name();
    // The build side is a table (not VALUES, whose values the planner would turn into a static
    // filter b0 IN (5, 7)), so only a dynamic filter can prune the probe side.
    String keys = "lake." + TieredTables.NAMESPACE + ".push_dynamic_keys";
    shared.rows("CREATE TABLE " + keys + " (x bigint)");
    shared.rows("INSERT INTO " + keys + " VALUES 5, 7");
    String join =
        "SELECT count(*), sum(t.i0) FROM " + qualified + " t JOIN " + keys + " k ON t.b0 = k.x";
    List<Object> expected = List.of(2L, (long) i0(5) + i0(7));
    Session base = shared.trino().getDefaultSession();
    Session dynamic =
        Session.builder(base)
            .setCatalogSessionProperty(LAKESTREAM_CATALOG, "dynamic_filtering_wait_timeout", "30s")
            .build();
    Session without =
        Session.builder(base).setSystemProperty("enable_dynamic_filtering", "false").build();

    QueryRunner.MaterializedResultWithPlan filtered = shared.trino().executeWithPlan(dynamic, join);
    QueryRunner.MaterializedResultWithPlan unfiltered =
        shared.trino().executeWithPlan(without, join);
    assertThat(rows(filtered)).containsExactly(expected);
    assertThat(rows(unfiltered)).containsExactly(expected);
    long withFilter = stats(filtered).getPhysicalInputPositions();
    long withoutFilter = stats(unfiltered).getPhysicalInputPositions();
    System.out.printf(
        "push_dynamic: %d rows read with dynamic filtering, %d without%n",
        withFilter, withoutFilter);
    assertThat(withoutFilter)
        .as("rows read without dynamic filtering: the table's and the build side's")
        .isGreaterThanOrEqualTo(3_002);
    assertThat(withFilter * 2)
        .as("twice the rows read with dynamic filtering vs. %d without", withoutFilter)
        .isLessThanOrEqualTo(withoutFilter);
  }

  private void assertCountAndSum(String table, String predicate, LongPredicate model) {
    long count = 0;
    long sum = 0;
    for (long n = 0; n < LOG_ROWS; n++) {
      if (model.test(n)) {
        count++;
        sum += n;
      }
    }
    List<List<Object>> actual =
        shared.rows("SELECT count(b0), coalesce(sum(b0), 0) FROM " + table + " WHERE " + predicate);
    assertThat(actual)
        .as("count and sum of b0 WHERE %s", predicate)
        .containsExactly(List.of(count, sum));
  }

  private static int i0(long n) {
    return (Integer) WideRows.row(n, 0)[5];
  }

  private String explain(String query) {
    return (String) shared.rows("EXPLAIN " + query).getFirst().getFirst();
  }

  private long physicalInputBytes(String query) {
    QueryRunner.MaterializedResultWithPlan result =
        shared.trino().executeWithPlan(shared.trino().getDefaultSession(), query);
    return stats(result).getPhysicalInputDataSize().toBytes();
  }

  private QueryStats stats(QueryRunner.MaterializedResultWithPlan result) {
    return shared
        .trino()
        .getCoordinator()
        .getQueryManager()
        .getFullQueryInfo(result.queryId())
        .getQueryStats();
  }

  private static List<List<Object>> rows(QueryRunner.MaterializedResultWithPlan result) {
    return result.result().getMaterializedRows().stream().map(MaterializedRow::getFields).toList();
  }
}
