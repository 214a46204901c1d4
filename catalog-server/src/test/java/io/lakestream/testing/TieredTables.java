package io.lakestream.testing;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Streaming tables that a test writes through the Java client, waits for the server's tiering
 * service to commit into their Iceberg tables, and then reads with a query engine (Spark, Trino)
 * through the REST catalog. The expected results of each query are computed here from the rows the
 * test wrote, never read from the server; each engine runs the same SQL (which both Spark SQL and
 * Trino accept) and compares with {@link #assertRows}.
 *
 * <p>Tables live in namespace {@value #NAMESPACE} of the default warehouse and tier every second.
 * Values of the expected rows are Long, Integer, Double, String, BigDecimal (sums of BIGINT
 * columns, cast to DECIMAL(38,0) so they cannot overflow), LocalDate and Instant; {@link
 * #normalize} turns an engine's values into these.
 */
public final class TieredTables implements AutoCloseable {
  /** The namespace of every table made here. */
  public static final String NAMESPACE = "tiered";

  /** How often the server looks for new tables; short, so tables tier soon after they are made. */
  public static final String DISCOVERY_INTERVAL = "1s";

  private static final String TIERING_INTERVAL = "1s";
  private static final Duration POLL = Duration.ofMillis(200);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double RELATIVE_TOLERANCE = 1e-9;

  private final String restUri;
  private final Connection connection;
  private final String lakeFormat;
  private final HttpClient http = HttpClient.newHttpClient();

  private TieredTables(String restUri, Connection connection, String lakeFormat) {
    this.restUri = requireNonNull(restUri, "restUri is null");
    this.connection = requireNonNull(connection, "connection is null");
    this.lakeFormat = requireNonNull(lakeFormat, "lakeFormat is null");
  }

  /**
   * Starts {@code bin/lakestream server} with tiering on and a {@value #DISCOVERY_INTERVAL}
   * discovery interval, data and logs under {@code run}, and waits until it is ready.
   *
   * @param rpcPort the stream RPC port, for {@link #connect}
   */
  public static ServerProcess startServer(Path run, int rpcPort, Duration timeout)
      throws IOException, InterruptedException {
    int httpPort = ServerProcess.freePort();
    ServerProcess server =
        ServerProcess.launch(
            run.resolve("logs"),
            httpPort,
            List.of(
                "--data-dir", run.resolve("data").toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(rpcPort),
                "--flight-port", Integer.toString(ServerProcess.freePort()),
                "--tiering-enabled", "true",
                "--tiering-discovery-interval", DISCOVERY_INTERVAL));
    try {
      server.awaitReady(timeout);
    } catch (RuntimeException | IOException | InterruptedException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /**
   * Connects to a server's stream RPC and creates namespace {@value #NAMESPACE} if it is missing.
   *
   * @param restUri the server's REST base URI, e.g. {@code http://127.0.0.1:8181}
   */
  public static TieredTables connect(String restUri, int rpcPort) {
    return connect(restUri, rpcPort, "iceberg");
  }

  /**
   * Like {@link #connect(String, int)}, for tables that tier into {@code lakeFormat} (the table
   * property {@code lakestream.lake-format}). Tables of a format other than {@code iceberg} get the
   * format as a suffix of their names, so the suites of both formats share a server; a partitioned
   * Paimon table is partitioned by {@code identity(region)} only (Paimon partitions by columns).
   */
  public static TieredTables connect(String restUri, int rpcPort, String lakeFormat) {
    Connection connection = Connection.open("127.0.0.1", rpcPort, null);
    try {
      connection.admin().createNamespace(null, List.of(NAMESPACE));
    } catch (RpcException e) {
      if (e.error() != ErrorCode.ALREADY_EXISTS) {
        connection.close();
        throw e;
      }
    }
    return new TieredTables(restUri, connection, lakeFormat);
  }

  private String tableName(String name) {
    return lakeFormat.equals("iceberg") ? name : name + "_" + lakeFormat;
  }

  /**
   * Creates a W1 log table of 3 buckets. A partitioned one has two more columns, {@code ts
   * TIMESTAMPTZ} and {@code region STRING} (some null, some with a space), and is partitioned by
   * {@code day(ts)} and {@code identity(region)}, so its rows spread over 12 partitions and their
   * paths.
   */
  public LogTable createLogTable(String name, boolean partitioned) {
    Schema schema = partitioned ? LogTable.PARTITIONED_SCHEMA : WideRows.w1Schema();
    TableDescriptor descriptor =
        TableDescriptor.logTable(schema, 3)
            .withBucketKey("b0")
            .withProperty("lakestream.tiering.interval", TIERING_INTERVAL)
            .withProperty("lakestream.lake-format", lakeFormat);
    if (partitioned) {
      descriptor =
          descriptor.withPartitionSpecJson(
              lakeFormat.equals("paimon")
                  ? LogTable.REGION_SPEC_JSON
                  : LogTable.PARTITION_SPEC_JSON);
    }
    TablePath path = TablePath.of(NAMESPACE + "." + tableName(name));
    connection.admin().createTable(path, descriptor);
    return new LogTable(connection.table(path), partitioned);
  }

  /** Creates a W2 primary-key table (key {@code id}) of 2 buckets. */
  public KeyedTable createKeyedTable(String name) {
    TableDescriptor descriptor =
        TableDescriptor.of(
            WideRows.w2Schema(),
            Map.of(
                TableDescriptor.KIND,
                "primary-key",
                TableDescriptor.BUCKETS,
                "2",
                "lakestream.tiering.interval",
                TIERING_INTERVAL,
                "lakestream.lake-format",
                lakeFormat));
    TablePath path = TablePath.of(NAMESPACE + "." + tableName(name));
    connection.admin().createTable(path, descriptor);
    return new KeyedTable(connection.table(path));
  }

  @Override
  public void close() {
    connection.close();
  }

  /**
   * Waits until the table's current Iceberg snapshot records, in its {@code lakestream.offsets}
   * summary, the high watermark of every bucket of every partition: everything written so far is
   * tiered.
   *
   * @throws AssertionError when that does not happen within the timeout, naming both sides
   */
  void awaitTiered(Table table, Duration timeout) {
    Map<String, Map<Integer, Long>> highWatermarks = new TreeMap<>();
    for (String partition : table.partitions()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        long offset = table.latestOffset(partition, bucket);
        if (offset > 0) {
          highWatermarks.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
        }
      }
    }
    assertThat(highWatermarks).as("high watermarks of %s", table.path()).isNotEmpty();
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, Map<Integer, Long>> tiered = tieredOffsets(table.path());
    while (!tiered.equals(highWatermarks) && System.nanoTime() < deadline) {
      LockSupport.parkNanos(POLL.toNanos());
      tiered = tieredOffsets(table.path());
    }
    assertThat(tiered)
        .as("lakestream.offsets of %s's current snapshot after %s", table.path(), timeout)
        .isEqualTo(highWatermarks);
    System.out.printf(
        "%s tiered up to %s after %d ms%n",
        table.path(),
        highWatermarks,
        timeout.toMillis() - TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  /** The current snapshot's {@code lakestream.offsets}, without zero offsets; empty without. */
  private Map<String, Map<Integer, Long>> tieredOffsets(TablePath path) {
    URI uri =
        URI.create(restUri + "/v1/default/namespaces/" + NAMESPACE + "/tables/" + path.name());
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while loading " + path, e);
    }
    assertThat(response.statusCode()).as("load %s: %s", path, response.body()).isEqualTo(200);
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    try {
      JsonNode metadata = JSON.readTree(response.body()).path("metadata");
      JsonNode current = metadata.path("current-snapshot-id");
      if (current.isMissingNode() || current.isNull() || current.asLong() == -1) {
        return offsets;
      }
      for (JsonNode snapshot : metadata.path("snapshots")) {
        if (snapshot.path("snapshot-id").asLong() != current.asLong()) {
          continue;
        }
        JsonNode summary = snapshot.path("summary").path("lakestream.offsets");
        if (!summary.isTextual()) {
          return offsets;
        }
        JsonNode partitions = JSON.readTree(summary.asText()).path("partitions");
        for (Map.Entry<String, JsonNode> partition : partitions.properties()) {
          for (Map.Entry<String, JsonNode> bucket : partition.getValue().properties()) {
            if (bucket.getValue().asLong() > 0) {
              offsets
                  .computeIfAbsent(partition.getKey(), k -> new TreeMap<>())
                  .put(Integer.parseInt(bucket.getKey()), bucket.getValue().asLong());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return offsets;
  }

  /**
   * A query and the rows it must return.
   *
   * @param description what the query checks, for failure messages
   * @param sql the query, in SQL that Spark SQL and Trino both accept; tables are named {@code
   *     <catalog>.tiered.<table>}
   * @param rows the expected rows, with values as {@link #normalize} gives them
   * @param ordered whether the query orders its rows (otherwise they are compared in any order)
   */
  public record Expected(String description, String sql, List<List<Object>> rows, boolean ordered) {
    public Expected {
      requireNonNull(description, "description is null");
      requireNonNull(sql, "sql is null");
      rows = List.copyOf(rows);
    }
  }

  /**
   * A value as an engine returned it, in the types of {@link Expected} rows: timestamps (Spark's
   * {@code java.sql.Timestamp}, Trino's zoned date-times) become Instant, Spark's {@code
   * java.sql.Date} becomes LocalDate.
   */
  public static Object normalize(Object value) {
    return switch (value) {
      case java.sql.Timestamp timestamp -> timestamp.toInstant();
      case java.sql.Date date -> date.toLocalDate();
      case ZonedDateTime zoned -> zoned.toInstant();
      case OffsetDateTime offset -> offset.toInstant();
      case null, default -> value;
    };
  }

  /**
   * Asserts that an engine's (normalized) rows are the expected ones: BigDecimals compare by value,
   * doubles within a relative {@value #RELATIVE_TOLERANCE} (sums add in another order), everything
   * else by equals.
   */
  public static void assertRows(List<List<Object>> actual, Expected expected) {
    List<List<Object>> actualRows = new ArrayList<>(actual);
    List<List<Object>> expectedRows = new ArrayList<>(expected.rows());
    if (!expected.ordered()) {
      actualRows.sort(ROW_ORDER);
      expectedRows.sort(ROW_ORDER);
    }
    assertThat(actualRows)
        .as("%s: %s", expected.description(), expected.sql())
        .hasSameSizeAs(expectedRows);
    for (int r = 0; r < expectedRows.size(); r++) {
      List<Object> expectedRow = expectedRows.get(r);
      List<Object> actualRow = actualRows.get(r);
      assertThat(actualRow).as("%s: row %s", expected.description(), r).hasSameSizeAs(expectedRow);
      for (int c = 0; c < expectedRow.size(); c++) {
        Object want = expectedRow.get(c);
        Object got = actualRow.get(c);
        String what =
            expected.description() + ": row " + r + " column " + c + "\nexpected " + expectedRow;
        what += "\nactual   " + actualRow;
        if (want instanceof Double wanted && got instanceof Double gotten) {
          assertThat(gotten)
              .as(what)
              .isCloseTo(wanted, org.assertj.core.data.Offset.offset(toleranceOf(wanted)));
        } else if (want instanceof BigDecimal wanted && got instanceof BigDecimal gotten) {
          assertThat(gotten).as(what).isEqualByComparingTo(wanted);
        } else {
          assertThat(got).as(what).isEqualTo(want);
        }
      }
    }
  }

  private static double toleranceOf(double value) {
    return Math.max(Math.abs(value) * RELATIVE_TOLERANCE, 1e-9);
  }

  /** Orders rows by their values' text, so that rows in any order compare pairwise. */
  private static final Comparator<List<Object>> ROW_ORDER =
      Comparator.comparing(row -> Arrays.deepToString(row.toArray()));

  /** The aggregate query over all W1/W2 columns and its expected row for these rows. */
  private static Expected aggregates(String table, String key, Iterable<Object[]> rows) {
    List<String> columns = WideRows.columnNames(key);
    StringBuilder sql = new StringBuilder("SELECT count(*), count(DISTINCT ");
    sql.append(key).append("), min(").append(key).append("), max(").append(key).append(")");
    for (int c = 1; c < 5; c++) {
      sql.append(", sum(CAST(").append(columns.get(c)).append(" AS DECIMAL(38,0)))");
    }
    for (int c = 5; c < 15; c++) {
      sql.append(", sum(").append(columns.get(c)).append(")");
    }
    for (int c = 15; c < 20; c++) {
      sql.append(", sum(length(").append(columns.get(c)).append("))");
    }
    sql.append(" FROM ").append(table);

    long count = 0;
    TreeSet<Long> keys = new TreeSet<>();
    BigInteger[] bigSums = new BigInteger[5];
    Arrays.fill(bigSums, BigInteger.ZERO);
    long[] intSums = new long[5];
    double[] doubleSums = new double[5];
    long[] lengthSums = new long[5];
    for (Object[] row : rows) {
      count++;
      keys.add((Long) row[0]);
      for (int c = 1; c < 5; c++) {
        bigSums[c] = bigSums[c].add(BigInteger.valueOf((Long) row[c]));
      }
      for (int c = 0; c < 5; c++) {
        intSums[c] += (Integer) row[5 + c];
        doubleSums[c] += (Double) row[10 + c];
        lengthSums[c] += ((String) row[15 + c]).length();
      }
    }
    List<Object> expected = new ArrayList<>();
    expected.add(count);
    expected.add((long) keys.size());
    expected.add(keys.isEmpty() ? null : keys.first());
    expected.add(keys.isEmpty() ? null : keys.last());
    for (int c = 1; c < 5; c++) {
      expected.add(new BigDecimal(bigSums[c]));
    }
    for (long sum : intSums) {
      expected.add(sum);
    }
    for (double sum : doubleSums) {
      expected.add(sum);
    }
    for (long sum : lengthSums) {
      expected.add(sum);
    }
    return new Expected(
        "count, distinct keys, min/max key and sums of every column",
        sql.toString(),
        List.of(expected),
        true);
  }

  private static String inList(Iterable<Long> keys) {
    StringBuilder list = new StringBuilder();
    for (long key : keys) {
      list.append(list.isEmpty() ? "" : ", ").append(key);
    }
    return list.toString();
  }

  /**
   * A W1 log table; row {@code n} (from 0) has {@code b0 = n}. The rows written are {@code [0,
   * written())}.
   */
  public final class LogTable {
    static final Schema PARTITIONED_SCHEMA = partitionedSchema();
    static final String PARTITION_SPEC_JSON =
        "{\"spec-id\":0,\"fields\":["
            + "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":21,\"field-id\":1000},"
            + "{\"name\":\"region\",\"transform\":\"identity\",\"source-id\":22,"
            + "\"field-id\":1001}]}";
    static final String REGION_SPEC_JSON =
        "{\"spec-id\":0,\"fields\":["
            + "{\"name\":\"region\",\"transform\":\"identity\",\"source-id\":22,"
            + "\"field-id\":1000}]}";
    private static final long DAY_MICROS = 86_400_000_000L;
    // Three days, starting an hour before midnight so that the first day holds an hour of rows.
    private static final long START_MICROS = 20_000 * DAY_MICROS - 3_600_000_000L;
    private static final String[] REGIONS = {"eu", "us west", null};

    private final Table table;
    private final boolean partitioned;
    private long written;

    private LogTable(Table table, boolean partitioned) {
      this.table = table;
      this.partitioned = partitioned;
    }

    private static Schema partitionedSchema() {
      List<Types.NestedField> fields = new ArrayList<>(WideRows.w1Schema().columns());
      fields.add(Types.NestedField.optional(21, "ts", Types.TimestampType.withZone()));
      fields.add(Types.NestedField.optional(22, "region", Types.StringType.get()));
      return new Schema(fields);
    }

    /** The table's name within namespace {@value TieredTables#NAMESPACE}. */
    public String name() {
      return table.path().name();
    }

    /** Rows written so far. */
    public long written() {
      return written;
    }

    /** Row {@code n} as the client appends it (timestamps as epoch microseconds). */
    private Object[] row(long n) {
      Object[] w1 = WideRows.row(n, 0);
      if (!partitioned) {
        return w1;
      }
      Object[] row = Arrays.copyOf(w1, WideRows.COLUMNS + 2);
      row[WideRows.COLUMNS] = START_MICROS + (n * 7_919 % 2_500) * (DAY_MICROS / 1_000);
      row[WideRows.COLUMNS + 1] = REGIONS[(int) (n * 31 % REGIONS.length)];
      return row;
    }

    /** Row {@code n} as an engine reads it back: timestamps as Instant. */
    private List<Object> expectedRow(long n) {
      Object[] row = row(n);
      if (partitioned) {
        row[WideRows.COLUMNS] = micros((Long) row[WideRows.COLUMNS]);
      }
      return Arrays.asList(row);
    }

    private static Instant micros(long micros) {
      return Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS);
    }

    /** Appends the next {@code rows} rows and waits until they are acknowledged. */
    public void append(int rows) {
      try (AppendWriter writer =
          table.newAppendWriter(WriterOptions.defaults().withBatchRows(1_000))) {
        for (int i = 0; i < rows; i++) {
          writer.append(row(written + i));
        }
        writer.flush();
      }
      written += rows;
    }

    /** See {@link TieredTables#awaitTiered}. */
    public void awaitTiered(Duration timeout) {
      TieredTables.this.awaitTiered(table, timeout);
    }

    private List<Object[]> rows() {
      List<Object[]> rows = new ArrayList<>();
      for (long n = 0; n < written; n++) {
        rows.add(row(n));
      }
      return rows;
    }

    /**
     * The queries an engine must answer exactly once every written row is tiered: aggregates over
     * all columns, full rows of a sample of about 300 ids (the first and last among them), and for
     * a partitioned table counts per partition, a query its partition filters can prune and the
     * rows with a null partition value.
     */
    public List<Expected> expectedQueries(String catalog) {
      String qualified = catalog + "." + NAMESPACE + "." + name();
      List<Expected> queries = new ArrayList<>();
      queries.add(aggregates(qualified, "b0", rows()));

      TreeSet<Long> sample = new TreeSet<>(List.of(0L, written - 1));
      Random random = new Random(written);
      while (sample.size() < Math.min(300, written)) {
        sample.add((long) random.nextInt((int) written));
      }
      List<String> columns = new ArrayList<>(WideRows.columnNames("b0"));
      if (partitioned) {
        columns.addAll(List.of("ts", "region"));
      }
      queries.add(
          new Expected(
              "full rows of a sample of ids",
              "SELECT "
                  + String.join(", ", columns)
                  + " FROM "
                  + qualified
                  + " WHERE b0 IN ("
                  + inList(sample)
                  + ") ORDER BY b0",
              sample.stream().map(this::expectedRow).toList(),
              true));
      if (partitioned) {
        queries.addAll(partitionQueries(qualified));
      }
      return queries;
    }

    private List<Expected> partitionQueries(String qualified) {
      Map<List<Object>, long[]> perPartition = new HashMap<>();
      long nullRegion = 0;
      long prunedCount = 0;
      long prunedSum = 0;
      LocalDate middleDay = LocalDate.ofEpochDay(20_000);
      for (long n = 0; n < written; n++) {
        Object[] row = row(n);
        LocalDate day = micros((Long) row[WideRows.COLUMNS]).atOffset(ZoneOffset.UTC).toLocalDate();
        Object region = row[WideRows.COLUMNS + 1];
        long[] partition =
            perPartition.computeIfAbsent(Arrays.asList(day, region), k -> new long[2]);
        partition[0]++;
        partition[1] += (Integer) row[5];
        if (region == null) {
          nullRegion++;
        } else if (region.equals("us west") && day.equals(middleDay)) {
          prunedCount++;
          prunedSum += n;
        }
      }
      assertThat(perPartition).as("partitions of the written rows").hasSize(12);
      List<List<Object>> partitionRows = new ArrayList<>();
      perPartition.forEach(
          (partition, values) -> {
            List<Object> row = new ArrayList<>(partition);
            row.add(values[0]);
            row.add(values[1]);
            partitionRows.add(row);
          });
      return List.of(
          new Expected(
              "rows and sum(i0) per partition",
              "SELECT CAST(ts AS DATE), region, count(*), sum(i0) FROM "
                  + qualified
                  + " GROUP BY CAST(ts AS DATE), region",
              partitionRows,
              false),
          new Expected(
              "a query the partition filters prune",
              "SELECT count(*), sum(b0) FROM "
                  + qualified
                  + " WHERE region = 'us west' AND CAST(ts AS DATE) = DATE '"
                  + middleDay
                  + "'",
              List.of(List.of(prunedCount, prunedSum)),
              true),
          new Expected(
              "rows with a null partition value",
              "SELECT count(*) FROM " + qualified + " WHERE region IS NULL",
              List.of(List.of(nullRegion)),
              true));
    }
  }

  /**
   * A W2 primary-key table over keys {@code [0, keys)}. The test's model maps each present key to
   * the version of its row ({@link WideRows#row}); a deleted key is absent.
   */
  public final class KeyedTable {
    private final Table table;
    private final Map<Long, Integer> versions = new TreeMap<>();
    private final Map<Long, Integer> lastVersion = new HashMap<>();
    private final java.util.Set<Long> deletedOnce = new TreeSet<>();
    private int keys;

    private KeyedTable(Table table) {
      this.table = table;
    }

    /** The table's name within namespace {@value TieredTables#NAMESPACE}. */
    public String name() {
      return table.path().name();
    }

    /** Upserts version 0 of every key in {@code [0, keys)} and waits for acknowledgement. */
    public void insertAll(int keys) {
      this.keys = keys;
      try (UpsertWriter writer =
          table.newUpsertWriter(WriterOptions.defaults().withBatchRows(500))) {
        for (long key = 0; key < keys; key++) {
          writer.upsert(WideRows.row(key, 0));
          versions.put(key, 0);
          lastVersion.put(key, 0);
        }
        writer.flush();
      }
    }

    /**
     * Applies {@code operations} random changes (seeded): about one in five deletes a key, the rest
     * upsert a new version of a key, present or deleted (a re-insert), changing every non-key
     * column; a key may change several times. Waits for acknowledgement, then checks that the
     * sampled keys of {@link #expectedQueries} include deleted, re-inserted and re-upserted ones.
     */
    public void change(int operations, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      try (UpsertWriter writer =
          table.newUpsertWriter(WriterOptions.defaults().withBatchRows(500))) {
        for (int i = 0; i < operations; i++) {
          long key = random.nextInt(keys);
          if (random.nextInt(5) == 0) {
            writer.delete(key);
            if (versions.remove(key) != null) {
              deletedOnce.add(key);
            }
          } else {
            int version = lastVersion.merge(key, 1, Integer::sum);
            writer.upsert(WideRows.row(key, version));
            versions.put(key, version);
          }
        }
        writer.flush();
      }
      TreeSet<Long> sample = sample();
      assertThat(sample)
          .as("sampled keys that are deleted now")
          .anyMatch(key -> !versions.containsKey(key));
      assertThat(sample)
          .as("sampled keys deleted and inserted again")
          .anyMatch(key -> deletedOnce.contains(key) && versions.containsKey(key));
      assertThat(sample)
          .as("sampled keys present with a changed row")
          .anyMatch(key -> versions.getOrDefault(key, 0) > 0);
    }

    /** Every tenth key: the keys whose full rows the queries compare. */
    private TreeSet<Long> sample() {
      TreeSet<Long> sample = new TreeSet<>();
      for (long key = 3; key < keys; key += 10) {
        sample.add(key);
      }
      return sample;
    }

    /** See {@link TieredTables#awaitTiered}. */
    public void awaitTiered(Duration timeout) {
      TieredTables.this.awaitTiered(table, timeout);
    }

    /**
     * The queries an engine must answer exactly once every change is tiered, showing the current
     * state only: aggregates over all columns of the present rows, the exact set of present keys,
     * and full rows of every tenth key (deleted ones must be absent).
     */
    public List<Expected> expectedQueries(String catalog) {
      String qualified = catalog + "." + NAMESPACE + "." + name();
      List<Object[]> present = new ArrayList<>();
      versions.forEach((key, version) -> present.add(WideRows.row(key, version)));

      TreeSet<Long> sample = sample();
      List<List<Object>> sampleRows = new ArrayList<>();
      for (long key : sample) {
        Integer version = versions.get(key);
        if (version != null) {
          sampleRows.add(Arrays.asList(WideRows.row(key, version)));
        }
      }
      return List.of(
          aggregates(qualified, "id", present),
          new Expected(
              "the present keys, each once",
              "SELECT id FROM " + qualified + " ORDER BY id",
              versions.keySet().stream().map(key -> List.<Object>of(key)).toList(),
              true),
          new Expected(
              "full rows of every tenth key, deleted ones absent",
              "SELECT "
                  + String.join(", ", WideRows.columnNames("id"))
                  + " FROM "
                  + qualified
                  + " WHERE id IN ("
                  + inList(sample)
                  + ") ORDER BY id",
              sampleRows,
              true));
    }
  }
}
