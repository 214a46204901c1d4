package io.lakestream.bench;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Flight SQL over union reads, workload W3 (TPC-H), in the packaged server.
 *
 * <p>Once per run: starts {@code bin/lakestream server}, writes the eight TPC-H tables (scale
 * factor 1, quick mode 0.1) through the streaming write path, tiers the first 90% of each table's
 * rows and leaves the last 10% in the log (tiering is then slowed to once an hour). The baseline is
 * DuckDB in this JVM (2 threads, 1 GB, like the server's per-query database) over the same rows as
 * Parquet: the lake snapshot's files plus the tail rows written to a Parquet file by DuckDB.
 *
 * <p>Each iteration measures:
 *
 * <ul>
 *   <li><b>TPC-H</b>: the 22 queries (validation parameters; Q11's fraction 0.0001 / SF) through
 *       the Flight SQL JDBC driver (time to the last row), beside the same query in the baseline;
 *       the geometric mean of the per-query ratios is a figure of its own (target at most 1.15);
 *       before the first timed run, each query's answer is checked equal to DuckDB's (rows in any
 *       order, decimals by value, doubles to 9 significant digits);
 *   <li><b>fetch</b>: {@code SELECT * FROM lineitem} through a Flight SQL client, Arrow bytes
 *       received per second, beside a loopback socket copy of as many bytes (target ratio 0.5);
 *   <li><b>freshness</b>: a row appended and acknowledged, then queried until a new query sees it;
 *       p50/p99 of ack-to-visible (target p99 below 25 ms), beside the round trip of a trivial
 *       query;
 *   <li><b>SELECT 1</b>: the round trip of a prepared {@code SELECT 1} through the JDBC driver, p50
 *       (target below 3 ms) and p99, beside the same statement in the baseline database.
 * </ul>
 */
final class FlightSqlBenchmark implements Benchmark {
  private static final double FULL_SCALE = 1.0;
  private static final double QUICK_SCALE = 0.1;
  private static final double TIERED_SHARE = 0.9;
  private static final int FULL_FRESHNESS_SAMPLES = 200;
  private static final int QUICK_FRESHNESS_SAMPLES = 20;
  private static final double GEOMEAN_RATIO_TARGET = 1.15;
  private static final double FRESHNESS_P99_TARGET_MS = 25;
  private static final double TRIVIAL_QUERY_TARGET_MS = 3;
  private static final double FETCH_RATIO_TARGET = 0.5;

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration TIERING_DEADLINE = Duration.ofMinutes(15);
  private static final Duration VISIBLE_DEADLINE = Duration.ofSeconds(10);

  @Override
  public String name() {
    return "flight-sql";
  }

  @Override
  public String workload() {
    return "W3 TPC-H scale factor "
        + FULL_SCALE
        + " (quick mode "
        + QUICK_SCALE
        + "), 8 log tables of 2 buckets written through the append path, 90% tiered and 10% in"
        + " the log; 22 queries through the Flight SQL JDBC driver beside DuckDB in process (2"
        + " threads) over the same rows as Parquet; full fetch of lineitem; freshness of "
        + FULL_FRESHNESS_SAMPLES
        + " appends (quick mode "
        + QUICK_FRESHNESS_SAMPLES
        + ")";
  }

  /** One iteration's measurements. */
  private static final class Sample {
    final double[] flightMs = new double[22];
    final double[] duckdbMs = new double[22];
    double fetchMegabytesPerSecond;
    double socketMegabytesPerSecond;
    double freshnessP50;
    double freshnessP99;
    double trivialQueryMs;
    double trivialQueryP99Ms;
    double trivialBaselineMs;
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    double scale = quick ? QUICK_SCALE : FULL_SCALE;
    int freshnessSamples = quick ? QUICK_FRESHNESS_SAMPLES : FULL_FRESHNESS_SAMPLES;
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    List<String> queries = queries(context.lakestreamHome(), scale);
    List<Sample> samples;
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-flight-");
        HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      Path work = directory.path();
      try (LaunchedServer server = startServer(launcher, work, http, "Lakestream server")) {
        int flightPort = server.flightPort();
        String url = jdbcUrl(server);
        try (RESTCatalog catalog = LaunchedServer.catalog(server.base());
            Connection streams = Connection.open("127.0.0.1", server.rpcPort(), null);
            java.sql.Connection baseline = baselineDatabase()) {
          load(context, catalog, streams, baseline, work, scale);
          catalog.createTable(
              TableIdentifier.of("tpch", "fresh"),
              new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
              PartitionSpec.unpartitioned(),
              Map.of(
                  LakestreamProperties.KIND, TableKind.LOG.value(),
                  LakestreamProperties.BUCKETS, "2",
                  LakestreamProperties.TIERING_INTERVAL, "1s"));
          long[] nextId = {0};
          try (java.sql.Connection flight = DriverManager.getConnection(url)) {
            checkAnswers(flight, baseline, queries);
          }
          samples =
              context.iterate(
                  () -> {
                    Sample sample = new Sample();
                    try (java.sql.Connection flight = DriverManager.getConnection(url)) {
                      tpch(context, flight, baseline, queries, sample);
                      fetch(flightPort, sample);
                      freshness(flight, streams, freshnessSamples, nextId, sample);
                      sample.trivialBaselineMs = trivialBaseline(baseline, freshnessSamples);
                    }
                    return sample;
                  });
        }
        server.stopCleanly();
      }
    }
    List<Figure> figures = new ArrayList<>();
    double logRatios = 0;
    for (int q = 0; q < 22; q++) {
      int query = q;
      Figure figure =
          Figure.pairedWithoutTarget(
              String.format(Locale.ROOT, "tpch_q%02d_ms", q + 1),
              samples,
              s -> s.flightMs[query],
              "ms",
              "DuckDB in process over the same rows as Parquet",
              s -> s.duckdbMs[query]);
      logRatios += Math.log(figure.ratio());
      figures.add(figure);
    }
    // Each iteration's geometric means (through Flight SQL and in DuckDB) and their ratio, so that
    // the ratio judged is one iteration's, its two sides measured query by query beside each other.
    figures.add(
        0,
        Figure.paired(
            "tpch_geomean_ms",
            samples,
            s -> geometricMean(s.flightMs),
            "ms",
            "DuckDB in process over the same rows as Parquet (geometric mean)",
            s -> geometricMean(s.duckdbMs),
            Target.ratioAtMost(GEOMEAN_RATIO_TARGET)));
    context
        .progress()
        .printf("  geometric mean of per-query ratios: %.3f%n", Math.exp(logRatios / 22));
    figures.add(
        Figure.paired(
            "fetch_mb_per_s",
            samples,
            s -> s.fetchMegabytesPerSecond,
            "MB/s",
            "loopback socket copy of as many bytes",
            s -> s.socketMegabytesPerSecond,
            Target.ratioAtLeast(FETCH_RATIO_TARGET)));
    double trivial = Median.of(samples, s -> s.trivialQueryMs);
    figures.add(
        Figure.paired(
            "select_1_ms_p50",
            samples,
            s -> s.trivialQueryMs,
            "ms",
            "round trip of SELECT 1 as a DuckDB query in this JVM (no network, no tables)",
            s -> s.trivialBaselineMs,
            Target.below(TRIVIAL_QUERY_TARGET_MS)));
    figures.add(
        Figure.pairedWithoutTarget(
            "select_1_ms_p99",
            samples,
            s -> s.trivialQueryP99Ms,
            "ms",
            "round trip of SELECT 1 as a DuckDB query in this JVM (no network, no tables)",
            s -> s.trivialBaselineMs));
    figures.add(
        Figure.withoutTarget(
            "freshness_ms_p50",
            Median.of(samples, s -> s.freshnessP50),
            "ms",
            "round trip of SELECT 1 through the JDBC driver",
            trivial));
    figures.add(
        Figure.of(
            "freshness_ms_p99",
            Median.of(samples, s -> s.freshnessP99),
            "ms",
            "round trip of SELECT 1 through the JDBC driver",
            trivial,
            Target.below(FRESHNESS_P99_TARGET_MS)));
    return figures;
  }

  /**
   * The 22 TPC-H queries at one scale factor, as this benchmark's TPC-H part measures them (a new
   * server, the same load, answers checked, the context's warm-up and measured iterations): the
   * geometric means of the per-query medians through Flight SQL and in the baseline, and the time
   * the load took (written, 90% tiered, tail written). For the scaling benchmark's TPC-H curve.
   */
  static TpchPoint tpchAt(BenchmarkContext context, double scale) throws Exception {
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    List<String> queries = queries(context.lakestreamHome(), scale);
    List<Sample> samples;
    double loadSeconds;
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-tpch-");
        HttpClient http = LaunchedServer.httpClient(REQUEST_TIMEOUT)) {
      Path work = directory.path();
      try (LaunchedServer server =
          startServer(launcher, work, http, "Lakestream server (TPC-H SF " + scale + ")")) {
        String url = jdbcUrl(server);
        try (RESTCatalog catalog = LaunchedServer.catalog(server.base());
            Connection streams = Connection.open("127.0.0.1", server.rpcPort(), null);
            java.sql.Connection baseline = baselineDatabase()) {
          long start = System.nanoTime();
          load(context, catalog, streams, baseline, work, scale);
          loadSeconds = (System.nanoTime() - start) / 1e9;
          try (java.sql.Connection flight = DriverManager.getConnection(url)) {
            checkAnswers(flight, baseline, queries);
          }
          samples =
              context.iterate(
                  () -> {
                    Sample sample = new Sample();
                    try (java.sql.Connection flight = DriverManager.getConnection(url)) {
                      tpch(context, flight, baseline, queries, sample);
                    }
                    return sample;
                  });
        }
        server.stopCleanly();
      }
    }
    return new TpchPoint(
        Median.of(samples, s -> geometricMean(s.flightMs)),
        Median.of(samples, s -> geometricMean(s.duckdbMs)),
        Median.ofRatios(samples, s -> geometricMean(s.flightMs), s -> geometricMean(s.duckdbMs)),
        loadSeconds);
  }

  /** The geometric mean of an iteration's 22 query times. */
  private static double geometricMean(double[] millis) {
    double logs = 0;
    for (double value : millis) {
      logs += Math.log(value);
    }
    return Math.exp(logs / millis.length);
  }

  /**
   * @param flightGeomeanMs the median over the iterations of the 22 queries' geometric mean through
   *     Flight SQL
   * @param duckdbGeomeanMs the same in the baseline
   * @param ratio the median over the iterations of the ratio of the two geometric means
   * @param loadSeconds how long writing, tiering and the baseline's files took
   */
  record TpchPoint(
      double flightGeomeanMs, double duckdbGeomeanMs, double ratio, double loadSeconds) {}

  /** The packaged server on {@code work}, tiering tables found within a second. */
  private static LaunchedServer startServer(
      Path launcher, Path work, HttpClient http, String description) throws Exception {
    return LaunchedServer.start(
        launcher,
        work.resolve("data"),
        work.resolve("server.log"),
        description,
        List.of("--tiering-discovery-interval", "1s"),
        http,
        REQUEST_TIMEOUT);
  }

  private static String jdbcUrl(LaunchedServer server) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + server.flightPort() + "?useEncryption=false";
  }

  private static java.sql.Connection baselineDatabase() throws SQLException {
    Properties settings = new Properties();
    settings.setProperty("threads", "2");
    settings.setProperty("memory_limit", "1GB");
    java.sql.Connection duckdb = DriverManager.getConnection("jdbc:duckdb:", settings);
    try (Statement statement = duckdb.createStatement()) {
      statement.execute("CREATE SCHEMA tpch");
      statement.execute("CREATE SCHEMA tail");
    }
    return duckdb;
  }

  /** The 22 query texts of the TPC-H test, Q11's fraction set for the scale factor. */
  private static List<String> queries(Path home, double scale) throws Exception {
    Path directory = home.resolve("catalog-server/src/test/resources/tpch");
    List<String> queries = new ArrayList<>();
    for (int q = 1; q <= 22; q++) {
      String sql =
          Files.readString(
              directory.resolve(String.format(Locale.ROOT, "q%02d.sql", q)),
              StandardCharsets.UTF_8);
      if (q == 11) {
        sql =
            sql.replace(
                "* 0.001",
                "* " + BigDecimal.valueOf(0.0001 / scale).setScale(8, RoundingMode.HALF_UP));
      }
      queries.add(sql);
    }
    return queries;
  }

  /**
   * Writes the tables (the tail rows also into the baseline database, then to Parquet), waits for
   * the first 90% to be tiered, and creates the baseline's views.
   */
  private static void load(
      BenchmarkContext context,
      RESTCatalog catalog,
      Connection streams,
      java.sql.Connection baseline,
      Path work,
      double scale)
      throws Exception {
    catalog.createNamespace(Namespace.of("tpch"));
    Map<String, long[]> counts = new HashMap<>();
    long start = System.nanoTime();
    for (TpchTable<?> table : TpchTable.getTables()) {
      create(catalog, baseline, table);
      long rows = count(table, scale);
      long tiered = (long) (rows * TIERED_SHARE);
      counts.put(table.getTableName(), new long[] {rows, tiered});
      write(streams, null, table, scale, 0, tiered);
    }
    context
        .progress()
        .printf("  wrote the tiered part in %.1f s%n", (System.nanoTime() - start) / 1e9);
    for (TpchTable<?> table : TpchTable.getTables()) {
      awaitTiered(catalog, table.getTableName(), counts.get(table.getTableName())[1]);
    }
    context.progress().printf("  tiered after %.1f s%n", (System.nanoTime() - start) / 1e9);
    for (TpchTable<?> table : TpchTable.getTables()) {
      catalog
          .loadTable(TableIdentifier.of("tpch", table.getTableName()))
          .updateProperties()
          .set(LakestreamProperties.TIERING_INTERVAL, "1h")
          .commit();
    }
    // The service sees the new interval at its next discovery (every second) and re-times the
    // next round from the last one; until then a round could still start: wait past that.
    long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (System.nanoTime() < quiet) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    for (TpchTable<?> table : TpchTable.getTables()) {
      long[] rows = counts.get(table.getTableName());
      write(streams, baseline, table, scale, rows[1], rows[0]);
    }
    try (Statement statement = baseline.createStatement()) {
      for (TpchTable<?> table : TpchTable.getTables()) {
        String name = table.getTableName();
        Path tail = work.resolve("tail-" + name + ".parquet");
        statement.execute("COPY tail." + name + " TO '" + tail + "' (FORMAT parquet)");
        statement.execute("DROP TABLE tail." + name);
        List<String> files = new ArrayList<>();
        Table lake = catalog.loadTable(TableIdentifier.of("tpch", name));
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
          for (FileScanTask task : tasks) {
            String location = task.file().location();
            files.add(
                location.startsWith("file:") ? Path.of(URI.create(location)).toString() : location);
          }
        }
        files.add(tail.toString());
        StringBuilder list = new StringBuilder();
        for (String file : files) {
          list.append(list.isEmpty() ? "" : ", ").append('\'').append(file).append('\'');
        }
        statement.execute(
            "CREATE VIEW tpch."
                + name
                + " AS SELECT * FROM read_parquet(["
                + list
                + "], union_by_name = true)");
        if (tieredRows(catalog, name) != counts.get(name)[1]) {
          throw new IllegalStateException(
              "Table " + name + " was tiered further than its first 90%; the log tail is gone");
        }
      }
    }
  }

  private static void create(RESTCatalog catalog, java.sql.Connection baseline, TpchTable<?> table)
      throws SQLException {
    List<Types.NestedField> fields = new ArrayList<>();
    StringBuilder ddl = new StringBuilder("CREATE TABLE tail." + table.getTableName() + " (");
    int id = 1;
    for (TpchColumn<?> column : table.getColumns()) {
      Type type =
          switch (column.getType().getBase()) {
            case IDENTIFIER -> Types.LongType.get();
            case INTEGER -> Types.IntegerType.get();
            case DATE -> Types.DateType.get();
            case DOUBLE -> Types.DecimalType.of(15, 2);
            case VARCHAR -> Types.StringType.get();
          };
      fields.add(Types.NestedField.optional(id++, column.getColumnName(), type));
      ddl.append(id == 2 ? "" : ", ")
          .append(column.getColumnName())
          .append(' ')
          .append(
              switch (type.typeId()) {
                case LONG -> "BIGINT";
                case INTEGER -> "INTEGER";
                case DATE -> "DATE";
                case DECIMAL -> "DECIMAL(15,2)";
                default -> "VARCHAR";
              });
    }
    catalog.createTable(
        TableIdentifier.of("tpch", table.getTableName()),
        new Schema(fields),
        PartitionSpec.unpartitioned(),
        Map.of(
            LakestreamProperties.KIND, TableKind.LOG.value(),
            LakestreamProperties.BUCKETS, "2",
            LakestreamProperties.TIERING_INTERVAL, "1s"));
    try (Statement statement = baseline.createStatement()) {
      statement.execute(ddl.append(')').toString());
    }
  }

  private static <E extends TpchEntity> long count(TpchTable<E> table, double scale) {
    long rows = 0;
    for (E ignored : table.createGenerator(scale, 1, 1)) {
      rows++;
    }
    return rows;
  }

  /** Appends rows {@code [from, to)} to Lakestream and, when given, to the baseline's tail. */
  private static <E extends TpchEntity> void write(
      Connection streams,
      java.sql.Connection baseline,
      TpchTable<E> table,
      double scale,
      long from,
      long to)
      throws SQLException {
    List<TpchColumn<E>> columns = table.getColumns();
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(8192).withLinger(Duration.ofMillis(20));
    try (AppendWriter writer =
            streams.table(TablePath.of("tpch." + table.getTableName())).newAppendWriter(options);
        DuckDBAppender appender =
            baseline == null
                ? null
                : baseline
                    .unwrap(DuckDBConnection.class)
                    .createAppender("tail", table.getTableName())) {
      Object[] values = new Object[columns.size()];
      long index = 0;
      for (E row : table.createGenerator(scale, 1, 1)) {
        if (index >= to) {
          break;
        }
        if (index++ < from) {
          continue;
        }
        for (int i = 0; i < values.length; i++) {
          TpchColumn<E> column = columns.get(i);
          values[i] =
              switch (column.getType().getBase()) {
                case IDENTIFIER -> column.getIdentifier(row);
                case INTEGER -> column.getInteger(row);
                case DATE -> LocalDate.ofEpochDay(column.getDate(row));
                case DOUBLE ->
                    BigDecimal.valueOf(column.getDouble(row)).setScale(2, RoundingMode.HALF_UP);
                case VARCHAR -> column.getString(row);
              };
        }
        writer.append(values);
        if (appender != null) {
          appender.beginRow();
          for (Object value : values) {
            switch (value) {
              case Long number -> appender.append(number.longValue());
              case Integer number -> appender.append(number.intValue());
              case LocalDate date -> appender.append(date);
              case BigDecimal decimal -> appender.append(decimal);
              default -> appender.append(value.toString());
            }
          }
          appender.endRow();
        }
      }
      writer.flush();
    }
  }

  private static long tieredRows(RESTCatalog catalog, String table) {
    Snapshot snapshot = catalog.loadTable(TableIdentifier.of("tpch", table)).currentSnapshot();
    return snapshot == null
        ? 0
        : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
  }

  private static void awaitTiered(RESTCatalog catalog, String table, long rows) {
    long deadline = System.nanoTime() + TIERING_DEADLINE.toNanos();
    while (tieredRows(catalog, table) < rows) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "Table " + table + " was not tiered to " + rows + " rows within " + TIERING_DEADLINE);
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  private static void tpch(
      BenchmarkContext context,
      java.sql.Connection flight,
      java.sql.Connection baseline,
      List<String> queries,
      Sample sample)
      throws SQLException {
    for (int q = 0; q < queries.size(); q++) {
      long flightRows = timeQuery(flight, queries.get(q), sample.flightMs, q);
      long baselineRows = timeQuery(baseline, queries.get(q), sample.duckdbMs, q);
      if (flightRows != baselineRows) {
        throw new IllegalStateException(
            "Q" + (q + 1) + " returned " + flightRows + " rows but DuckDB " + baselineRows);
      }
    }
    context
        .progress()
        .printf(
            "  Flight SQL ms %s%n  DuckDB ms     %s%n",
            Arrays.toString(Arrays.stream(sample.flightMs).mapToLong(Math::round).toArray()),
            Arrays.toString(Arrays.stream(sample.duckdbMs).mapToLong(Math::round).toArray()));
  }

  /** Fails unless each query answers through Flight SQL exactly what it answers in DuckDB. */
  private static void checkAnswers(
      java.sql.Connection flight, java.sql.Connection baseline, List<String> queries)
      throws SQLException {
    for (int q = 0; q < queries.size(); q++) {
      List<String> ours = answer(flight, queries.get(q));
      List<String> expected = answer(baseline, queries.get(q));
      if (!ours.equals(expected)) {
        throw new IllegalStateException(
            "Q"
                + (q + 1)
                + " answered "
                + ours.size()
                + " rows through Flight SQL that differ from DuckDB's "
                + expected.size()
                + ", first "
                + ours.stream().findFirst().orElse("(none)")
                + " against "
                + expected.stream().findFirst().orElse("(none)"));
      }
    }
  }

  /** A query's rows as text, sorted: decimals by value, doubles to 9 significant digits. */
  private static List<String> answer(java.sql.Connection connection, String sql)
      throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        StringBuilder row = new StringBuilder();
        for (int column = 1; column <= columns; column++) {
          Object value = result.getObject(column);
          String text =
              switch (value) {
                case Double number ->
                    new BigDecimal(number)
                        .round(new java.math.MathContext(9))
                        .stripTrailingZeros()
                        .toPlainString();
                case Float number ->
                    new BigDecimal(number)
                        .round(new java.math.MathContext(9))
                        .stripTrailingZeros()
                        .toPlainString();
                case BigDecimal number -> number.stripTrailingZeros().toPlainString();
                case null -> "null";
                default -> value.toString();
              };
          row.append(text).append('|');
        }
        rows.add(row.toString());
      }
    }
    rows.sort(null);
    return rows;
  }

  private static long timeQuery(
      java.sql.Connection connection, String sql, double[] times, int index) throws SQLException {
    long start = System.nanoTime();
    long rows = 0;
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        for (int column = 1; column <= columns; column++) {
          result.getObject(column);
        }
        rows++;
      }
    }
    times[index] = (System.nanoTime() - start) / 1e6;
    return rows;
  }

  private static void fetch(int flightPort, Sample sample) throws Exception {
    long bytes = 0;
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", flightPort))
                .build();
        FlightSqlClient sql = new FlightSqlClient(client)) {
      FlightInfo info = sql.execute("SELECT * FROM tpch.lineitem");
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = sql.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            for (FieldVector vector : stream.getRoot().getFieldVectors()) {
              bytes += vector.getBufferSize();
            }
          }
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    sample.fetchMegabytesPerSecond = bytes / 1e6 / seconds;
    sample.socketMegabytesPerSecond =
        bytes / 1e6 / LogAppendScanBenchmark.loopbackCopySeconds(bytes);
  }

  private static void freshness(
      java.sql.Connection flight, Connection streams, int samples, long[] nextId, Sample sample)
      throws Exception {
    double[] trivial = new double[samples];
    double[] visible = new double[samples];
    try (AppendWriter writer =
            streams
                .table(TablePath.of("tpch.fresh"))
                .newAppendWriter(WriterOptions.defaults().withLinger(Duration.ZERO));
        PreparedStatement seen =
            flight.prepareStatement("SELECT count(*) FROM tpch.fresh WHERE id = ?");
        PreparedStatement one = flight.prepareStatement("SELECT 1")) {
      for (int i = 0; i < samples; i++) {
        long start = System.nanoTime();
        try (ResultSet result = one.executeQuery()) {
          result.next();
        }
        trivial[i] = (System.nanoTime() - start) / 1e6;
        long id = nextId[0]++;
        writer.append(id);
        writer.flush();
        long acknowledged = System.nanoTime();
        long deadline = acknowledged + VISIBLE_DEADLINE.toNanos();
        seen.setLong(1, id);
        while (true) {
          long count;
          try (ResultSet result = seen.executeQuery()) {
            result.next();
            count = result.getLong(1);
          }
          if (count == 1) {
            break;
          }
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException(
                "Row " + id + " was not visible " + VISIBLE_DEADLINE + " after its ack");
          }
        }
        visible[i] = (System.nanoTime() - acknowledged) / 1e6;
      }
    }
    Arrays.sort(visible);
    Arrays.sort(trivial);
    sample.freshnessP50 = Percentile.of(visible, 0.5);
    sample.freshnessP99 = Percentile.of(visible, 0.99);
    sample.trivialQueryMs = Percentile.of(trivial, 0.5);
    sample.trivialQueryP99Ms = Percentile.of(trivial, 0.99);
  }

  /** The median round trip of a prepared {@code SELECT 1} in the baseline database. */
  private static double trivialBaseline(java.sql.Connection baseline, int samples)
      throws SQLException {
    double[] times = new double[samples];
    try (PreparedStatement one = baseline.prepareStatement("SELECT 1")) {
      for (int i = 0; i < samples; i++) {
        long start = System.nanoTime();
        try (ResultSet result = one.executeQuery()) {
          result.next();
        }
        times[i] = (System.nanoTime() - start) / 1e6;
      }
    }
    Arrays.sort(times);
    return Percentile.of(times, 0.5);
  }
}
