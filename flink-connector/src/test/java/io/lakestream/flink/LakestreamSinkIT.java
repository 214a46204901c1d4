package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.PackagedServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL writes to streaming tables of the {@code lakestream} catalog on a MiniCluster, read
 * back through the client's {@link LogScanner} against the packaged server: the rows (a log table)
 * or the changelog (a primary-key table) are the ones written, with values written out here by
 * hand.
 */
class LakestreamSinkIT {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(2);

  private static TestServer servers;
  private static PackagedServer server;
  private static Connection client;

  private StreamExecutionEnvironment stream;
  private StreamTableEnvironment flink;

  @BeforeAll
  static void startServer() throws Exception {
    servers = TestServer.start("flink-sink-it", "--tiering-enabled", "false");
    server = servers.server();
    client = servers.client();
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (servers != null) {
      servers.close();
    }
  }

  @BeforeEach
  void createCatalog() {
    stream = StreamExecutionEnvironment.getExecutionEnvironment();
    flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    // One writer: a primary-key table's changelog is then in the order of the writes.
    flink.getConfig().set("parallelism.default", "1");
    flink.executeSql(servers.catalogDdl("ls"));
  }

  @AfterEach
  void dropCatalog() {
    flink.executeSql("DROP CATALOG IF EXISTS ls");
  }

