package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.actions.Actions;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL reads of streaming tables on a MiniCluster against the packaged server (tiering every
 * second): union reads of the lake snapshot and the log, the startup modes, a primary-key table's
 * changelog, projection, a restore from a checkpoint, and bad input. Expected rows are those the
 * test wrote through the client (or, for a primary-key table, a model of its writes).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LakestreamSourceIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(90);

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(2);

  private static TestServer servers;
  private static PackagedServer server;
  private static Connection client;
  private static RESTCatalog lake;

  private StreamExecutionEnvironment stream;
  private StreamTableEnvironment flink;

  @BeforeAll
  static void startServer() throws Exception {
    servers = TestServer.start("flink-source-it", "--tiering-discovery-interval", "1s");
    server = servers.server();
    client = servers.client();
    lake = servers.lake();
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
    stream.setParallelism(2);
    flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    flink.executeSql(servers.catalogDdl("ls"));
  }

  @AfterEach
  void dropCatalog() {
    flink.executeSql("DROP CATALOG IF EXISTS ls");
  }

  @Test
  void unionReadTakesTieredRowsFromTheLakeAndTheRestFromTheLog() {
    TablePath path = logTable("union_bounded", 2);
    append(path, 0, 1000);
    servers.awaitTiered(path, 1000, TIERING_TIMEOUT);
    append(path, 1000, 1500);

    List<Row> rows = collect("SELECT id, name FROM ls.src.union_bounded" + bounded());

    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(range(0, 1500));
    assertThat(rows)
        .allSatisfy(row -> assertThat(row.getField(1)).isEqualTo("n" + row.getField(0)));
  }

  @Test
  void unboundedUnionReadFollowsRowsWrittenWhileItRuns() throws Exception {
    TablePath path = logTable("union_unbounded", 3);
    append(path, 0, 300);
    servers.awaitTiered(path, 300, TIERING_TIMEOUT);

    TableResult result = flink.executeSql("SELECT id FROM ls.src.union_unbounded");
    List<Long> ids = new ArrayList<>();
    try (CloseableIterator<Row> rows = result.collect()) {
      take(rows, 300, ids);
      append(path, 300, 700);
      take(rows, 400, ids);
    }
    assertThat(ids).containsExactlyInAnyOrderElementsOf(range(0, 700));
  }

  @Test
  void logOnlyStartupModes() {
    TablePath path = logTable("modes", 1);
    append(path, 0, 10);
    Instant between = Instant.now();
    LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
    append(path, 10, 20);

    assertThat(ids(collect(query("modes", "'scan.startup.mode'='earliest'"))))
        .containsExactlyInAnyOrderElementsOf(range(0, 20));
    // One bucket: row i is at offset i.
    assertThat(
            ids(
                collect(
                    query(
                        "modes", "'scan.startup.mode'='offsets', 'scan.startup.offsets'='0:15'"))))
        .containsExactlyInAnyOrderElementsOf(range(15, 20));
    assertThat(
            ids(
                collect(
                    query(
                        "modes",
                        "'scan.startup.mode'='timestamp', 'scan.startup.timestamp'='"
                            + between
                            + "'"))))
        .containsExactlyInAnyOrderElementsOf(range(10, 20));
    assertThat(collect(query("modes", "'scan.startup.mode'='latest'"))).isEmpty();
  }

  @Test
  void largeBatchesAreReadWholeAndInOrderFromAnOffsetInsideOne() {
    TablePath path = logTable("large_batches", 1);
    // One flush of 25,000 rows: batches of thousands of rows; offset 4,103 falls inside the
    // first, whose earlier rows the source must drop.
    append(path, 0, 25_000);

    List<Row> all = collect(query("large_batches", "'scan.startup.mode'='earliest'"));
    List<Row> fromOffset =
        collect(
            query(
                "large_batches", "'scan.startup.mode'='offsets', 'scan.startup.offsets'='0:4103'"));

    // One bucket, one reader: the rows arrive in offset order, and row i is at offset i.
    assertThat(ids(all)).containsExactlyElementsOf(range(0, 25_000));
    assertThat(ids(fromOffset)).containsExactlyElementsOf(range(4103, 25_000));
    assertThat(all).allSatisfy(row -> assertThat(row.getField(1)).isEqualTo("n" + row.getField(0)));
  }

  @Test
  void projectionReadsTheColumnsInTheQuerysOrder() {
    TablePath path = logTable("projected", 2);
    append(path, 0, 50);
    servers.awaitTiered(path, 50, TIERING_TIMEOUT);
    append(path, 50, 100);

    List<Row> rows = collect("SELECT name, id FROM ls.src.projected" + bounded());

    assertThat(rows).hasSize(100);
    assertThat(rows)
        .allSatisfy(row -> assertThat(row.getField(0)).isEqualTo("n" + row.getField(1)));
  }

  @Test
  void filtersArePassedOnAndStillApplied() {
    TablePath path = logTable("filtered", 2);
    append(path, 0, 600);
    servers.awaitTiered(path, 600, TIERING_TIMEOUT);
    append(path, 600, 1000);
    String query =
        "SELECT id FROM ls.src.filtered"
            + bounded()
            + " WHERE id >= 550 AND 650 > id AND name IS NOT NULL";

    assertThat(flink.explainSql(query)).contains("filter=[");
    assertThat(ids(collect(query))).containsExactlyInAnyOrderElementsOf(range(550, 650));
  }

  @Test
  void everyTypeReadsBackAsFlinkItselfProducesIt() throws Exception {
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
    String columns =
        "id BIGINT NOT NULL, i INT, name STRING, amount DECIMAL(10, 2), big DECIMAL(30, 4),"
            + " ok BOOLEAN, f FLOAT, d DOUBLE, dt DATE, tod TIME, ts TIMESTAMP(6),"
            + " ltz TIMESTAMP_LTZ(6), bin BYTES";
    flink.executeSql("CREATE TABLE ls.src.every_type (" + columns + ")");
    String values =
        "VALUES"
            + " (CAST(1 AS BIGINT), 10, 'one', CAST(1.50 AS DECIMAL(10, 2)),"
            + "  CAST('12345678901234567890.1234' AS DECIMAL(30, 4)), TRUE, CAST(1.5 AS FLOAT),"
            + "  CAST(2.25 AS DOUBLE), DATE '2024-01-02', TIME '10:11:12',"
            + "  CAST(TIMESTAMP '2024-01-02 03:04:05.123456' AS TIMESTAMP(6)),"
            + "  CAST(TIMESTAMP '2024-01-02 03:04:05.654321' AS TIMESTAMP_LTZ(6)), X'CAFE'),"
            + " (CAST(2 AS BIGINT), CAST(NULL AS INT), CAST(NULL AS STRING),"
            + "  CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(30, 4)),"
            + "  CAST(NULL AS BOOLEAN), CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE),"
            + "  CAST(NULL AS DATE), CAST(NULL AS TIME), CAST(NULL AS TIMESTAMP(6)),"
            + "  CAST(NULL AS TIMESTAMP_LTZ(6)), CAST(NULL AS BYTES))";
    flink.executeSql("INSERT INTO ls.src.every_type " + values).await();

    List<Row> expected = collect("SELECT * FROM (" + values + ")");
    List<Row> read = collect(query("every_type", "'scan.startup.mode'='earliest'"));

    assertThat(sortedById(read)).isEqualTo(sortedById(expected));
  }

  private static List<Row> sortedById(List<Row> rows) {
    return rows.stream()
        .sorted(java.util.Comparator.comparing(row -> (Long) row.getField(0)))
        .toList();
  }

  @Test
  void primaryKeyTableIsReadAsItsChangelog() {
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
    flink.executeSql(
        "CREATE TABLE ls.src.pk_changes (k BIGINT NOT NULL, v STRING,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ('lakestream.buckets'='1')");
    TablePath path = new TablePath(null, List.of("src"), "pk_changes");
    try (UpsertWriter writer = client.table(path).newUpsertWriter()) {
      writer.upsert(1L, "a");
      writer.upsert(2L, "b");
      writer.upsert(1L, "c");
      writer.delete(2L);
      writer.upsert(3L, "d");
      writer.flush();
    }

    List<Row> changes = collect(query("pk_changes", "'scan.startup.mode'='earliest'"));

    assertThat(changes)
        .containsExactly(
            Row.ofKind(RowKind.INSERT, 1L, "a"),
            Row.ofKind(RowKind.INSERT, 2L, "b"),
            Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "a"),
            Row.ofKind(RowKind.UPDATE_AFTER, 1L, "c"),
            Row.ofKind(RowKind.DELETE, 2L, "b"),
            Row.ofKind(RowKind.INSERT, 3L, "d"));
  }

  @Test
  void primaryKeyUnionReadFoldsToTheTablesState() {
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
    flink.executeSql(
        "CREATE TABLE ls.src.pk_union (k BIGINT NOT NULL, v BIGINT,"
            + " PRIMARY KEY (k) NOT ENFORCED) WITH ('lakestream.buckets'='2',"
            + " 'lakestream.tiering.interval'='1s')");
    TablePath path = new TablePath(null, List.of("src"), "pk_union");
    Map<Long, Long> model = new TreeMap<>();
    Random random = new Random(42);
    try (UpsertWriter writer = client.table(path).newUpsertWriter()) {
      writeRandomly(writer, random, model, 400);
      writer.flush();
      servers.awaitTieredAtLeast(path, 1, TIERING_TIMEOUT);
      writeRandomly(writer, random, model, 400);
      writer.flush();
    }

    Map<Long, Long> folded = new TreeMap<>();
    for (Row change : collect("SELECT k, v FROM ls.src.pk_union" + bounded())) {
      long key = (Long) change.getField(0);
      switch (change.getKind()) {
        case INSERT, UPDATE_AFTER -> folded.put(key, (Long) change.getField(1));
        case UPDATE_BEFORE, DELETE -> folded.remove(key);
      }
    }
    assertThat(folded).isEqualTo(model);
  }

  @Test
  void restoreFromACheckpointTakenWhileTheLakeAndTheLogAreReadEmitsEveryRowOnce() throws Exception {
    TablePath path = logTable("failover_early", 2);
    // More lake rows than the network buffers between the sources and the throttled map hold, so
    // that the lake source is still running (held back) when the checkpoint is taken: a finished
    // source whose rows are still in flight holds back checkpoints.
    append(path, 0, 50_000);
    servers.awaitTiered(path, 50_000, TIERING_TIMEOUT);
    append(path, 50_000, 52_000);
    // The lake and the log parts are read side by side; the restore starts from a checkpoint
    // taken after 500 rows, in the middle of both.
    FailOnce.reset(500, 1000);
    StreamExecutionEnvironment env = failoverEnvironment();
    collectCommitted(env, "SELECT id FROM ls.src.failover_early" + bounded());
    env.execute("failover-early");

    assertThat(FailOnce.FAILED.get())
        .as("the job failed after a checkpoint taken past 500 rows, and was restored")
        .isTrue();
    assertThat(CommittedRows.committed()).containsExactlyInAnyOrderElementsOf(range(0, 52_000));
  }

  @Test
  void restoreFromACheckpointPastTheLakePartEmitsEveryRowOnce() throws Exception {
    TablePath path = logTable("failover_late", 2);
    append(path, 0, 2000);
    servers.awaitTiered(path, 2000, TIERING_TIMEOUT);
    append(path, 2000, 4000);
    // Unbounded: the lake part ends, a checkpoint completes after every row so far went through,
    // then rows written after it fail the job; the restore has only the log part left to read.
    FailOnce.reset(4000, 4500);
    StreamExecutionEnvironment env = failoverEnvironment();
    collectCommitted(env, "SELECT id FROM ls.src.failover_late");
    JobClient job = env.executeAsync("failover-late");
    try {
      awaitTrue(FailOnce.CHECKPOINTED::get, "a checkpoint after 4000 rows", job);
      append(path, 4000, 6000);
      awaitTrue(() -> CommittedRows.committed().size() >= 6000, "6000 committed rows", job);
    } finally {
      job.cancel().get();
    }

    assertThat(FailOnce.FAILED.get())
        .as("the job failed on a row written after the checkpoint, and was restored")
        .isTrue();
    assertThat(CommittedRows.committed()).containsExactlyInAnyOrderElementsOf(range(0, 6000));
  }

  /**
   * A streaming environment at parallelism 2 that checkpoints every 100 ms and restarts a failed
   * job twice at most.
   */
  private static StreamExecutionEnvironment failoverEnvironment() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(2);
    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    env.enableCheckpointing(100);
    // The throttled map sits behind the union of the two sources: aligned barriers would queue
    // behind thousands of buffered rows. Unaligned ones overtake them, so a checkpoint completes
    // while both parts are still read; forced, because Flink keeps the union's forward
    // connections aligned otherwise.
    env.getCheckpointConfig().enableUnalignedCheckpoints();
    env.getCheckpointConfig().setForceUnalignedCheckpoints(true);
    return env;
  }

  /**
   * Adds to {@code env} the query's rows going through {@link FailOnce} into {@link CommittedRows}.
   * (Not Flink's collect sink: it blocks its task until the client fetches, which holds back every
   * checkpoint's barrier while rows flow.)
   */
  private static void collectCommitted(StreamExecutionEnvironment env, String query) {
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    tables.executeSql(
        "CREATE CATALOG ls WITH ('type'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "')");
    CommittedRows.reset();
    tables
        .toDataStream(tables.sqlQuery(query))
        .map(new FailOnce())
        .map(new CommittedRows())
        .sinkTo(new DiscardingSink<>());
  }

  private static void awaitTrue(BooleanSupplier condition, String what, JobClient job)
      throws Exception {
    long deadline = System.nanoTime() + TIERING_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline)
          .as("%s by the deadline; the job is %s", what, job.getJobStatus().get())
          .isNegative();
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  /**
   * Another engine's lake maintenance between a union read's planning and its run: Iceberg's own
   * Flink compaction rewrites the table's files and every snapshot but the new one is expired,
   * deleting the files only the snapshot the read was planned on held. The read must then be exact
   * (every row once) or fail naming the snapshot; never a partial result.
   */
  @Test
  void aReadPlannedOnASnapshotAnotherEngineExpiredIsExactOrFailsNamingIt() throws Exception {
    TablePath path = logTable("expired", 2);
    // Two tiering commits, so that compaction has files to merge.
    append(path, 0, 2000);
    servers.awaitTiered(path, 2000, TIERING_TIMEOUT);
    append(path, 2000, 4000);
    servers.awaitTiered(path, 4000, TIERING_TIMEOUT);
    long pinned = currentSnapshotId("expired");
    org.apache.flink.table.api.Table planned =
        flink.sqlQuery("SELECT id FROM ls.src.expired" + bounded());
    DataStream<Row> rows = flink.toDataStream(planned);
    append(path, 4000, 5000);
    // A snapshot newer than the planned one, whatever the compaction below commits (it may find
    // nothing to merge): otherwise the planned snapshot could stay current and survive the expiry.
    servers.awaitTiered(path, 5000, TIERING_TIMEOUT);

    try (RESTCatalog engine = new RESTCatalog()) {
      engine.initialize("other-engine", Map.of("uri", server.baseUri()));
      org.apache.iceberg.Table table =
          engine.loadTable(TableIdentifier.of(Namespace.of("src"), "expired"));
      StreamExecutionEnvironment batch = StreamExecutionEnvironment.getExecutionEnvironment();
      batch.setParallelism(1);
      Actions.forTable(batch, table).rewriteDataFiles().execute();
      table.refresh();
      table
          .expireSnapshots()
          .expireOlderThan(System.currentTimeMillis() + 1)
          .retainLast(1)
          .commit();
      table.refresh();
      assertThat(table.snapshot(pinned)).as("the planned snapshot, expired").isNull();
    }

    List<Long> ids = new ArrayList<>();
    try {
      try (CloseableIterator<Row> emitted = rows.executeAndCollect()) {
        emitted.forEachRemaining(row -> ids.add((Long) row.getField(0)));
      }
      assertThat(ids).containsExactlyInAnyOrderElementsOf(range(0, 5000));
    } catch (Exception failure) {
      assertThat(failure)
          .hasStackTraceContaining(
              "Lake snapshot "
                  + pinned
                  + " of src.expired, on which this union read was planned,"
                  + " no longer exists");
    }
  }

  private static long currentSnapshotId(String table) {
    return lake.loadTable(TableIdentifier.of(Namespace.of("src"), table))
        .currentSnapshot()
        .snapshotId();
  }

  @Test
  void datagenRowsWrittenByTheSinkAreReadBackByTheSource() throws Exception {
    logTable("generated", 3);
    flink.executeSql(
        "CREATE TEMPORARY TABLE gen (id BIGINT) WITH ('connector'='datagen',"
            + " 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='3000')");
    flink
        .executeSql(
            "INSERT INTO ls.src.generated SELECT id, CONCAT('n', CAST(id AS STRING)) FROM gen")
        .await();

    List<Row> rows = collect(query("generated", "'scan.startup.mode'='earliest'"));

    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(range(1, 3001));
    assertThat(rows)
        .allSatisfy(row -> assertThat(row.getField(1)).isEqualTo("n" + row.getField(0)));
  }

  @Test
  void aServerThatGoesAwayFailsTheJobNamingIt() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("flink-source-gone-");
    PackagedServer doomed =
        PackagedServer.start(run, SERVER_START_TIMEOUT, "--tiering-enabled", "false");
    try (Connection writer = Connection.open("127.0.0.1", doomed.rpcPort(), null)) {
      flink.executeSql(
          "CREATE CATALOG doomed WITH ('type'='lakestream', 'uri'='"
              + doomed.baseUri()
              + "', 'rpc-address'='127.0.0.1:"
              + doomed.rpcPort()
              + "')");
      flink.executeSql("CREATE DATABASE doomed.src");
      flink.executeSql("CREATE TABLE doomed.src.events (id BIGINT NOT NULL, name STRING)");
      TablePath path = new TablePath(null, List.of("src"), "events");
      try (AppendWriter append = writer.table(path).newAppendWriter()) {
        append.append(1L, "n1");
        append.flush();
      }
      TableResult result =
          flink.executeSql(
              "SELECT id FROM doomed.src.events /*+ OPTIONS('scan.startup.mode'='earliest') */");
      try (CloseableIterator<Row> rows = result.collect()) {
        assertThat(rows.next().getField(0)).isEqualTo(1L);
        doomed.kill();
        long killed = System.nanoTime();
        assertThatThrownBy(rows::next).hasStackTraceContaining("127.0.0.1:" + doomed.rpcPort());
        // The scanner gives up once its fetches have failed for the client's reconnect timeout,
        // not after a reconnect timeout per retry.
        assertThat(Duration.ofNanos(System.nanoTime() - killed))
            .isLessThan(Connection.RECONNECT_TIMEOUT.multipliedBy(3));
      }
    } finally {
      flink.executeSql("DROP CATALOG IF EXISTS doomed");
      doomed.close();
    }
  }

  @Test
  void partitionsThatAppearWhileAReadRunsAreRead() throws Exception {
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
    org.apache.iceberg.Schema schema =
        new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.required(
                1, "id", org.apache.iceberg.types.Types.LongType.get()),
            org.apache.iceberg.types.Types.NestedField.required(
                2, "region", org.apache.iceberg.types.Types.StringType.get()));
    TablePath path = new TablePath(null, List.of("src"), "by_region");
    client
        .admin()
        .createTable(
            path,
            io.lakestream.client.TableDescriptor.logTable(schema, 2)
                .withPartitionSpecJson(
                    org.apache.iceberg.PartitionSpecParser.toJson(
                        org.apache.iceberg.PartitionSpec.builderFor(schema)
                            .identity("region")
                            .build())));
    appendRegion(path, "eu", 0, 100);

    TableResult result =
        flink.executeSql(
            "SELECT id, region FROM ls.src.by_region /*+ OPTIONS('scan.startup.mode'='earliest',"
                + " 'scan.partition.discovery.interval'='200ms') */");
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> read = result.collect()) {
      for (int i = 0; i < 100; i++) {
        rows.add(read.next());
      }
      appendRegion(path, "us", 100, 250);
      appendRegion(path, "eu", 250, 300);
      for (int i = 0; i < 200; i++) {
        rows.add(read.next());
      }
    }
    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(range(0, 300));
    assertThat(rows)
        .allSatisfy(
            row ->
                assertThat(row.getField(1))
                    .isEqualTo(
                        (Long) row.getField(0) >= 100 && (Long) row.getField(0) < 250
                            ? "us"
                            : "eu"));
  }

  private static void appendRegion(TablePath path, String region, long from, long to) {
    try (AppendWriter writer = client.table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, region);
      }
      writer.flush();
    }
  }

  @Test
  void badReadOptionsAreNamed() {
    logTable("bad_options", 1);
    assertThatThrownBy(() -> collect(query("bad_options", "'scan.startup.mode'='timestamp'")))
        .hasStackTraceContaining("Option 'scan.startup.timestamp' is required");
    assertThatThrownBy(
            () ->
                collect(
                    query(
                        "bad_options",
                        "'scan.startup.mode'='offsets', 'scan.startup.offsets'='zero:1'")))
        .hasStackTraceContaining("'scan.startup.offsets' must be bucket:offset pairs");
    assertThatThrownBy(() -> collect(query("bad_options", "'scan.startup.modes'='latest'")))
        .hasStackTraceContaining("Unknown option 'scan.startup.modes'");
    assertThatThrownBy(() -> collect("SELECT * FROM ls.src.no_such_table"))
        .hasStackTraceContaining("no_such_table");
  }

  @Test
  void tableDeclaredOutsideTheCatalogIsRead() {
    TablePath path = logTable("declared", 2);
    append(path, 0, 40);
    flink.executeSql(
        "CREATE TEMPORARY TABLE declared (id BIGINT NOT NULL, name STRING) WITH ("
            + "'connector'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "', 'table'='src.declared', 'scan.startup.mode'='earliest', 'scan.bounded'='true')");

    assertThat(ids(collect("SELECT id FROM declared")))
        .containsExactlyInAnyOrderElementsOf(range(0, 40));
  }

  // ------------------------------------------------------------------ helpers

  /**
   * A map that fails the job once: on the first row after {@code failAfter} rows went through it
   * and a checkpoint completed once {@code checkpointAfter} rows had, so that the restore starts
   * from split state taken in the middle of the read. Until that checkpoint it lets rows through at
   * most about 500 per second per subtask, so that the read is not over before it; if none
   * completes, the job ends without a failure and the test says so.
   */
  private static final class FailOnce implements MapFunction<Row, Long>, CheckpointListener {
    static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
    private static final AtomicLong SEEN = new AtomicLong();
    private static volatile long checkpointAfter;
    private static volatile long failAfter;

    static void reset(long checkpointAfterRows, long failAfterRows) {
      FAILED.set(false);
      CHECKPOINTED.set(false);
      SEEN.set(0);
      checkpointAfter = checkpointAfterRows;
      failAfter = failAfterRows;
    }

    @Override
    public Long map(Row row) {
      long seen = SEEN.incrementAndGet();
      if (!CHECKPOINTED.get()) {
        LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
      } else if (seen > failAfter && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException(
            "Injected failure after a checkpoint and " + seen + " rows");
      }
      return (Long) row.getField(0);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (SEEN.get() >= checkpointAfter) {
        CHECKPOINTED.set(true);
      }
    }
  }

  /**
   * A map that records the rows going through it as each checkpoint's share: the rows a subtask saw
   * between two snapshots are kept in the later snapshot's state and handed on ({@link
   * #committed()}) when that checkpoint completes, or, after a restore, from the restored state if
   * its completion was not seen before the failure. The rows handed on are those the job's restored
   * state accounts for, each once when the source emits it once.
   */
  private static final class CommittedRows extends RichMapFunction<Long, Long>
      implements CheckpointedFunction, CheckpointListener {
    private static final Object LOCK = new Object();
    private static final List<Long> COMMITTED = new ArrayList<>();
    private static final Set<String> PUBLISHED = new HashSet<>();

    /** Rows per (subtask, checkpoint) not yet handed on, each entry {subtask, checkpoint, row}. */
    private transient ListState<long[]> pending;

    private transient TreeMap<Long, List<Long>> byCheckpoint;
    private transient List<Long> sinceSnapshot;
    private transient int subtask;

    static void reset() {
      synchronized (LOCK) {
        COMMITTED.clear();
        PUBLISHED.clear();
      }
    }

    static List<Long> committed() {
      synchronized (LOCK) {
        return new ArrayList<>(COMMITTED);
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      byCheckpoint = new TreeMap<>();
      sinceSnapshot = new ArrayList<>();
      pending =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("pending", long[].class));
      if (context.isRestored()) {
        Map<String, List<Long>> groups = new TreeMap<>();
        for (long[] entry : pending.get()) {
          groups.computeIfAbsent(entry[0] + "/" + entry[1], k -> new ArrayList<>()).add(entry[2]);
        }
        groups.forEach(CommittedRows::publish);
      }
      pending.clear();
    }

    @Override
    public Long map(Long id) {
      sinceSnapshot.add(id);
      return id;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      byCheckpoint.put(context.getCheckpointId(), sinceSnapshot);
      sinceSnapshot = new ArrayList<>();
      List<long[]> entries = new ArrayList<>();
      byCheckpoint.forEach(
          (checkpoint, rows) ->
              rows.forEach(row -> entries.add(new long[] {subtask, checkpoint, row})));
      pending.update(entries);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      Map<Long, List<Long>> done = byCheckpoint.headMap(checkpointId, true);
      done.forEach((checkpoint, rows) -> publish(subtask + "/" + checkpoint, rows));
      done.clear();
    }

    private static void publish(String group, List<Long> rows) {
      synchronized (LOCK) {
        if (PUBLISHED.add(group)) {
          COMMITTED.addAll(rows);
        }
      }
    }
  }

  private TablePath logTable(String name, int buckets) {
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.src");
    flink.executeSql(
        "CREATE TABLE ls.src."
            + name
            + " (id BIGINT NOT NULL, name STRING) WITH ('lakestream.buckets'='"
            + buckets
            + "', 'lakestream.tiering.interval'='1s')");
    return new TablePath(null, List.of("src"), name);
  }

  private static void append(TablePath path, long from, long to) {
    try (AppendWriter writer = client.table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, "n" + id);
      }
      writer.flush();
    }
  }

  private static void writeRandomly(
      UpsertWriter writer, Random random, Map<Long, Long> model, int writes) {
    for (int i = 0; i < writes; i++) {
      long key = random.nextInt(60);
      if (random.nextInt(5) == 0) {
        writer.delete(key);
        model.remove(key);
      } else {
        long value = random.nextLong();
        writer.upsert(key, value);
        model.put(key, value);
      }
    }
  }

  private static String bounded() {
    return " /*+ OPTIONS('scan.bounded'='true') */";
  }

  private static String query(String table, String options) {
    return "SELECT * FROM ls.src."
        + table
        + " /*+ OPTIONS("
        + options
        + ", 'scan.bounded'='true') */";
  }

  private List<Row> collect(String query) {
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> result = flink.executeSql(query).collect()) {
      result.forEachRemaining(rows::add);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }

  private static void take(Iterator<Row> rows, int count, List<Long> into) {
    for (int i = 0; i < count; i++) {
      into.add((Long) rows.next().getField(0));
    }
  }

  private static List<Long> ids(List<Row> rows) {
    return rows.stream().map(row -> (Long) row.getField(0)).toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
