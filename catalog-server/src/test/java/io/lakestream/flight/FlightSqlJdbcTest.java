package io.lakestream.flight;

import static io.lakestream.testing.FlightJdbc.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.testing.FlightJdbc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flight SQL endpoint through the Arrow Flight SQL JDBC driver and plain {@code java.sql}:
 * metadata browsing, queries over rows partly tiered into the lake and partly still in the log,
 * joins, aggregates, window functions, prepared statements, a primary-key table's current state,
 * and clear errors.
 */
class FlightSqlJdbcTest {
  private static final int TIERED_ROWS = 1_000;
  private static final int LOG_ROWS = 500;

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static String url;

  /** What the test wrote to sql.users: key to {name, score}, deleted keys removed. */
  private static final Map<Long, Object[]> users = new TreeMap<>();

  @BeforeAll
  static void start() throws java.io.IOException {
    // What a killed server would leave in its Flight SQL scratch directory.
    Files.createDirectories(data.resolve("flight-sql/tails"));
    Files.writeString(data.resolve("flight-sql/tails/left-by-a-killed-server.parquet"), "x");
    Files.createDirectories(data.resolve("flight-sql/query-databases/99"));
    Files.writeString(data.resolve("flight-sql/query-databases/99/1-linked.parquet"), "x");
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    RESTCatalog catalog = lakestream.catalog();
    Connection connection = lakestream.connection();
    catalog.createNamespace(Namespace.of("sql"), new HashMap<>());
    create(
        catalog,
        "events",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b0", Types.LongType.get()),
            Types.NestedField.optional(3, "category", Types.StringType.get())));
    create(
        catalog,
        "users",
        "primary-key",
        new Schema(
            List.of(
                Types.NestedField.required(1, "user_id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get()),
                Types.NestedField.optional(3, "score", Types.LongType.get())),
            Set.of(1)));

    try (AppendWriter writer =
        connection.table(TablePath.of("sql.events")).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < TIERED_ROWS; id++) {
        writer.append(id, id * 3, "c" + (id % 4));
      }
      writer.flush();
    }
    try (UpsertWriter writer =
        connection.table(TablePath.of("sql.users")).newUpsertWriter(WriterOptions.defaults())) {
      for (long id = 0; id < 20; id++) {
        writer.upsert(id, "user" + id, id * 10);
        users.put(id, new Object[] {"user" + id, id * 10});
      }
      writer.flush();
    }
    create(
        catalog,
        "typed",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(3, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(4, "price", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(5, "day", Types.DateType.get()),
            Types.NestedField.optional(6, "happened_at", Types.TimestampType.withZone()),
            Types.NestedField.optional(7, "local_at", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(8, "payload", Types.BinaryType.get())));
    writeTyped(connection, 0);
    awaitTiered(catalog, "events");
    awaitTiered(catalog, "users");
    awaitTiered(catalog, "typed");
    writeTyped(connection, 1);
    // More rows after the first tiering commit: these start out in the log only.
    try (AppendWriter writer =
        connection.table(TablePath.of("sql.events")).newAppendWriter(WriterOptions.defaults())) {
      for (long id = TIERED_ROWS; id < TIERED_ROWS + LOG_ROWS; id++) {
        writer.append(id, id * 3, "c" + (id % 4));
      }
      writer.flush();
    }
    try (UpsertWriter writer =
        connection.table(TablePath.of("sql.users")).newUpsertWriter(WriterOptions.defaults())) {
      for (long id = 0; id < 20; id += 3) {
        writer.upsert(id, "renamed" + id, id * 100);
        users.put(id, new Object[] {"renamed" + id, id * 100});
      }
      for (long id = 1; id < 20; id += 5) {
        writer.delete(id);
        users.remove(id);
      }
      writer.flush();
    }
    url = FlightJdbc.url(lakestream.server().flightPort());
  }

  /** One row of every type, {@code id} in the lake (0) or written after tiering (1), and nulls. */
  private static void writeTyped(Connection connection, int id) {
    try (AppendWriter writer =
        connection.table(TablePath.of("sql.typed")).newAppendWriter(WriterOptions.defaults())) {
      writer.append(
          id,
          id == 0,
          id + 0.25,
          new java.math.BigDecimal("12.3" + id),
          java.time.LocalDate.of(2026, 11, 30 - id),
          1_700_000_000_000_000L + id,
          1_600_000_000_000_000L + id,
          new byte[] {(byte) id, 7});
      writer.append(id + 10, null, null, null, null, null, null, null);
      writer.flush();
    }
  }

  private static void create(RESTCatalog catalog, String name, String kind, Schema schema) {
    create(catalog, "sql", name, kind, schema);
  }

  private static void create(
      RESTCatalog catalog, String namespace, String name, String kind, Schema schema) {
    catalog.createTable(
        TableIdentifier.of(namespace, name),
        schema,
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind", kind,
                "lakestream.buckets", "2",
                "lakestream.tiering.interval", "1s")));
  }

  private static void awaitTiered(RESTCatalog catalog, String name) {
    awaitTiered(catalog, TableIdentifier.of("sql", name));
  }

  private static void awaitTiered(RESTCatalog catalog, TableIdentifier table) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (catalog.loadTable(table).currentSnapshot() == null) {
      assertThat(System.nanoTime() - deadline).as("first tiering of %s", table).isNegative();
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static java.sql.Connection connect() throws SQLException {
    return DriverManager.getConnection(url);
  }

  private static List<List<Object>> query(String sql) throws SQLException {
    try (java.sql.Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      return rows(result);
    }
  }

  @Test
  void countAndSumSeeTheLakeAndTheLogExactlyOnce() throws SQLException {
    long rows = TIERED_ROWS + LOG_ROWS;
    long sum = 3 * rows * (rows - 1) / 2;
    assertThat(query("SELECT count(*), sum(b0), count(DISTINCT id) FROM sql.events"))
        .containsExactly(List.of(rows, sum, rows));
    // The warehouse (Flight SQL catalog) may be named too.
    assertThat(query("SELECT count(*) FROM \"default\".sql.events")).containsExactly(List.of(rows));
  }

  @Test
  void queriesReadTheirFilesThroughLinksThatGoWhenTheyEnd() throws Exception {
    Path scratch = data.resolve("flight-sql");
    assertThat(scratch.resolve("tails/left-by-a-killed-server.parquet")).doesNotExist();
    assertThat(scratch.resolve("query-databases/99")).doesNotExist();
    long rows = TIERED_ROWS + LOG_ROWS;
    assertThat(query("SELECT count(*) FROM sql.events")).containsExactly(List.of(rows));
    // The query ran in a sandboxed database (each has a directory of its own there); once the
    // query is done, its links are gone and the lake's files are still there.
    List<Path> sandboxes;
    try (Stream<Path> listed = Files.list(scratch.resolve("query-databases"))) {
      sandboxes = listed.toList();
    }
    assertThat(sandboxes).isNotEmpty();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (sandboxes.stream().anyMatch(FlightSqlJdbcTest::holdsFiles)) {
      assertThat(System.nanoTime() - deadline).as("links removed after the query").isNegative();
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
    assertThat(query("SELECT count(*) FROM sql.events")).containsExactly(List.of(rows));
  }

  private static boolean holdsFiles(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      return files.findAny().isPresent();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void queriesWhileAWriterWritesAndTieringCommitsSeeEveryAcknowledgedRowOnce() throws Exception {
    RESTCatalog catalog = lakestream.catalog();
    // Its own namespace, so that the metadata test's listing of namespace sql stays exact.
    catalog.createNamespace(Namespace.of("motion"), new HashMap<>());
    create(
        catalog,
        "motion",
        "moving",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b0", Types.LongType.get())));
    AtomicLong acknowledged = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> writing =
        pool.submit(
            () -> {
              try (AppendWriter writer =
                  lakestream
                      .connection()
                      .table(TablePath.of("motion.moving"))
                      .newAppendWriter(WriterOptions.defaults())) {
                long id = 0;
                while (!stop.get()) {
                  for (int i = 0; i < 50; i++, id++) {
                    writer.append(id, id * 3);
                  }
                  writer.flush();
                  acknowledged.set(id);
                }
              }
              return null;
            });
    try {
      awaitTiered(catalog, TableIdentifier.of("motion", "moving"));
      Set<Long> snapshots = new java.util.HashSet<>();
      try (java.sql.Connection connection = connect()) {
        for (int read = 0; read < 10; read++) {
          long before = acknowledged.get();
          List<List<Object>> rows;
          try (Statement statement = connection.createStatement();
              ResultSet result =
                  statement.executeQuery(
                      "SELECT count(*), count(DISTINCT id), sum(b0) - 3 * sum(id), max(id)"
                          + " FROM motion.moving")) {
            rows = rows(result);
          }
          long after = acknowledged.get();
          List<Object> row = rows.get(0);
          long count = (Long) row.get(0);
          assertThat(row.get(1)).as("no row twice").isEqualTo(count);
          assertThat(row.get(2)).as("every row whole").isEqualTo(0L);
          assertThat(count).as("every acknowledged row").isGreaterThanOrEqualTo(before);
          if (count > 0) {
            // Rows of batches in flight may show, but none past what the writer wrote by then.
            assertThat((Long) row.get(3)).isLessThan(after + 50);
          }
          Long snapshot =
              catalog
                  .loadTable(TableIdentifier.of("motion", "moving"))
                  .currentSnapshot()
                  .snapshotId();
          snapshots.add(snapshot);
          LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
        }
      }
      assertThat(snapshots).as("tiering committed while the queries ran").hasSizeGreaterThan(1);
    } finally {
      stop.set(true);
      writing.get();
      pool.shutdown();
    }
  }

  @Test
  void groupByJoinAndWindowFunctionsWork() throws SQLException {
    long rows = TIERED_ROWS + LOG_ROWS;
    Map<String, long[]> expected = new TreeMap<>();
    for (long id = 0; id < rows; id++) {
      long[] bucket = expected.computeIfAbsent("c" + (id % 4), key -> new long[2]);
      bucket[0]++;
      bucket[1] += id * 3;
    }
    List<List<Object>> grouped =
        query("SELECT category, count(*), sum(b0) FROM sql.events GROUP BY category ORDER BY 1");
    assertThat(grouped)
        .containsExactlyElementsOf(
            expected.entrySet().stream()
                .map(e -> List.<Object>of(e.getKey(), e.getValue()[0], e.getValue()[1]))
                .toList());

    // Events whose id is a live user's id, joined to that user's score, aggregated per category.
    Map<String, Long> joined = new TreeMap<>();
    for (Map.Entry<Long, Object[]> user : users.entrySet()) {
      joined.merge("c" + (user.getKey() % 4), (Long) user.getValue()[1], Long::sum);
    }
    assertThat(
            query(
                "SELECT e.category, sum(u.score) FROM sql.events e JOIN sql.users u"
                    + " ON e.id = u.user_id GROUP BY e.category ORDER BY 1"))
        .containsExactlyElementsOf(
            joined.entrySet().stream()
                .map(e -> List.<Object>of(e.getKey(), e.getValue()))
                .toList());

    // A running sum over the ids and a rank within each category, for the first rows.
    List<List<Object>> window =
        query(
            "SELECT id, sum(b0) OVER (ORDER BY id) AS running,"
                + " row_number() OVER (PARTITION BY category ORDER BY id DESC) AS position"
                + " FROM sql.events ORDER BY id LIMIT 5");
    for (int id = 0; id < 5; id++) {
      long running = 3L * id * (id + 1) / 2;
      long sameCategoryAbove = (rows - 1 - id) / 4; // ids id+4, id+8, ... below rows
      assertThat(window.get(id)).containsExactly((long) id, running, sameCategoryAbove + 1);
    }
  }

  @Test
  void everyColumnTypeReadsTheSameFromTheLakeAndTheLog() throws SQLException {
    List<List<Object>> rows =
        query(
            "SELECT id, flag, ratio, CAST(price AS VARCHAR), CAST(day AS VARCHAR), epoch_us(happened_at),"
                + " epoch_us(local_at), hex(payload) FROM sql.typed ORDER BY id");
    List<Object> nulls = new ArrayList<>(java.util.Collections.nCopies(7, null));
    List<Object> lakeNulls = new ArrayList<>(List.of(10L));
    lakeNulls.addAll(nulls);
    List<Object> logNulls = new ArrayList<>(List.of(11L));
    logNulls.addAll(nulls);
    assertThat(rows)
        .containsExactly(
            List.of(
                0L,
                true,
                0.25,
                "12.30",
                "2026-11-30",
                1_700_000_000_000_000L,
                1_600_000_000_000_000L,
                "0007"),
            List.of(
                1L,
                false,
                1.25,
                "12.31",
                "2026-11-29",
                1_700_000_000_000_001L,
                1_600_000_000_000_001L,
                "0107"),
            lakeNulls,
            logNulls);
    // Without the columns DuckDB's appender does not take as they are (with a time zone, binary),
    // the log rows reach DuckDB through its appender instead of an Arrow stream: same values.
    List<List<Object>> appended =
        query(
            "SELECT id, flag, ratio, CAST(price AS VARCHAR), CAST(day AS VARCHAR),"
                + " epoch_us(local_at) FROM sql.typed ORDER BY id");
    assertThat(appended)
        .containsExactly(
            List.of(0L, true, 0.25, "12.30", "2026-11-30", 1_600_000_000_000_000L),
            List.of(1L, false, 1.25, "12.31", "2026-11-29", 1_600_000_000_000_001L),
            lakeNulls.subList(0, 6),
            logNulls.subList(0, 6));
  }

  /**
   * Log rows still in the tail reach the query's database as values: text that would end a string
   * literal, open a comment or start a statement reads back as it was written and runs nothing, and
   * doubles keep every bit (NaN, negative zero, the smallest and largest).
   */
  @Test
  void logStringsThatLookLikeSqlReadBackAsWritten() throws SQLException {
    // A namespace of its own: the metadata test lists the tables of sql.
    lakestream.catalog().createNamespace(Namespace.of("literals"), new HashMap<>());
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("literals", "notes"),
            new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "note", Types.StringType.get()),
                Types.NestedField.optional(3, "ratio", Types.DoubleType.get())),
            PartitionSpec.unpartitioned(),
            Map.of("lakestream.kind", "log", "lakestream.tiering.interval", "1h"));
    List<String> notes =
        java.util.Arrays.asList(
            "O'Brien",
            "x')); DROP VIEW literals.notes; SELECT (('",
            "'' OR 1=1 --",
            "back\\slash\\'",
            "/* open comment",
            "ünïcödé 😀\nline",
            "",
            null);
    double[] ratios = {Double.NaN, -0.0, 0.1, Double.MIN_VALUE, Double.MAX_VALUE, -1e-300, 1, 2};
    try (AppendWriter writer =
        lakestream
            .connection()
            .table(TablePath.of("literals.notes"))
            .newAppendWriter(WriterOptions.defaults())) {
      for (int id = 0; id < notes.size(); id++) {
        writer.append((long) id, notes.get(id), ratios[id]);
      }
      writer.flush();
    }
    for (int round = 0; round < 2; round++) {
      List<List<Object>> rows = query("SELECT id, note, ratio FROM literals.notes ORDER BY id");
      assertThat(rows).hasSize(notes.size());
      for (int id = 0; id < notes.size(); id++) {
        assertThat(rows.get(id).get(0)).isEqualTo((long) id);
        assertThat(rows.get(id).get(1)).as("note %d", id).isEqualTo(notes.get(id));
        assertThat(Double.doubleToRawLongBits((Double) rows.get(id).get(2)))
            .as("ratio %d", id)
            .isEqualTo(Double.doubleToRawLongBits(ratios[id]));
      }
    }
    assertThat(query("SELECT count(*) FROM literals.notes WHERE note LIKE '%DROP VIEW%'"))
        .containsExactly(List.of(1L));
  }

  @Test
  void primaryKeyTablesShowTheirCurrentState() throws SQLException {
    List<List<Object>> expected = new ArrayList<>();
    users.forEach((id, row) -> expected.add(List.of(id, row[0], row[1])));
    assertThat(query("SELECT user_id, name, score FROM sql.users ORDER BY user_id"))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void preparedStatementsBindParameters() throws SQLException {
    try (java.sql.Connection connection = connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*), sum(b0) FROM sql.events WHERE id >= ? AND category = ?")) {
      statement.setLong(1, 1_200);
      statement.setString(2, "c1");
      long count = 0;
      long sum = 0;
      for (long id = 1_200; id < TIERED_ROWS + LOG_ROWS; id++) {
        if (id % 4 == 1) {
          count++;
          sum += id * 3;
        }
      }
      try (ResultSet result = statement.executeQuery()) {
        assertThat(rows(result)).containsExactly(List.of(count, sum));
      }
      statement.setLong(1, 0);
      statement.setString(2, "c2");
      try (ResultSet result = statement.executeQuery()) {
        assertThat(rows(result).get(0).get(0)).isEqualTo((long) (TIERED_ROWS + LOG_ROWS) / 4);
      }
    }
  }

  /**
   * A query that names no table runs on the statement its database kept from the last query of the
   * same text: every run binds its own parameters, a run that failed does not fail the next, and a
   * query naming a table, run between them, sees the rows written meanwhile (its statement is not
   * kept).
   */
  @Test
  void statementsWithoutTablesRunAgainWithTheirOwnParametersBesideQueriesOfTables()
      throws Exception {
    // A namespace of its own, so the metadata test lists the same tables whatever ran before.
    lakestream.catalog().createNamespace(Namespace.of("kept"), new HashMap<>());
    create(
        lakestream.catalog(),
        "kept",
        "beside",
        "log",
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    try (java.sql.Connection connection = connect();
        PreparedStatement doubled =
            connection.prepareStatement("SELECT CAST(? AS BIGINT) * 2, CAST(? AS VARCHAR) || 'x'");
        PreparedStatement cast =
            connection.prepareStatement("SELECT CAST(CAST(? AS VARCHAR) AS INTEGER) + 1");
        PreparedStatement counted =
            connection.prepareStatement("SELECT count(*), max(id) FROM kept.beside");
        AppendWriter writer =
            lakestream
                .connection()
                .table(TablePath.of("kept.beside"))
                .newAppendWriter(WriterOptions.defaults())) {
      for (long i = 0; i < 30; i++) {
        doubled.setLong(1, i);
        doubled.setString(2, "v" + i);
        try (ResultSet result = doubled.executeQuery()) {
          assertThat(rows(result)).containsExactly(List.of(i * 2, "v" + i + "x"));
        }
        try (Statement plain = connection.createStatement();
            ResultSet result = plain.executeQuery("SELECT " + (i % 3) + " + 0 AS k")) {
          assertThat(rows(result)).containsExactly(List.of(i % 3));
        }
        // A failed run closes DuckDB's statement: the next run of the same text gets a new one.
        cast.setString(1, "not a number " + i);
        assertThatThrownBy(cast::executeQuery).isInstanceOf(SQLException.class);
        cast.setString(1, String.valueOf(i));
        try (ResultSet result = cast.executeQuery()) {
          assertThat(rows(result)).containsExactly(List.of(i + 1));
        }
        writer.append(i);
        writer.flush();
        try (ResultSet result = counted.executeQuery()) {
          assertThat(rows(result)).containsExactly(List.of(i + 1, i));
        }
      }
    }
  }

  @Test
  void metadataListsWarehousesNamespacesTablesAndPrimaryKeys() throws SQLException {
    try (java.sql.Connection connection = connect()) {
      DatabaseMetaData metadata = connection.getMetaData();
      assertThat(column(metadata.getCatalogs(), "TABLE_CAT")).containsExactly("default");
      assertThat(column(metadata.getSchemas("default", null), "TABLE_SCHEM")).contains("sql");
      assertThat(column(metadata.getTables("default", "sql", "%", null), "TABLE_NAME"))
          .containsExactlyInAnyOrder("events", "users", "typed");
      assertThat(column(metadata.getColumns("default", "sql", "users", null), "COLUMN_NAME"))
          .containsExactly("user_id", "name", "score");
      assertThat(column(metadata.getPrimaryKeys("default", "sql", "users"), "COLUMN_NAME"))
          .containsExactly("user_id");
      assertThat(column(metadata.getPrimaryKeys("default", "sql", "events"), "COLUMN_NAME"))
          .isEmpty();
      assertThat(column(metadata.getTableTypes(), "TABLE_TYPE")).containsExactly("TABLE");
      assertThat(metadata.getDatabaseProductName()).isEqualTo("Lakestream");
      // Log tables take ingest (docs/flight-sql.md, Ingest), so the endpoint is not read-only.
      assertThat(metadata.isReadOnly()).isFalse();
    }
  }

  private static List<String> column(ResultSet result, String name) throws SQLException {
    List<String> values = new ArrayList<>();
    try (result) {
      while (result.next()) {
        values.add(result.getString(name));
      }
    }
    return values;
  }

  @Test
  void badSqlAndUnknownTablesFailWithClearMessages() throws SQLException {
    assertThatThrownBy(() -> query("SELEC count(*) FROM sql.events"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("syntax error");
    assertThatThrownBy(() -> query("SELECT count(*) FROM sql.nothing"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("sql.nothing does not exist");
    assertThatThrownBy(() -> query("SELECT no_such_column FROM sql.events"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("no_such_column");
    assertThatThrownBy(() -> query("DELETE FROM sql.events"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("DELETE needs a primary-key table");
    assertThatThrownBy(() -> query("SELECT 1; SELECT 2"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("Expected one statement");
    assertThatThrownBy(() -> query("SELECT * FROM read_csv('/etc/passwd')"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("Table function read_csv is not allowed in Flight SQL queries");
    // The server is still up and answers.
    assertThat(query("SELECT count(*) FROM sql.users"))
        .containsExactly(List.of((long) users.size()));
  }
}