  @Test
  void insertIntoLogTable() throws Exception {
    flink.executeSql("CREATE DATABASE ls.appends");
    flink.executeSql(
        "CREATE TABLE ls.appends.events ("
            + " id BIGINT NOT NULL, i INT, name STRING, amount DECIMAL(10, 2), ok BOOLEAN,"
            + " f FLOAT, d DOUBLE, dt DATE, tod TIME, ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(6),"
            + " bin BYTES"
            + ") WITH ('lakestream.buckets'='2')");

    flink
        .executeSql(
            "INSERT INTO ls.appends.events VALUES"
                + " (1, 10, 'one', 1.50, TRUE, CAST(1.5 AS FLOAT), 2.25, DATE '2024-01-02', TIME '10:11:12',"
                + "  TIMESTAMP '2024-01-02 03:04:05.123456',"
                + "  CAST(TIMESTAMP '2024-01-02 03:04:05.654321' AS TIMESTAMP_LTZ(6)), X'CAFE'),"
                + " (2, CAST(NULL AS INT), 'two', -3.00, FALSE, CAST(-0.5 AS FLOAT), 1e10, DATE '1970-01-01',"
                + "  TIME '00:00:01', TIMESTAMP '1970-01-01 00:00:00.000001',"
                + "  CAST(NULL AS TIMESTAMP_LTZ(6)), CAST(NULL AS BYTES)),"
                + " (3, 30, CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS"
                + "  BOOLEAN), CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DATE),"
                + "  CAST(NULL AS TIME), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(6)),"
                + "  X'')")
        .await();

    List<String> rows = new ArrayList<>();
    for (Change change : readChangelog(table("appends", "events"), 3)) {
      assertThat(change.type()).isEqualTo(ChangeType.INSERT);
      rows.add(change.row());
    }
    assertThat(rows)
        .containsExactlyInAnyOrder(
            row(
                1L,
                10,
                "one",
                new BigDecimal("1.50"),
                true,
                1.5f,
                2.25d,
                (int) LocalDate.of(2024, 1, 2).toEpochDay(),
                (10 * 3600 + 11 * 60 + 12) * 1_000_000L,
                // ScanBatch.rows() gives a timestamp without zone as LocalDateTime.
                LocalDateTime.of(2024, 1, 2, 3, 4, 5, 123_456_000),
                micros(LocalDateTime.of(2024, 1, 2, 3, 4, 5, 654_321_000)),
                new byte[] {(byte) 0xCA, (byte) 0xFE}),
            row(
                2L,
                null,
                "two",
                new BigDecimal("-3.00"),
                false,
                -0.5f,
                1e10d,
                0,
                1_000_000L,
                LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1_000),
                null,
                null),
            row(3L, 30, null, null, null, null, null, null, null, null, null, new byte[0]));
  }

  @Test
  void rowsOfALogTableWithABucketKeyGoToTheBucketsTheClientPicks() throws Exception {
    flink.executeSql("CREATE DATABASE ls.keyed");
    for (String name : List.of("by_flink", "by_client")) {
      flink.executeSql(
          "CREATE TABLE ls.keyed."
              + name
              + " (id BIGINT NOT NULL, name STRING, born DATE)"
              + " DISTRIBUTED BY HASH(name) INTO 3 BUCKETS");
    }
    StringBuilder values = new StringBuilder();
    try (AppendWriter writer = client.table(table("keyed", "by_client")).newAppendWriter()) {
      for (int i = 0; i < 60; i++) {
        String name = i % 7 == 0 ? null : "name-" + (i % 11) + (i % 2 == 0 ? "ü" : "");
        writer.append((long) i, name, 19_000 + i);
        values
            .append(i == 0 ? "" : ", ")
            .append("(")
            .append(i)
            .append(", ")
            .append(name == null ? "CAST(NULL AS STRING)" : "'" + name + "'")
            .append(", DATE '")
            .append(LocalDate.ofEpochDay(19_000 + i))
            .append("')");
      }
    }
    flink.executeSql("INSERT INTO ls.keyed.by_flink VALUES " + values).await();

    List<List<String>> byClient = rowsPerBucket(table("keyed", "by_client"), 60);
    assertThat(byClient.stream().filter(bucket -> !bucket.isEmpty())).hasSizeGreaterThan(1);
    assertThat(rowsPerBucket(table("keyed", "by_flink"), 60)).isEqualTo(byClient);
  }

  /**
   * Each bucket's rows, sorted, once {@code rows} rows arrived in all, within {@link
   * #READ_TIMEOUT}.
   */
  private static List<List<String>> rowsPerBucket(TablePath path, int rows) {
    io.lakestream.client.Table table = client.table(path);
    List<List<String>> buckets = new ArrayList<>();
    int read = 0;
    for (int bucket = 0; bucket < table.buckets(); bucket++) {
      List<String> bucketRows = new ArrayList<>();
      long end = table.latestOffset(bucket);
      try (LogScanner scanner = table.newScanner()) {
        scanner.subscribe(bucket, LogScanner.earliest());
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (scanner.position(bucket) < end) {
          if (System.nanoTime() > deadline) {
            throw new AssertionError("Bucket " + bucket + " of " + path + " not read to " + end);
          }
          for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
            try (batch) {
              batch.rows().forEach(values -> bucketRows.add(row(values)));
            }
          }
        }
      }
      bucketRows.sort(null);
      read += bucketRows.size();
      buckets.add(bucketRows);
    }
    assertThat(read).isEqualTo(rows);
    return buckets;
  }

  @Test
  void datagenThroughCheckpointsIntoLogTable() {
    flink.getConfig().set("parallelism.default", "2");
    flink.getConfig().set("execution.checkpointing.interval", "200ms");
    flink.executeSql("CREATE DATABASE ls.generated");
    flink.executeSql(
        "CREATE TABLE ls.generated.seq (id BIGINT NOT NULL, label STRING)"
            + " WITH ('lakestream.buckets'='3')");
    flink.executeSql(
        "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL, label STRING) WITH ("
            + " 'connector'='datagen', 'rows-per-second'='2000',"
            + " 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='4000',"
            + " 'fields.label.length'='8')");

    await(flink.executeSql("INSERT INTO ls.generated.seq SELECT id, label FROM gen"));

    List<Long> ids = new ArrayList<>();
    for (Change change : readChangelog(table("generated", "seq"), 4000)) {
      ids.add(Long.valueOf(change.row().substring("[Long:".length(), change.row().indexOf(','))));
    }
    // Every generated row exactly once.
    assertThat(ids).hasSize(4000);
    assertThat(ids.stream().sorted().toList())
        .isEqualTo(java.util.stream.LongStream.rangeClosed(1, 4000).boxed().toList());
  }

  @Test
  void tableDeclaredOutsideTheCatalog() {
    flink.executeSql("CREATE DATABASE ls.outside");
    flink.executeSql("CREATE TABLE ls.outside.notes (id BIGINT NOT NULL, body STRING)");
    flink.executeSql(
        "CREATE TEMPORARY TABLE notes (id BIGINT NOT NULL, body STRING) WITH ("
            + servers.connectorOptions("outside.notes")
            + ")");

    await(flink.executeSql("INSERT INTO notes VALUES (7, 'seven'), (8, CAST(NULL AS STRING))"));

    assertThat(readChangelog(table("outside", "notes"), 2))
        .containsExactlyInAnyOrder(
            new Change(ChangeType.INSERT, row(7L, "seven")),
            new Change(ChangeType.INSERT, row(8L, null)));

    flink.executeSql(
        "CREATE TEMPORARY TABLE bad_option (id BIGINT) WITH ("
            + servers.connectorOptions("outside.notes")
            + ", 'colour'='red')");
    assertThatThrownBy(() -> flink.executeSql("INSERT INTO bad_option VALUES (1)"))
        .hasStackTraceContaining("Unsupported options")
        .hasStackTraceContaining("colour");
    // Declared with a primary key, the log table cannot take upserts: the job fails naming it.
    flink.executeSql(
        "CREATE TEMPORARY TABLE keyed_notes (id BIGINT NOT NULL, body STRING,"
            + " PRIMARY KEY (id) NOT ENFORCED) WITH ("
            + servers.connectorOptions("outside.notes")
            + ")");
    assertThatThrownBy(() -> await(flink.executeSql("INSERT INTO keyed_notes VALUES (9, 'x')")))
        .hasStackTraceContaining(
            "Cannot write to outside.notes: it is a log table, but the Flink table has a PRIMARY"
                + " KEY");
    // Columns in another order would put values in the wrong columns: the job fails instead.
    flink.executeSql(
        "CREATE TEMPORARY TABLE swapped (body STRING, id BIGINT NOT NULL) WITH ("
            + servers.connectorOptions("outside.notes")
            + ")");
    assertThatThrownBy(() -> await(flink.executeSql("INSERT INTO swapped VALUES ('y', 10)")))
        .hasStackTraceContaining(
            "Cannot write to outside.notes: its columns are [id, body] but the Flink table has"
                + " [body, id]");
    assertThat(readChangelog(table("outside", "notes"), 2)).hasSize(2);
  }

  private static void await(org.apache.flink.table.api.TableResult result) {
    try {
      result.await();
    } catch (Exception e) {
      throw new IllegalStateException("The job failed", e);
    }
  }

  @Test
  void upsertsAndDeletesOfPrimaryKeyTable() throws Exception {
    flink.executeSql("CREATE DATABASE ls.upserts");
    flink.executeSql(
        "CREATE TABLE ls.upserts.users ("
            + " id BIGINT NOT NULL, name STRING, score INT,"
            + " PRIMARY KEY (id) NOT ENFORCED"
            + ") WITH ('lakestream.buckets'='1')");

    flink.executeSql("INSERT INTO ls.upserts.users VALUES (1, 'ann', 10), (2, 'bob', 20)").await();
    // A changelog with an update and a delete (of rows an earlier job wrote).
    flink
        .fromChangelogStream(
            stream.fromData(
                Row.ofKind(RowKind.UPDATE_BEFORE, 2L, "bob", 20),
                Row.ofKind(RowKind.UPDATE_AFTER, 2L, "bob", 21),
                Row.ofKind(RowKind.INSERT, 3L, "cy", 30),
                Row.ofKind(RowKind.DELETE, 1L, "ann", 10)),
            Schema.newBuilder()
                .column("f0", "BIGINT NOT NULL")
                .column("f1", "STRING")
                .column("f2", "INT")
                .primaryKey("f0")
                .build(),
            ChangelogMode.all())
        .executeInsert("ls.upserts.users")
        .await();

    assertThat(readChangelog(table("upserts", "users"), 6))
        .containsExactly(
            new Change(ChangeType.INSERT, row(1L, "ann", 10)),
            new Change(ChangeType.INSERT, row(2L, "bob", 20)),
            new Change(ChangeType.UPDATE_BEFORE, row(2L, "bob", 20)),
            new Change(ChangeType.UPDATE_AFTER, row(2L, "bob", 21)),
            new Change(ChangeType.INSERT, row(3L, "cy", 30)),
            new Change(ChangeType.DELETE, row(1L, "ann", 10)));
  }

  @Test
  void insertNamingSomeColumnsOfAPrimaryKeyTableUpdatesOnlyThoseColumns() throws Exception {
    flink.executeSql("CREATE DATABASE ls.partial");
    flink.executeSql(
        "CREATE TABLE ls.partial.users (id BIGINT NOT NULL, name STRING, score INT,"
            + " PRIMARY KEY (id) NOT ENFORCED) WITH ('lakestream.buckets'='2')");
    flink.executeSql("INSERT INTO ls.partial.users VALUES (1, 'ann', 10), (2, 'bob', 20)").await();

    flink.executeSql("INSERT INTO ls.partial.users (id, score) VALUES (1, 11), (3, 30)").await();
    flink
        .executeSql(
            "INSERT INTO ls.partial.users /*+ OPTIONS('sink.delivery-guarantee'='exactly-once') */"
                + " (name, id) VALUES ('bobby', 2)")
        .await();

    io.lakestream.client.Lookuper lookuper = client.table(table("partial", "users")).newLookuper();
    assertThat(lookuper.lookup(1L).get(30, TimeUnit.SECONDS)).containsExactly(1L, "ann", 11);
    assertThat(lookuper.lookup(2L).get(30, TimeUnit.SECONDS)).containsExactly(2L, "bobby", 20);
    assertThat(lookuper.lookup(3L).get(30, TimeUnit.SECONDS)).containsExactly(3L, null, 30);
    assertThatThrownBy(
            () -> flink.executeSql("INSERT INTO ls.partial.users (name) VALUES ('nokey')").await())
        .hasStackTraceContaining("Column 'id' has no default value and does not allow NULLs");
  }

  @Test
  void writingAPlainIcebergTableIsRefused() {
    flink.executeSql("CREATE DATABASE ls.plain");
    client
        .admin()
        .createTable(
            table("plain", "iceberg_only"),
            TableDescriptor.of(
                new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(
                        1, "id", org.apache.iceberg.types.Types.LongType.get())),
                Map.of()));
    assertThatThrownBy(() -> flink.executeSql("INSERT INTO ls.plain.iceberg_only VALUES (1)"))
        .hasStackTraceContaining(
            "Cannot write to ls.plain.iceberg_only: it is a plain Iceberg table");
  }

  private static TablePath table(String database, String name) {
    return new TablePath(null, List.of(database), name);
  }

  /** A change of a table's log and its row, values rendered by {@link #row}. */
  private record Change(ChangeType type, String row) {}

  /**
   * The first {@code atLeast} changes of every bucket's log (buckets in order, each in offset
   * order), polled until that many arrived or {@link #READ_TIMEOUT} passed, then once more to catch
   * any change beyond them.
   */
  private static List<Change> readChangelog(TablePath path, int atLeast) {
    io.lakestream.client.Table table = client.table(path);
    List<Change> changes = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      boolean extraPoll = false;
      while (true) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
          try (batch) {
            List<Object[]> rows = batch.rows();
            for (int i = 0; i < rows.size(); i++) {
              changes.add(new Change(batch.changeType(i), row(rows.get(i))));
            }
          }
        }
        if (extraPoll) {
          return changes;
        }
        if (changes.size() >= atLeast) {
          extraPoll = true;
        } else if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "Read "
                  + changes.size()
                  + " changes of "
                  + path
                  + " within "
                  + READ_TIMEOUT
                  + ", expected at least "
                  + atLeast
                  + ": "
                  + changes);
        }
      }
    }
  }

  private static String row(Object... values) {
    List<String> rendered = new ArrayList<>();
    for (Object value : values) {
      rendered.add(
          value instanceof byte[] bytes
              ? "0x" + HexFormat.of().formatHex(bytes)
              : value == null ? "null" : value.getClass().getSimpleName() + ":" + value);
    }
    return rendered.toString();
  }

  private static long micros(LocalDateTime time) {
    return time.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + time.getNano() / 1000;
  }
}
