package io.lakestream.flight;

import static io.lakestream.testing.FlightJdbc.query;
import static io.lakestream.testing.FlightJdbc.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.testing.FlightJdbc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Queries read a log table's lake files through DuckDB's Parquet reader with the query's projection
 * and filters pushed into the scan, columns matched by Iceberg field id across schema changes; and
 * union reads stay exact while writers write and tiering commits every second, for log and
 * primary-key tables.
 */
class FlightSqlPushdownTest {
  private static final int ROWS = 2_000;

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static String url;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    lakestream.catalog().createNamespace(Namespace.of("push"), new HashMap<>());
    url = FlightJdbc.url(lakestream.server().flightPort());
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static void create(String name, String kind, Schema schema) {
    create(name, kind, schema, "1s");
  }

  private static void create(String name, String kind, Schema schema, String tieringInterval) {
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("push", name),
            schema,
            PartitionSpec.unpartitioned(),
            new HashMap<>(
                Map.of(
                    "lakestream.kind", kind,
                    "lakestream.buckets", "2",
                    "lakestream.tiering.interval", tieringInterval)));
  }

  private static void awaitRowsTiered(String name, long rows) {
    RESTCatalog catalog = lakestream.catalog();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      var snapshot = catalog.loadTable(TableIdentifier.of("push", name)).currentSnapshot();
      long tiered =
          snapshot == null
              ? 0
              : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
      if (tiered >= rows) {
        return;
      }
      assertThat(System.nanoTime() - deadline).as("%s rows of %s tiered", rows, name).isNegative();
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  @Test
  void explainShowsTheProjectionAndFilterInsideTheParquetScan() throws SQLException {
    create(
        "wide",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b0", Types.LongType.get()),
            Types.NestedField.optional(3, "padding", Types.StringType.get())));
    try (AppendWriter writer =
        lakestream.connection().table(TablePath.of("push.wide")).newAppendWriter()) {
      for (long id = 0; id < ROWS; id++) {
        writer.append(id, id * 3, "x".repeat(100));
      }
      writer.flush();
    }
    awaitRowsTiered("wide", ROWS);
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      List<List<Object>> plan =
          query(connection, "EXPLAIN SELECT sum(b0) FROM push.wide WHERE id >= 1500");
      String text = plan.toString();
      assertThat(text)
          .as("the lake is scanned by DuckDB's Parquet reader")
          .contains("READ_PARQUET");
      assertThat(text).as("the filter is pushed into the scan").containsPattern("Filters:.*id");
      assertThat(text).as("the unused column is never read").doesNotContain("padding");
      // And the answer is right.
      long expected = 0;
      for (long id = 1500; id < ROWS; id++) {
        expected += id * 3;
      }
      assertThat(query(connection, "SELECT sum(b0) FROM push.wide WHERE id >= 1500"))
          .containsExactly(List.of(expected));
    }
  }

  @Test
  void aPrimaryKeyTableMergesItsLakeDeletesAndTailInsideDuckDb() throws Exception {
    create(
        "keyed",
        "primary-key",
        new Schema(
            List.of(
                Types.NestedField.required(1, "k", Types.LongType.get()),
                Types.NestedField.optional(2, "v", Types.LongType.get()),
                Types.NestedField.optional(3, "padding", Types.StringType.get())),
            Set.of(1)));
    String padding = "x".repeat(100);
    // Values on both sides of the query's filter in every file and in the tail, so that no file's
    // statistics settle the filter.
    Map<Long, Long> state = new HashMap<>();
    TablePath path = TablePath.of("push.keyed");
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (long k = 0; k < 1_000; k++) {
        writer.upsert(k, value(k, 0), padding);
        state.put(k, value(k, 0));
      }
      writer.flush();
    }
    awaitRowsTiered("keyed", 1_000);
    // Changes of keys already in the lake: tiering removes their old rows by equality deletes.
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (long k = 0; k < 300; k++) {
        writer.upsert(k, value(k, 1), padding);
        state.put(k, value(k, 1));
      }
      for (long k = 300; k < 400; k++) {
        writer.delete(k);
        state.remove(k);
      }
      writer.flush();
    }
    awaitSummary("keyed", "total-equality-deletes", 400);
    lakestream
        .catalog()
        .loadTable(TableIdentifier.of("push", "keyed"))
        .updateProperties()
        .set("lakestream.tiering.interval", "1h")
        .commit();
    awaitInterval(path, Duration.ofHours(1));
    // Changes left in the log tail: of lake rows, of rows the lake deleted, of new keys.
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (long k = 500; k < 600; k++) {
        writer.upsert(k, value(k, 2), padding);
        state.put(k, value(k, 2));
      }
      for (long k = 600; k < 650; k++) {
        writer.delete(k);
        state.remove(k);
      }
      for (long k = 300; k < 310; k++) {
        writer.upsert(k, value(k, 3), padding);
        state.put(k, value(k, 3));
      }
      for (long k = 1_000; k < 1_100; k++) {
        writer.upsert(k, value(k, 4), padding);
        writer.upsert(k, value(k, 5), padding);
        state.put(k, value(k, 5));
      }
      writer.delete(1_050L);
      state.remove(1_050L);
      writer.flush();
    }
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      List<List<Object>> expected = new ArrayList<>();
      state.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(entry -> expected.add(List.of(entry.getKey(), entry.getValue())));
      assertThat(query(connection, "SELECT k, v FROM push.keyed ORDER BY k"))
          .containsExactlyElementsOf(expected);

      String filtered = "SELECT count(*), sum(v) FROM push.keyed WHERE v >= 1000";
      long count = state.values().stream().filter(v -> v >= 1_000).count();
      long sum = state.values().stream().filter(v -> v >= 1_000).mapToLong(v -> v).sum();
      assertThat(query(connection, filtered)).containsExactly(List.of(count, sum));
      String plan = query(connection, "EXPLAIN " + filtered).toString();
      assertThat(plan)
          .as("the lake is scanned by DuckDB's Parquet reader")
          .contains("READ_PARQUET");
      assertThat(plan)
          .as("the filter is pushed into the scan")
          .containsPattern("Filters:\\s*v\\s*>=\\s*1000");
      assertThat(plan).as("the unused column is never read").doesNotContain("padding");
      assertThat(plan).as("the lake's deletes apply by sequence").contains("__lakestream_sequence");
      assertThat(plan).as("the tail is folded by key").contains("row_number()");
    }
  }

  @Test
  void aPartitionedPrimaryKeyTableIsMergedByItsWholeKey() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "region", Types.StringType.get()),
                Types.NestedField.required(2, "k", Types.LongType.get()),
                Types.NestedField.optional(3, "v", Types.LongType.get())),
            Set.of(1, 2));
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("push", "regional"),
            schema,
            PartitionSpec.builderFor(schema).identity("region").build(),
            new HashMap<>(
                Map.of(
                    "lakestream.kind", "primary-key",
                    "lakestream.buckets", "2",
                    "lakestream.tiering.interval", "1s")));
    List<String> regions = List.of("r0", "r1", "r2");
    // The same k in every region: rows of one k must merge only within their region.
    Map<List<Object>, Long> state = new HashMap<>();
    TablePath path = TablePath.of("push.regional");
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (String region : regions) {
        for (long k = 0; k < 200; k++) {
          writer.upsert(region, k, value(k, 0));
          state.put(List.of(region, k), value(k, 0));
        }
      }
      writer.flush();
    }
    awaitRowsTiered("regional", 600);
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (String region : regions) {
        for (long k = 0; k < 50; k++) {
          writer.upsert(region, k, value(k, 1));
          state.put(List.of(region, k), value(k, 1));
        }
      }
      for (long k = 50; k < 70; k++) {
        writer.delete("r1", k);
        state.remove(List.of("r1", k));
      }
      writer.flush();
    }
    awaitSummary("regional", "total-equality-deletes", 170);
    // Changes the next queries may see in the log tail or in the lake, whichever tiering reached.
    try (UpsertWriter writer = lakestream.connection().table(path).newUpsertWriter()) {
      for (long k = 100; k < 120; k++) {
        writer.upsert("r2", k, value(k, 2));
        state.put(List.of("r2", k), value(k, 2));
        writer.delete("r0", k);
        state.remove(List.of("r0", k));
      }
      writer.flush();
    }
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      List<List<Object>> expected = new ArrayList<>();
      state.entrySet().stream()
          .sorted(
              java.util.Comparator.comparing(
                      (Map.Entry<List<Object>, Long> e) -> (String) e.getKey().get(0))
                  .thenComparing(e -> (Long) e.getKey().get(1)))
          .forEach(
              entry ->
                  expected.add(
                      List.of(entry.getKey().get(0), entry.getKey().get(1), entry.getValue())));
      assertThat(query(connection, "SELECT region, k, v FROM push.regional ORDER BY region, k"))
          .containsExactlyElementsOf(expected);
      String r1 = "SELECT count(*), sum(v) FROM push.regional WHERE region = 'r1'";
      List<Long> r1Values =
          state.entrySet().stream()
              .filter(entry -> entry.getKey().get(0).equals("r1"))
              .map(Map.Entry::getValue)
              .toList();
      assertThat(query(connection, r1))
          .containsExactly(
              List.of((long) r1Values.size(), r1Values.stream().mapToLong(v -> v).sum()));
      assertThat(query(connection, "EXPLAIN " + r1).toString())
          .as("read as a view of the lake's files, not loaded whole")
          .contains("READ_PARQUET");
    }
  }

  @Test
  void logTailValuesOfEveryTypeReachDuckDbUnchanged() throws SQLException {
    // No tiering during the test: every row is in the log tail, copied into DuckDB per query.
    create(
        "typed_tail",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(3, "big", Types.LongType.get()),
            Types.NestedField.optional(4, "small", Types.FloatType.get()),
            Types.NestedField.optional(5, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(6, "price", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(7, "day", Types.DateType.get()),
            Types.NestedField.optional(8, "clock", Types.TimeType.get()),
            Types.NestedField.optional(9, "local_at", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(10, "name", Types.StringType.get()),
            Types.NestedField.optional(11, "happened_at", Types.TimestampType.withZone()),
            Types.NestedField.optional(12, "payload", Types.BinaryType.get())),
        "1h");
    try (AppendWriter writer =
        lakestream.connection().table(TablePath.of("push.typed_tail")).newAppendWriter()) {
      writer.append(
          1,
          true,
          -5L,
          1.5f,
          0.25,
          new java.math.BigDecimal("12.34"),
          java.time.LocalDate.of(2026, 12, 1),
          ((13 * 60 + 14) * 60 + 15) * 1_000_000L + 16,
          1_600_000_000_000_001L,
          "zürich",
          1_700_000_000_000_002L,
          new byte[] {1, 2});
      writer.append(2, null, null, null, null, null, null, null, null, null, null, null);
      writer.flush();
    }
    String columns =
        "id, flag, big, small, ratio, CAST(price AS VARCHAR), CAST(day AS VARCHAR),"
            + " CAST(clock AS VARCHAR), epoch_us(local_at), name";
    List<Object> values =
        List.of(
            1L,
            true,
            -5L,
            1.5,
            0.25,
            "12.34",
            "2026-12-01",
            "13:14:15.000016",
            1_600_000_000_000_001L,
            "zürich");
    List<Object> nulls = new ArrayList<>(List.of(2L));
    nulls.addAll(java.util.Collections.nCopies(values.size() - 1, null));
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      // These columns go through DuckDB's appender; with the other two, through an Arrow stream.
      assertThat(query(connection, "SELECT " + columns + " FROM push.typed_tail ORDER BY id"))
          .containsExactly(values, nulls);
      List<Object> allValues = new ArrayList<>(values);
      allValues.addAll(List.of(1_700_000_000_000_002L, "0102"));
      List<Object> allNulls = new ArrayList<>(nulls);
      allNulls.addAll(java.util.Arrays.asList(null, null));
      assertThat(
              query(
                  connection,
                  "SELECT "
                      + columns
                      + ", epoch_us(happened_at), hex(payload) FROM push.typed_tail ORDER BY id"))
          .containsExactly(allValues, allNulls);
    }
  }

  private static long value(long key, int round) {
    return (key * 7_919 + round * 104_729) % 3_000;
  }

  private static void awaitSummary(String name, String property, long atLeast) {
    RESTCatalog catalog = lakestream.catalog();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      var snapshot = catalog.loadTable(TableIdentifier.of("push", name)).currentSnapshot();
      if (snapshot != null
          && Long.parseLong(snapshot.summary().getOrDefault(property, "0")) >= atLeast) {
        return;
      }
      assertThat(System.nanoTime() - deadline)
          .as("%s of %s at least %s", property, name, atLeast)
          .isNegative();
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  /** Waits until the tiering service has picked up a table's new interval. */
  private static void awaitInterval(TablePath path, Duration interval) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!lakestream
        .server()
        .tiering()
        .orElseThrow()
        .state(path)
        .map(state -> state.interval().equals(interval))
        .orElse(false)) {
      assertThat(System.nanoTime() - deadline)
          .as("tiering of %s every %s", path, interval)
          .isNegative();
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  @Test
  void aLargeLogTailIsReadAsFilesInTheSameScanAsTheLake() throws SQLException {
    // No tiering round during the test: every row is in the log tail.
    create(
        "long_tail",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b0", Types.LongType.get()),
            Types.NestedField.optional(3, "note", Types.StringType.get())),
        "1h");
    long rows = 40_000;
    Connection streams = lakestream.connection();
    // Full 8192-row batches, so that round-robin gives each of the two buckets at least 8192 rows
    // (enough for a file): with the default 2 ms linger, batches cut short by the machine's pace
    // once left one bucket 7,914 rows, read from a table instead.
    WriterOptions fullBatches =
        WriterOptions.defaults().withBatchRows(8192).withLinger(Duration.ofSeconds(30));
    try (AppendWriter writer =
        streams.table(TablePath.of("push.long_tail")).newAppendWriter(fullBatches)) {
      for (long id = 0; id < rows; id++) {
        writer.append(id, id * 3, id % 10 == 0 ? null : "n" + id);
      }
      writer.flush();
    }
    String totals = "SELECT count(*), count(DISTINCT id), sum(b0), count(note) FROM push.long_tail";
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      // Twice: the first query writes the tail's files, the second reads the cached ones.
      for (int round = 0; round < 2; round++) {
        String plan = query(connection, "EXPLAIN " + totals).toString();
        assertThat(plan).as("the tail is read by the Parquet reader").contains("READ_PARQUET");
        assertThat(plan)
            .as("in one scan, without a tail table")
            .doesNotContainIgnoringCase("union")
            .doesNotContain("lakestream_tail");
        // The scan knows its files' row counts (DuckDB estimates a single row when it is given
        // the files' schema instead of reading their footers), which join ordering relies on.
        assertThat(query(connection, "EXPLAIN SELECT id FROM push.long_tail").toString())
            .contains("~40,000 rows");
        assertThat(query(connection, totals))
            .containsExactly(List.of(rows, rows, 3 * rows * (rows - 1) / 2, rows - rows / 10));
      }
      // A few newer rows are too few for a file: they join the scan from a table.
      try (AppendWriter writer = streams.table(TablePath.of("push.long_tail")).newAppendWriter()) {
        for (long id = rows; id < rows + 5; id++) {
          writer.append(id, id * 3, "n" + id);
        }
        writer.flush();
      }
      long all = rows + 5;
      assertThat(query(connection, "EXPLAIN " + totals).toString())
          .containsIgnoringCase("union")
          .contains("lakestream_tail");
      // Read whole a second time, unchanged: the tail has stopped growing, and its few rows are
      // written to a file too, so the view is one scan again.
      assertThat(query(connection, totals))
          .containsExactly(List.of(all, all, 3 * all * (all - 1) / 2, all - rows / 10));
      assertThat(query(connection, "EXPLAIN " + totals).toString())
          .doesNotContainIgnoringCase("union")
          .doesNotContain("lakestream_tail");
      assertThat(query(connection, totals))
          .containsExactly(List.of(all, all, 3 * all * (all - 1) / 2, all - rows / 10));
      // Rows after them: the small file's rows and the new ones are one piece again, from a table,
      // and the small file goes (a slow stream leaves no trail of small files).
      long files = tailFiles();
      try (AppendWriter writer = streams.table(TablePath.of("push.long_tail")).newAppendWriter()) {
        for (long id = all; id < all + 3; id++) {
          writer.append(id, id * 3, "n" + id);
        }
        writer.flush();
      }
      all += 3;
      assertThat(query(connection, "EXPLAIN " + totals).toString())
          .containsIgnoringCase("union")
          .contains("lakestream_tail");
      assertThat(query(connection, totals))
          .containsExactly(List.of(all, all, 3 * all * (all - 1) / 2, all - rows / 10));
      assertThat(
              query(
                  connection,
                  "SELECT id, b0, note FROM push.long_tail WHERE id IN (0, 7, 39999, 40004, 40007)"
                      + " ORDER BY id"))
          .isEqualTo(
              List.of(
                  java.util.Arrays.asList(0L, 0L, null),
                  List.of(7L, 21L, "n7"),
                  List.of(39_999L, 119_997L, "n39999"),
                  List.of(40_004L, 120_012L, "n40004"),
                  List.of(40_007L, 120_021L, "n40007")));
      assertThat(tailFiles()).isLessThanOrEqualTo(files);
    }
  }

  @Test
  void aTailGrowingInOneBucketAtATimeWritesNoSmallFiles() throws SQLException {
    // Two buckets, one row per batch: the batches go to the buckets in turn, so each query finds
    // one bucket grown and the other's few rows unchanged since the previous query.
    create(
        "growing_tail",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "note", Types.StringType.get())),
        "1h");
    String count = "SELECT count(*), count(DISTINCT id) FROM push.growing_tail";
    long files = tailFiles();
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        AppendWriter writer =
            lakestream
                .connection()
                .table(TablePath.of("push.growing_tail"))
                .newAppendWriter(WriterOptions.defaults().withLinger(Duration.ZERO))) {
      for (long id = 0; id < 8; id++) {
        writer.append(id, "n" + id);
        writer.flush();
        assertThat(query(connection, count)).containsExactly(List.of(id + 1, id + 1));
      }
      // Writing the unchanged bucket's rows to a file gains nothing while the other's are copied
      // into a table: the view has its UNION ALL either way.
      assertThat(tailFiles()).as("tail files while the tail grows").isEqualTo(files);
      // Stopped growing: the next query reads every piece whole a second time and writes them as
      // files, and the view is one scan.
      assertThat(query(connection, count)).containsExactly(List.of(8L, 8L));
      assertThat(tailFiles()).isGreaterThan(files);
      assertThat(query(connection, "EXPLAIN " + count).toString())
          .doesNotContainIgnoringCase("union")
          .doesNotContain("lakestream_tail");
      assertThat(query(connection, count)).containsExactly(List.of(8L, 8L));
    }
  }

  /** The files in the Flight SQL endpoint's directory of cached log tails. */
  private static long tailFiles() {
    try (Stream<Path> files = Files.list(data.resolve("flight-sql/tails"))) {
      return files.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aPreparedStatementsShapeFollowsTheTablesSchema() throws SQLException {
    create(
        "shaped",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "amount", Types.LongType.get())),
        "1h");
    String sql = "SELECT * FROM push.shaped";
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        assertThat(statement.getMetaData().getColumnCount()).isEqualTo(2);
      }
      // The same text again, after the table gained a column: the shape is the new one.
      lakestream
          .catalog()
          .loadTable(TableIdentifier.of("push", "shaped"))
          .updateSchema()
          .addColumn("note", Types.StringType.get())
          .commit();
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        assertThat(statement.getMetaData().getColumnCount()).isEqualTo(3);
        assertThat(statement.getMetaData().getColumnName(3)).isEqualTo("note");
      }
      // Dropped and created again under its name with other columns.
      lakestream.catalog().dropTable(TableIdentifier.of("push", "shaped"));
      create(
          "shaped",
          "log",
          new Schema(Types.NestedField.required(1, "label", Types.StringType.get())),
          "1h");
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        assertThat(statement.getMetaData().getColumnCount()).isEqualTo(1);
        assertThat(statement.getMetaData().getColumnName(1)).isEqualTo("label");
      }
    }
  }

  @Test
  void everyAcknowledgedRowIsInTheNextQuery() throws SQLException {
    create(
        "fresh",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())));
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        AppendWriter writer =
            lakestream.connection().table(TablePath.of("push.fresh")).newAppendWriter();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*), count(DISTINCT id), sum(id), count(name) FROM push.fresh")) {
      // One row at a time lands in one bucket or the other: the tail cache holds pieces of
      // several fetches, which each query reads together.
      for (long id = 0; id < 30; id++) {
        writer.append(id, id % 3 == 0 ? null : "n" + id);
        writer.flush();
        long rows = id + 1;
        long named = id - id / 3;
        try (ResultSet result = statement.executeQuery()) {
          assertThat(rows(result))
              .containsExactly(List.of(rows, rows, rows * (rows - 1) / 2, named));
        }
      }
    }
  }

  @Test
  void aResultOfManyBatchesStreamsWhileTheClientReads() throws SQLException {
    // About 25 MB in batches of 64K rows: more than gRPC's send buffer between two batches, so the
    // server has to wait for the client to read (it once waited for a callback that could not
    // come).
    long start = System.nanoTime();
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT i, repeat('x', 100) AS padding FROM range(250000) AS t(i)")) {
      long rows = 0;
      long sum = 0;
      while (result.next()) {
        sum += result.getLong(1);
        rows++;
      }
      assertThat(rows).isEqualTo(250_000);
      assertThat(sum).isEqualTo(250_000L * 249_999 / 2);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void addedAndRenamedColumnsReadByFieldIdFromTheLakeAndTheLog() throws SQLException {
    create(
        "evolving",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "amount", Types.LongType.get())));
    Connection streams = lakestream.connection();
    try (AppendWriter writer = streams.table(TablePath.of("push.evolving")).newAppendWriter()) {
      for (long id = 0; id < 10; id++) {
        writer.append(id, id * 10);
      }
      writer.flush();
    }
    awaitRowsTiered("evolving", 10);
    lakestream
        .catalog()
        .loadTable(TableIdentifier.of("push", "evolving"))
        .updateSchema()
        .renameColumn("amount", "total")
        .addColumn("note", Types.StringType.get())
        .commit();
    try (AppendWriter writer = streams.table(TablePath.of("push.evolving")).newAppendWriter()) {
      for (long id = 10; id < 15; id++) {
        writer.append(id, id * 10, "n" + id);
      }
      writer.flush();
    }
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      List<List<Object>> rows =
          query(connection, "SELECT id, total, note FROM push.evolving ORDER BY id");
      List<List<Object>> expected = new ArrayList<>();
      for (long id = 0; id < 15; id++) {
        expected.add(java.util.Arrays.asList(id, id * 10, id < 10 ? null : "n" + id));
      }
      assertThat(rows).isEqualTo(expected);
      assertThat(query(connection, "SELECT sum(total), count(note) FROM push.evolving"))
          .containsExactly(List.of(1050L, 5L));
    }
  }

  @Test
  void logTableCountsAndSumsEqualTheAcknowledgedRowsWhileTieringCommits() throws Exception {
    create(
        "moving",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "b0", Types.LongType.get())));
    int flushRows = 50;
    AtomicLong acknowledged = new AtomicLong();
    readWhileWritingAndTiering(
        "moving",
        stop -> {
          try (AppendWriter writer =
              lakestream
                  .connection()
                  .table(TablePath.of("push.moving"))
                  .newAppendWriter(WriterOptions.defaults())) {
            long id = 0;
            while (!stop.get()) {
              for (int i = 0; i < flushRows; i++, id++) {
                writer.append(id, id * 3);
              }
              writer.flush();
              acknowledged.set(id);
            }
          }
        },
        connection -> {
          PreparedStatement statement =
              connection.prepareStatement(
                  "SELECT count(*), count(DISTINCT id), sum(b0) - 3 * sum(id),"
                      + " count(*) FILTER (WHERE id < ?), coalesce(max(id), -1)"
                      + " FROM push.moving");
          return new Read() {
            @Override
            public void check() throws Exception {
              long before = acknowledged.get();
              statement.setLong(1, before);
              List<Object> row;
              try (ResultSet result = statement.executeQuery()) {
                row = rows(result).get(0);
              }
              long after = acknowledged.get();
              long count = (Long) row.get(0);
              assertThat(row.get(1)).as("no row twice").isEqualTo(count);
              assertThat(row.get(2)).as("every row whole").isEqualTo(0L);
              assertThat(row.get(3))
                  .as("every row acknowledged before the query")
                  .isEqualTo(before);
              // The writer has one flush in flight at a time: it may show, nothing after it.
              assertThat(count).isLessThanOrEqualTo(after + flushRows);
              assertThat((Long) row.get(4)).isLessThan(after + flushRows);
            }

            @Override
            public void close() throws SQLException {
              statement.close();
            }
          };
        });
  }

  @Test
  void primaryKeyTableEqualsTheWrittenStateWhileTieringCommits() throws Exception {
    create(
        "state",
        "primary-key",
        new Schema(
            List.of(
                Types.NestedField.required(1, "k", Types.LongType.get()),
                Types.NestedField.optional(2, "v", Types.LongType.get())),
            Set.of(1)));
    int keys = 200;
    // states.get(r): the state after the writer's r-th acknowledged flush (key to value).
    List<Map<Long, Long>> states = new CopyOnWriteArrayList<>();
    states.add(Map.of());
    readWhileWritingAndTiering(
        "state",
        stop -> {
          Random random = new Random(7);
          Map<Long, Long> state = new HashMap<>();
          try (UpsertWriter writer =
              lakestream
                  .connection()
                  .table(TablePath.of("push.state"))
                  .newUpsertWriter(WriterOptions.defaults())) {
            for (long round = 1; !stop.get(); round++) {
              for (int i = 0; i < 20; i++) {
                long key = random.nextInt(keys);
                if (random.nextInt(5) == 0) {
                  writer.delete(key);
                  state.remove(key);
                } else {
                  writer.upsert(key, round);
                  state.put(key, round);
                }
              }
              writer.flush();
              states.add(Map.copyOf(state));
            }
          }
        },
        connection ->
            () -> {
              int before = states.size() - 1;
              List<List<Object>> rows = query(connection, "SELECT k, v FROM push.state");
              int after = states.size() - 1;
              Map<Long, Long> read = new HashMap<>();
              for (List<Object> row : rows) {
                assertThat(read.put((Long) row.get(0), (Long) row.get(1)))
                    .as("key %s once", row.get(0))
                    .isNull();
              }
              // The flush in flight when the query ended may show in part: wait until it is
              // acknowledged. Buckets become durable independently, so each key shows its value
              // (or absence, -1) of some state from the one acknowledged before the query to that
              // flush.
              long wait = System.nanoTime() + Duration.ofSeconds(30).toNanos();
              while (states.size() < after + 2) {
                assertThat(System.nanoTime() - wait).as("the writer's next flush").isNegative();
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
              }
              for (long key = 0; key < keys; key++) {
                Set<Long> allowed = new HashSet<>();
                for (int r = before; r <= after + 1; r++) {
                  allowed.add(states.get(r).getOrDefault(key, -1L));
                }
                assertThat(read.getOrDefault(key, -1L))
                    .as("key %s between states %s and %s", key, before, after + 1)
                    .isIn(allowed);
              }
            });
  }

  /** A writer that runs until {@code stop} is set. */
  private interface Writing {
    void run(AtomicBoolean stop) throws Exception;
  }

  /** Reads of a table through one connection: what one read checks. */
  private interface Reads {
    Read on(java.sql.Connection connection) throws SQLException;
  }

  /** One read and its check; closed before the connection. */
  private interface Read extends AutoCloseable {
    void check() throws Exception;

    @Override
    default void close() throws SQLException {}
  }

  /**
   * Runs {@code writing} in the background and, once tiering committed its first rows, checks
   * {@code reads} over one connection at least five times and for eight seconds; tiering must
   * commit more than twice meanwhile.
   */
  private static void readWhileWritingAndTiering(String name, Writing writing, Reads reads)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> writer =
        pool.submit(
            () -> {
              writing.run(stop);
              return null;
            });
    try {
      awaitRowsTiered(name, 1);
      Set<Long> snapshots = new HashSet<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
      int count = 0;
      try (java.sql.Connection connection = DriverManager.getConnection(url);
          Read read = reads.on(connection)) {
        while (count < 5 || System.nanoTime() < deadline) {
          read.check();
          snapshots.add(
              lakestream
                  .catalog()
                  .loadTable(TableIdentifier.of("push", name))
                  .currentSnapshot()
                  .snapshotId());
          count++;
        }
      }
      assertThat(snapshots).as("tiering committed while the queries ran").hasSizeGreaterThan(2);
    } finally {
      stop.set(true);
      writer.get();
      pool.shutdown();
    }
  }
}
