package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.PreparedBatch;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink's exactly-once mode ({@code sink.delivery-guarantee}) against the packaged server on a
 * MiniCluster: a job that fails once mid-stream and restores from its last checkpoint leaves each
 * source row in a log table once (and the same job at least once leaves some twice, the control
 * that the failure really replays rows); committables committed twice, after a partial commit or
 * after the server was killed, store their rows once, and a batch whose predecessor is lost fails
 * the commit; a primary-key table's state and changelog equal a model of the writes.
 */
class LakestreamExactlyOnceIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(2);

  private static PackagedServer server;
  private static Connection client;

  @BeforeAll
  static void startServer() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("flink-exactly-once-it-");
    server = PackagedServer.start(run, SERVER_START_TIMEOUT, "--tiering-enabled", "false");
    client = Connection.open("127.0.0.1", server.rpcPort(), null);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void resetFailure() {
    FailOnce.reset();
  }

  @Test
  void exactlyOnceSinkWritesEachRowOnceAcrossAFailure() throws Exception {
    long rows = 4000;
    List<Long> ids = writeIdsFailingOnce("once", "exactly-once", rows);

    assertThat(FailOnce.FAILED).isTrue();
    assertThat(ids).hasSize((int) rows);
    assertThat(ids.stream().sorted().toList())
        .isEqualTo(LongStream.range(0, rows).boxed().toList());
  }

  @Test
  void atLeastOnceSinkWritesSomeRowsTwiceAcrossTheSameFailure() throws Exception {
    long rows = 4000;
    List<Long> ids = writeIdsFailingOnce("twice", "at-least-once", rows);

    assertThat(FailOnce.FAILED).isTrue();
    // The control: the failure replays rows written after the last checkpoint.
    assertThat(ids.size()).isGreaterThan((int) rows);
    assertThat(ids.stream().distinct().sorted().toList())
        .isEqualTo(LongStream.range(0, rows).boxed().toList());
  }

  /**
   * Runs a job at parallelism 2 with checkpoints every 200 ms that writes ids 0..rows-1 into a new
   * log table of 3 buckets and fails once, after at least 100 rows of a subtask passed since its
   * last completed checkpoint; returns every id the table then holds.
   */
  private static List<Long> writeIdsFailingOnce(String name, String guarantee, long rows)
      throws Exception {
    StreamExecutionEnvironment stream = failingEnvironment(2);
    StreamTableEnvironment flink = tableEnvironment(stream);
    flink.executeSql("CREATE DATABASE IF NOT EXISTS ls.failover");
    flink.executeSql(
        "CREATE TABLE ls.failover."
            + name
            + " (id BIGINT, label STRING)"
            + " WITH ('lakestream.buckets'='3')");
    DataStream<Row> source =
        stream
            .fromSource(
                new DataGeneratorSource<>(
                    (GeneratorFunction<Long, Row>) index -> Row.of(index, "row-" + index),
                    rows,
                    RateLimiterStrategy.perSecond(2000),
                    Types.ROW_NAMED(new String[] {"id", "label"}, Types.LONG, Types.STRING)),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .map(
                new FailOnce<Row>(
                    rows / 2, guarantee.equals("at-least-once") ? "failover." + name : null))
            .returns(Types.ROW_NAMED(new String[] {"id", "label"}, Types.LONG, Types.STRING));
    flink.createTemporaryView("source_ids", flink.fromDataStream(source));

    flink
        .executeSql(
            "INSERT INTO ls.failover."
                + name
                + " /*+ OPTIONS('sink.delivery-guarantee'='"
                + guarantee
                + "') */ SELECT id, label FROM source_ids")
        .await(3, TimeUnit.MINUTES);

    List<Long> ids = new ArrayList<>();
    for (Object[] row : readToLatest(new TablePath(null, List.of("failover"), name)).rows()) {
      ids.add((Long) row[0]);
    }
    return ids;
  }

  @Test
  void committablesCommittedAgainStoreTheirRowsOnce() throws Exception {
    StreamTableEnvironment flink = tableEnvironment(failingEnvironment(1));
    flink.executeSql("CREATE DATABASE ls.recommit");
    flink.executeSql(
        "CREATE TABLE ls.recommit.events (id BIGINT, label STRING) WITH ('lakestream.buckets'='1')");
    TablePath path = new TablePath(null, List.of("recommit"), "events");
    io.lakestream.client.Table table = client.table(path);

    // 8 batches of 10 rows in one bucket: more than the server's window of a writer's last 5.
    List<PreparedBatch> batches;
    try (io.lakestream.client.AppendWriter writer =
        table.newPreparingAppendWriter(WriterOptions.defaults().withBatchRows(10))) {
      for (long id = 0; id < 80; id++) {
        writer.append(id, "e" + id);
      }
      batches = writer.prepare();
    }
    assertThat(batches).hasSize(8);
    assertThat(batches.stream().map(PreparedBatch::sequence).toList())
        .containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(readToLatest(path).rows()).isEmpty();

    PreparedBatchSerializer serializer = new PreparedBatchSerializer();
    Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null);
    // The committer closes the connection.
    try (PreparedBatchCommitter committer =
        new PreparedBatchCommitter(connection, connection.table(path))) {
      // A commit that got through three batches before its job failed ...
      List<Request> partial = requests(batches.subList(0, 3), serializer);
      committer.commit(new ArrayList<>(partial));
      assertThat(partial).allMatch(request -> request.outcome == null);
      assertThat(readToLatest(path).rows()).hasSize(30);

      // ... then the restore's commit of all of them, restored from their serialized form ...
      List<Request> restored = requests(batches, serializer);
      committer.commit(new ArrayList<>(restored));
      assertThat(restored).allMatch(request -> !"failed".equals(request.outcome));
      assertThat(readToLatest(path).rows()).hasSize(80);

      // ... and once more, as after a restore right after the commit: the first three batches are
      // now older than the server's window, answered DUPLICATE_SEQUENCE, and nothing is written.
      List<Request> again = requests(batches, serializer);
      committer.commit(new ArrayList<>(again));
      assertThat(again.subList(0, 3)).allMatch(request -> "already".equals(request.outcome));
      assertThat(again).allMatch(request -> !"failed".equals(request.outcome));

      // A writer's batch whose predecessor never arrived is a lost batch, not a duplicate: it
      // fails (and with it the job), as does a batch the server refuses, and every later batch of
      // the same writer and bucket.
      List<PreparedBatch> gapped;
      try (io.lakestream.client.AppendWriter writer =
          table.newPreparingAppendWriter(WriterOptions.defaults().withBatchRows(10))) {
        for (long id = 100; id < 140; id++) {
          writer.append(id, "g" + id);
        }
        gapped = writer.prepare();
      }
      List<Request> skipping =
          requests(List.of(gapped.get(0), gapped.get(2), gapped.get(3)), serializer);
      assertThatThrownBy(() -> committer.commit(new ArrayList<>(skipping)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(
              "Cannot send a batch of 10 rows to bucket 0 of "
                  + path
                  + " (writer "
                  + gapped.get(2).writerId()
                  + ", sequence 2) after 1 attempt")
          .hasMessageContaining("skipped from sequence 0 to 2");
      PreparedBatch first = gapped.get(1);
      List<Request> refused =
          List.of(
              new Request(
                  new PreparedBatch(
                      first.partition(), 7, first.targetColumns(), null, first.batch())));
      assertThatThrownBy(() -> committer.commit(new ArrayList<>(refused)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("to bucket 7 of " + path);
    }
    List<Long> ids = new ArrayList<>();
    for (Object[] row : readToLatest(path).rows()) {
      ids.add((Long) row[0]);
    }
    List<Long> expected = new ArrayList<>(LongStream.range(0, 80).boxed().toList());
    expected.addAll(LongStream.range(100, 110).boxed().toList());
    assertThat(ids).isEqualTo(expected);
  }

  @Test
  void committablesCommittedAgainAfterTheServerWasKilledStoreTheirRowsOnce() throws Exception {
    StreamTableEnvironment flink = tableEnvironment(failingEnvironment(1));
    flink.executeSql("CREATE DATABASE ls.killed");
    flink.executeSql(
        "CREATE TABLE ls.killed.events (id BIGINT, label STRING) WITH ('lakestream.buckets'='1')");
    flink.executeSql(
        "CREATE TABLE ls.killed.users (k BIGINT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED)"
            + " WITH ('lakestream.buckets'='1')");
    TablePath events = new TablePath(null, List.of("killed"), "events");
    TablePath users = new TablePath(null, List.of("killed"), "users");

    List<PreparedBatch> appends;
    try (io.lakestream.client.AppendWriter writer =
        client.table(events).newPreparingAppendWriter(WriterOptions.defaults().withBatchRows(10))) {
      for (long id = 0; id < 80; id++) {
        writer.append(id, "e" + id);
      }
      appends = writer.prepare();
    }
    // 30 inserts, 30 updates, 10 deletes: 7 batches of upserts and deletes.
    List<PreparedBatch> upserts;
    try (io.lakestream.client.UpsertWriter writer =
        client.table(users).newPreparingUpsertWriter(WriterOptions.defaults().withBatchRows(10))) {
      for (long k = 0; k < 30; k++) {
        writer.upsert(k, "first-" + k);
      }
      for (long k = 0; k < 30; k++) {
        writer.upsert(k, "second-" + k);
      }
      for (long k = 0; k < 10; k++) {
        writer.delete(k);
      }
      upserts = writer.prepare();
    }
    assertThat(upserts).hasSize(7);
    PreparedBatchSerializer serializer = new PreparedBatchSerializer();
    commit(events, requests(appends, serializer));
    commit(users, requests(upserts, serializer));

    // The server rebuilds its writers' state from the log when it comes back. The committers'
    // connections are opened before the kill, so the commits meet a server that went away and
    // came back (their connections reconnect; their batches are resent).
    List<Request> appendsAgain = requests(appends, serializer);
    List<Request> upsertsAgain = requests(upserts, serializer);
    Connection eventsConnection = Connection.open("127.0.0.1", server.rpcPort(), null);
    Connection usersConnection = Connection.open("127.0.0.1", server.rpcPort(), null);
    try (PreparedBatchCommitter eventsCommitter =
            new PreparedBatchCommitter(eventsConnection, eventsConnection.table(events));
        PreparedBatchCommitter usersCommitter =
            new PreparedBatchCommitter(usersConnection, usersConnection.table(users))) {
      server.kill();
      java.util.concurrent.CompletableFuture<Void> recommitted =
          java.util.concurrent.CompletableFuture.runAsync(
              () -> {
                try {
                  eventsCommitter.commit(new ArrayList<>(appendsAgain));
                  usersCommitter.commit(new ArrayList<>(upsertsAgain));
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });
      server.restart();
      recommitted.get(2, TimeUnit.MINUTES);
    }
    assertThat(appendsAgain.subList(0, 3)).allMatch(request -> "already".equals(request.outcome));
    assertThat(upsertsAgain.subList(0, 2)).allMatch(request -> "already".equals(request.outcome));

    List<Long> ids = new ArrayList<>();
    for (Object[] row : readToLatest(events).rows()) {
      ids.add((Long) row[0]);
    }
    assertThat(ids).isEqualTo(LongStream.range(0, 80).boxed().toList());
    Changes changelog = readToLatest(users);
    assertThat(changelog.types())
        .hasSize(30 + 60 + 10)
        .containsOnly(
            ChangeType.INSERT,
            ChangeType.UPDATE_BEFORE,
            ChangeType.UPDATE_AFTER,
            ChangeType.DELETE);
    io.lakestream.client.Lookuper lookuper = client.table(users).newLookuper();
    for (long k = 0; k < 30; k++) {
      Object[] row = lookuper.lookup(k).get(30, TimeUnit.SECONDS);
      if (k < 10) {
        assertThat(row).isNull();
      } else {
        assertThat(row).containsExactly(k, "second-" + k);
      }
    }
  }

  /** Commits requests through a committer of its own, as a restored job's committer would. */
  private static void commit(TablePath path, List<Request> requests) throws Exception {
    Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null);
    try (PreparedBatchCommitter committer =
        new PreparedBatchCommitter(connection, connection.table(path))) {
      committer.commit(new ArrayList<>(requests));
    }
  }

  @Test
  void primaryKeyTableInExactlyOnceModeEqualsAModel() throws Exception {
    // Writes decided up front, deleting only keys that exist, so the changelog is a model too.
    int writes = 3000;
    long[] keys = new long[writes];
    boolean[] deletes = new boolean[writes];
    Map<Long, Long> model = new TreeMap<>();
    int changes = 0;
    java.util.Random random = new java.util.Random(34);
    for (int i = 0; i < writes; i++) {
      keys[i] = random.nextInt(40);
      deletes[i] = model.containsKey(keys[i]) && random.nextInt(5) == 0;
      if (deletes[i]) {
        model.remove(keys[i]);
        changes += 1;
      } else {
        changes += model.containsKey(keys[i]) ? 2 : 1;
        model.put(keys[i], (long) i);
      }
    }

    // One writer: the order of a key's writes is then the source's.
    StreamExecutionEnvironment stream = failingEnvironment(1);
    StreamTableEnvironment flink = tableEnvironment(stream);
    flink.executeSql("CREATE DATABASE ls.keyed");
    flink.executeSql(
        "CREATE TABLE ls.keyed.state (k BIGINT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED)"
            + " WITH ('lakestream.buckets'='2')");
    TypeInformation<Row> type = Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG);
    DataStream<Row> source =
        stream
            .fromSource(
                new DataGeneratorSource<>(
                    (GeneratorFunction<Long, Row>)
                        index -> {
                          int i = index.intValue();
                          return deletes[i]
                              ? Row.ofKind(RowKind.DELETE, keys[i], null)
                              : Row.ofKind(RowKind.INSERT, keys[i], index);
                        },
                    writes,
                    RateLimiterStrategy.perSecond(1500),
                    type),
                WatermarkStrategy.noWatermarks(),
                "writes")
            .map(new FailOnce<Row>(writes / 2))
            .returns(type);
    flink.createTemporaryView(
        "source_writes",
        flink.fromChangelogStream(
            source,
            Schema.newBuilder()
                .column("k", "BIGINT NOT NULL")
                .column("v", "BIGINT")
                .primaryKey("k")
                .build(),
            ChangelogMode.all()));

    flink
        .executeSql(
            "INSERT INTO ls.keyed.state /*+ OPTIONS('sink.delivery-guarantee'='exactly-once') */"
                + " SELECT k, v FROM source_writes")
        .await(3, TimeUnit.MINUTES);

    assertThat(FailOnce.FAILED).isTrue();
    TablePath path = new TablePath(null, List.of("keyed"), "state");
    io.lakestream.client.Lookuper lookuper = client.table(path).newLookuper();
    Map<Long, Long> state = new TreeMap<>();
    for (long key = 0; key < 40; key++) {
      Object[] row = lookuper.lookup(key).get(30, TimeUnit.SECONDS);
      if (row != null) {
        state.put((Long) row[0], (Long) row[1]);
      }
    }
    assertThat(state).isEqualTo(model);
    // Each write applied once: a write replayed after the restore would add changes.
    Changes changelog = readToLatest(path);
    assertThat(changelog.rows()).hasSize(changes);
    Map<Long, Long> folded = new HashMap<>();
    for (int i = 0; i < changelog.rows().size(); i++) {
      Object[] row = changelog.rows().get(i);
      switch (changelog.types().get(i)) {
        case INSERT, UPDATE_AFTER -> folded.put((Long) row[0], (Long) row[1]);
        case DELETE -> folded.remove((Long) row[0]);
        case UPDATE_BEFORE -> {}
      }
    }
    assertThat(new TreeMap<>(folded)).isEqualTo(model);
  }

  @Test
  void boundedJobsWithoutCheckpointsCommitAtTheEndOfInput() throws Exception {
    StreamExecutionEnvironment streaming = StreamExecutionEnvironment.getExecutionEnvironment();
    StreamTableEnvironment flink = tableEnvironment(streaming);
    flink.executeSql("CREATE DATABASE ls.bounded");
    flink.executeSql("CREATE TABLE ls.bounded.events (id BIGINT, label STRING)");
    String insert =
        "INSERT INTO ls.bounded.events /*+ OPTIONS('sink.delivery-guarantee'='exactly-once') */"
            + " VALUES ";
    flink.executeSql(insert + "(CAST(1 AS BIGINT), 'streaming'), (2, 'streaming')").await();

    Configuration batchMode = new Configuration();
    batchMode.setString("execution.runtime-mode", "batch");
    StreamTableEnvironment batch =
        tableEnvironment(StreamExecutionEnvironment.getExecutionEnvironment(batchMode));
    batch.executeSql(insert + "(CAST(3 AS BIGINT), 'batch')").await();

    List<String> rows = new ArrayList<>();
    for (Object[] row : readToLatest(new TablePath(null, List.of("bounded"), "events")).rows()) {
      rows.add(row[0] + ":" + row[1]);
    }
    assertThat(rows).containsExactlyInAnyOrder("1:streaming", "2:streaming", "3:batch");
  }

  @Test
  void deliveryGuaranteesOtherThanTheTwoAreRefused() {
    StreamTableEnvironment flink = tableEnvironment(failingEnvironment(1));
    flink.executeSql("CREATE DATABASE ls.options");
    flink.executeSql("CREATE TABLE ls.options.t (id BIGINT)");

    assertThatThrownBy(
            () ->
                flink.executeSql(
                    "INSERT INTO ls.options.t /*+ OPTIONS('sink.delivery-guarantee'='none') */"
                        + " VALUES (CAST(1 AS BIGINT))"))
        .hasStackTraceContaining(
            "Cannot write to ls.options.t: option 'sink.delivery-guarantee' must be at-least-once"
                + " or exactly-once, not none");
    assertThatThrownBy(
            () ->
                flink.executeSql(
                    "INSERT INTO ls.options.t /*+ OPTIONS('sink.delivery-guarantee'='twice') */"
                        + " VALUES (CAST(1 AS BIGINT))"))
        .hasStackTraceContaining(
            "Cannot write to ls.options.t: option 'sink.delivery-guarantee' must be at-least-once"
                + " or exactly-once");
    flink.executeSql(
        "CREATE TEMPORARY TABLE declared (id BIGINT) WITH ('connector'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "', 'table'='options.t', 'sink.delivery-guarantee'='twice')");
    assertThatThrownBy(() -> flink.executeSql("INSERT INTO declared VALUES (CAST(1 AS BIGINT))"))
        .hasStackTraceContaining("sink.delivery-guarantee")
        .hasStackTraceContaining("twice");
  }

  private static StreamExecutionEnvironment failingEnvironment(int parallelism) {
    Configuration configuration = new Configuration();
    configuration.setString("restart-strategy.type", "fixed-delay");
    configuration.setString("restart-strategy.fixed-delay.attempts", "3");
    configuration.setString("restart-strategy.fixed-delay.delay", "200 ms");
    configuration.setString("execution.checkpointing.interval", "200 ms");
    StreamExecutionEnvironment stream =
        StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    stream.setParallelism(parallelism);
    return stream;
  }

  private static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment stream) {
    StreamTableEnvironment flink = StreamTableEnvironment.create(stream);
    flink.getConfig().set("table.local-time-zone", "UTC");
    flink.executeSql(
        "CREATE CATALOG ls WITH ('type'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "')");
    return flink;
  }

  /**
   * A commit request that records how the committer signalled it (null: committed). Like Flink's, a
   * failure with an unknown reason throws (it fails the job).
   */
  private static final class Request implements CommitRequest<PreparedBatch> {
    private final PreparedBatch committable;
    private String outcome;

    Request(PreparedBatch committable) {
      this.committable = committable;
    }

    @Override
    public PreparedBatch getCommittable() {
      return committable;
    }

    @Override
    public int getNumberOfRetries() {
      return 0;
    }

    @Override
    public void signalFailedWithKnownReason(Throwable t) {
      outcome = "failed";
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable t) {
      outcome = "failed";
      throw new IllegalStateException("Failed to commit " + committable, t);
    }

    @Override
    public void retryLater() {
      outcome = "retry";
    }

    @Override
    public void updateAndRetryLater(PreparedBatch committable) {
      outcome = "retry";
    }

    @Override
    public void signalAlreadyCommitted() {
      outcome = "already";
    }
  }

  /** Requests of the batches as a restore has them: read back from their serialized form. */
  private static List<Request> requests(
      List<PreparedBatch> batches, PreparedBatchSerializer serializer) throws Exception {
    List<Request> requests = new ArrayList<>();
    for (PreparedBatch batch : batches) {
      requests.add(
          new Request(
              serializer.deserialize(serializer.getVersion(), serializer.serialize(batch))));
    }
    return requests;
  }

  /** The rows of a table's log and their change types, buckets in order, each in offset order. */
  private record Changes(List<Object[]> rows, List<ChangeType> types) {}

  /** Every bucket's log from the earliest offset to the latest, polled with a deadline. */
  private static Changes readToLatest(TablePath path) {
    io.lakestream.client.Table table = client.table(path);
    Changes changes = new Changes(new ArrayList<>(), new ArrayList<>());
    try (LogScanner scanner = table.newScanner()) {
      long[] latest = new long[table.buckets()];
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        latest[bucket] = table.latestOffset(bucket);
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (!caughtUp(scanner, latest)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "Did not read " + path + " to its latest offsets within " + READ_TIMEOUT);
        }
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
          try (batch) {
            List<Object[]> rows = batch.rows();
            for (int i = 0; i < rows.size(); i++) {
              changes.rows().add(rows.get(i));
              changes.types().add(batch.changeType(i));
            }
          }
        }
      }
    }
    return changes;
  }

  private static boolean caughtUp(LogScanner scanner, long[] latest) {
    for (int bucket = 0; bucket < latest.length; bucket++) {
      if (scanner.position(bucket) < latest[bucket]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Passes elements through and throws once per test, in the first attempt: when {@code after}
   * elements passed in all and at least 100 passed in this subtask since its last completed
   * checkpoint (so that the restore replays rows the sink already had). Given a table written at
   * least once, it first waits until the table holds as many rows as passed through it in all, so
   * that rows after the checkpoint have surely reached the server (not only the writer's buffer)
   * when the failure comes.
   */
  private static final class FailOnce<T> extends RichMapFunction<T, T>
      implements CheckpointListener {
    static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicLong SEEN = new AtomicLong();

    private final long after;
    private final String awaitedTable;
    private boolean checkpointed;
    private long sinceCheckpoint;

    FailOnce(long after) {
      this(after, null);
    }

    FailOnce(long after, String awaitedTable) {
      this.after = after;
      this.awaitedTable = awaitedTable;
    }

    static void reset() {
      FAILED.set(false);
      SEEN.set(0);
    }

    @Override
    public T map(T value) {
      sinceCheckpoint++;
      long seen = SEEN.incrementAndGet();
      if (seen >= after
          && checkpointed
          && sinceCheckpoint >= 100
          && FAILED.compareAndSet(false, true)) {
        if (awaitedTable != null) {
          awaitRows(awaitedTable, seen - 1);
        }
        throw new IllegalStateException("Failure injected by the test");
      }
      return value;
    }

    /** Waits until every bucket of {@code table} together holds at least {@code rows} rows. */
    private static void awaitRows(String table, long rows) {
      io.lakestream.client.Table written = client.table(TablePath.of(table));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      long held = 0;
      while (System.nanoTime() < deadline) {
        held = 0;
        for (int bucket = 0; bucket < written.buckets(); bucket++) {
          held += written.latestOffset(bucket);
        }
        if (held >= rows) {
          return;
        }
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
      throw new IllegalStateException(
          "The at-least-once sink's table held " + held + " rows, not " + rows + ", after 30 s");
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      checkpointed = true;
      sinceCheckpoint = 0;
    }
  }
}
