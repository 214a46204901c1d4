package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.tiering.TieringService;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 22 TPC-H queries (scale factor 0.1, the specification's validation parameters) through the
 * Flight SQL JDBC driver over log tables whose rows are partly tiered into the lake and partly only
 * in the log, each compared with the same query run by DuckDB in this JVM over the same rows loaded
 * directly.
 *
 * <p>Every table is written through the streaming write path ({@link AppendWriter}); the first 60%
 * of each table's rows are tiered, then tiering is slowed down to once an hour and the remaining
 * 40% stay in the log, which the test checks before and after the queries. Money columns are {@code
 * decimal(15,2)}. Results are compared in order (every multi-row query orders its result; Q3, Q10
 * and Q18 have a key appended to their {@code ORDER BY} so that ties at the {@code LIMIT} are
 * deterministic), numbers with a relative tolerance of 1e-9.
 */
class TpchFlightSqlIT {
  private static final double SCALE_FACTOR = 0.1;
  private static final double TIERED_SHARE = 0.6;

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static java.sql.Connection reference;
  private static String url;
  private static final Map<String, long[]> rowCounts = new LinkedHashMap<>(); // total, tiered

  @BeforeAll
  static void load() throws Exception {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    RESTCatalog catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("tpch"), new HashMap<>());
    reference = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement statement = reference.createStatement()) {
      statement.execute("CREATE SCHEMA tpch");
    }
    for (TpchTable<?> table : TpchTable.getTables()) {
      create(catalog, table);
    }
    // The first part of every table, tiered.
    for (TpchTable<?> table : TpchTable.getTables()) {
      long rows = write(table, 0, Long.MAX_VALUE, true);
      rowCounts.put(table.getTableName(), new long[] {rows, 0});
    }
    for (TpchTable<?> table : TpchTable.getTables()) {
      long[] counts = rowCounts.get(table.getTableName());
      counts[1] = (long) (counts[0] * TIERED_SHARE);
      write(table, 0, counts[1], false);
    }
    for (TpchTable<?> table : TpchTable.getTables()) {
      awaitTiered(table.getTableName(), rowCounts.get(table.getTableName())[1]);
    }
    // Then tiering stops (its interval becomes an hour) and the rest stays in the log.
    for (TpchTable<?> table : TpchTable.getTables()) {
      catalog
          .loadTable(TableIdentifier.of("tpch", table.getTableName()))
          .updateProperties()
          .set("lakestream.tiering.interval", "1h")
          .commit();
    }
    awaitHourlyTiering();
    for (TpchTable<?> table : TpchTable.getTables()) {
      long[] counts = rowCounts.get(table.getTableName());
      write(table, counts[1], counts[0], false);
    }
    url =
        "jdbc:arrow-flight-sql://127.0.0.1:"
            + lakestream.server().flightPort()
            + "?useEncryption=false";
  }

  @AfterAll
  static void stop() throws Exception {
    if (reference != null) {
      reference.close();
    }
    if (lakestream != null) {
      lakestream.close();
    }
  }

  private static void create(RESTCatalog catalog, TpchTable<?> table) throws SQLException {
    List<Types.NestedField> fields = new ArrayList<>();
    StringBuilder ddl = new StringBuilder("CREATE TABLE tpch." + table.getTableName() + " (");
    int id = 1;
    for (TpchColumn<?> column : table.getColumns()) {
      Type type = icebergType(column);
      fields.add(Types.NestedField.optional(id++, column.getColumnName(), type));
      ddl.append(id == 2 ? "" : ", ")
          .append(column.getColumnName())
          .append(' ')
          .append(duckdbType(type));
    }
    catalog.createTable(
        TableIdentifier.of("tpch", table.getTableName()),
        new Schema(fields),
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind", "log",
                "lakestream.buckets", "2",
                "lakestream.tiering.interval", "1s")));
    try (Statement statement = reference.createStatement()) {
      statement.execute(ddl.append(')').toString());
    }
  }

  private static Type icebergType(TpchColumn<?> column) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> Types.LongType.get();
      case INTEGER -> Types.IntegerType.get();
      case DATE -> Types.DateType.get();
      case DOUBLE -> Types.DecimalType.of(15, 2);
      case VARCHAR -> Types.StringType.get();
    };
  }

  private static String duckdbType(Type type) {
    return switch (type.typeId()) {
      case LONG -> "BIGINT";
      case INTEGER -> "INTEGER";
      case DATE -> "DATE";
      case DECIMAL -> "DECIMAL(15,2)";
      default -> "VARCHAR";
    };
  }

  /**
   * Writes rows {@code [from, to)} of a table to Lakestream and to the reference database; only
   * counts them when {@code countOnly}.
   *
   * @return the rows the table has (when counting) or wrote
   */
  private static <E extends TpchEntity> long write(
      TpchTable<E> table, long from, long to, boolean countOnly) throws SQLException {
    long index = 0;
    long written = 0;
    if (countOnly) {
      for (E ignored : table.createGenerator(SCALE_FACTOR, 1, 1)) {
        index++;
      }
      return index;
    }
    List<TpchColumn<E>> columns = table.getColumns();
    Connection streams = lakestream.connection();
    try (AppendWriter writer =
            streams
                .table(TablePath.of("tpch." + table.getTableName()))
                .newAppendWriter(WriterOptions.defaults());
        DuckDBAppender appender =
            reference.unwrap(DuckDBConnection.class).createAppender("tpch", table.getTableName())) {
      Object[] values = new Object[columns.size()];
      for (E row : table.createGenerator(SCALE_FACTOR, 1, 1)) {
        if (index >= to) {
          break;
        }
        if (index++ < from) {
          continue;
        }
        appender.beginRow();
        for (int i = 0; i < values.length; i++) {
          TpchColumn<E> column = columns.get(i);
          switch (column.getType().getBase()) {
            case IDENTIFIER -> {
              long value = column.getIdentifier(row);
              values[i] = value;
              appender.append(value);
            }
            case INTEGER -> {
              int value = column.getInteger(row);
              values[i] = value;
              appender.append(value);
            }
            case DATE -> {
              LocalDate value = LocalDate.ofEpochDay(column.getDate(row));
              values[i] = value;
              appender.append(value);
            }
            case DOUBLE -> {
              BigDecimal value =
                  BigDecimal.valueOf(column.getDouble(row)).setScale(2, RoundingMode.HALF_UP);
              values[i] = value;
              appender.append(value);
            }
            case VARCHAR -> {
              String value = column.getString(row);
              values[i] = value;
              appender.append(value);
            }
          }
        }
        appender.endRow();
        writer.append(values);
        written++;
      }
      writer.flush();
    }
    return written;
  }

  private static long tieredRows(String table) {
    Snapshot snapshot =
        lakestream.catalog().loadTable(TableIdentifier.of("tpch", table)).currentSnapshot();
    return snapshot == null
        ? 0
        : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
  }

  private static void awaitTiered(String table, long rows) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (tieredRows(table) < rows) {
      assertThat(System.nanoTime() - deadline).as("%s rows of %s tiered", rows, table).isNegative();
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(tieredRows(table)).as("tiered rows of %s", table).isEqualTo(rows);
  }

  /** Waits until the tiering service has picked up the hourly interval of every table. */
  private static void awaitHourlyTiering() {
    TieringService tiering = lakestream.server().tiering().orElseThrow();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      long hourly =
          tiering.tables().entrySet().stream()
              .filter(entry -> entry.getKey().namespace().equals(List.of("tpch")))
              .filter(entry -> entry.getValue().interval().equals(Duration.ofHours(1)))
              .count();
      if (hourly == TpchTable.getTables().size()) {
        return;
      }
      assertThat(System.nanoTime() - deadline).as("tiering every hour").isNegative();
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  @Test
  void everyTpchQueryAnswersLikeDuckDbOverTheSameRows() throws Exception {
    for (Map.Entry<String, long[]> table : rowCounts.entrySet()) {
      assertThat(tieredRows(table.getKey()))
          .as("%s: rows in the lake (the rest is only in the log)", table.getKey())
          .isEqualTo(table.getValue()[1])
          .isLessThan(table.getValue()[0]);
    }
    List<String> failures = new ArrayList<>();
    try (java.sql.Connection flight = DriverManager.getConnection(url)) {
      // Every row once: the counts equal what was written.
      for (Map.Entry<String, long[]> table : rowCounts.entrySet()) {
        assertThat(rows(flight, "SELECT count(*) FROM tpch." + table.getKey()))
            .as("rows of %s", table.getKey())
            .containsExactly(List.of(BigDecimal.valueOf(table.getValue()[0])));
      }
      for (int query = 1; query <= 22; query++) {
        String name = String.format("q%02d.sql", query);
        String sql = resource(name);
        List<List<Object>> expected = rows(reference, sql);
        List<List<Object>> actual = rows(flight, sql);
        String mismatch = compare(expected, actual);
        if (mismatch != null) {
          failures.add(name + ": " + mismatch);
        }
        if (query != 6 && query != 14 && query != 17 && query != 19) {
          assertThat(expected).as("%s returns rows", name).isNotEmpty();
        }
      }
    }
    if (!failures.isEmpty()) {
      fail(String.join("\n", failures));
    }
    for (Map.Entry<String, long[]> table : rowCounts.entrySet()) {
      assertThat(tieredRows(table.getKey()))
          .as("%s: still partly in the log", table.getKey())
          .isEqualTo(table.getValue()[1]);
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = TpchFlightSqlIT.class.getResourceAsStream("/tpch/" + name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<List<Object>> rows(java.sql.Connection connection, String sql)
      throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<Object> row = new ArrayList<>();
        for (int column = 1; column <= columns; column++) {
          row.add(normalize(result.getObject(column)));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Numbers as BigDecimal, dates as LocalDate, text as String. */
  private static Object normalize(Object value) {
    return switch (value) {
      case null -> null;
      case BigDecimal decimal -> decimal;
      case Double number -> BigDecimal.valueOf(number);
      case Float number -> BigDecimal.valueOf(number.doubleValue());
      case Number number -> BigDecimal.valueOf(number.longValue());
      case java.sql.Date date -> date.toLocalDate();
      case LocalDate date -> date;
      default -> value.toString();
    };
  }

  /** The first difference between two results, or null when they agree. */
  private static String compare(List<List<Object>> expected, List<List<Object>> actual) {
    if (expected.size() != actual.size()) {
      return "expected " + expected.size() + " rows but got " + actual.size();
    }
    for (int row = 0; row < expected.size(); row++) {
      List<Object> want = expected.get(row);
      List<Object> got = actual.get(row);
      if (want.size() != got.size()) {
        return "row " + row + ": expected " + want + " but got " + got;
      }
      for (int column = 0; column < want.size(); column++) {
        if (!same(want.get(column), got.get(column))) {
          return "row "
              + row
              + ", column "
              + (column + 1)
              + ": expected "
              + want
              + " but got "
              + got;
        }
      }
    }
    return null;
  }

  private static boolean same(Object expected, Object actual) {
    if (expected instanceof BigDecimal want && actual instanceof BigDecimal got) {
      if (want.compareTo(got) == 0) {
        return true;
      }
      double difference = Math.abs(want.doubleValue() - got.doubleValue());
      return difference <= 1e-9 * Math.max(1, Math.abs(want.doubleValue()));
    }
    return java.util.Objects.equals(expected, actual);
  }
}
