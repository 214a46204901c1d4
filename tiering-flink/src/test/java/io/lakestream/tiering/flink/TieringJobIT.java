package io.lakestream.tiering.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.client.program.PackagedProgramUtils;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tiering job on a MiniCluster against the packaged server started with {@code
 * --tiering-enabled false}, read back with Iceberg's generic reader through the REST catalog;
 * expected rows are the ones this test wrote (primary-key tables: a model of the upserts and
 * deletes). Rows written through the client show up in Iceberg exactly once, with each table's
 * rounds on one subtask and the tables over several. The fault checks of embedded tiering, for the
 * job: a job cancelled while a round waits between its files and its commit, then started again;
 * rounds that crash their task before the commit while writers go on (Flink restarts the job); and
 * eight jobs killed at any moment while a writer writes, then one that catches up: every row
 * exactly once. Finally the job jar, run as {@code flink run} runs it.
 */
class TieringJobIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final int PARALLELISM = 2;

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(4)
              .build());

  private static PackagedServer server;
  private static Connection client;
  private static RESTCatalog catalog;

  // What the hooks of the running test saw; hooks run in the MiniCluster, in this JVM.
  private static final Map<String, Set<Integer>> SUBTASKS = new ConcurrentHashMap<>();
  private static final AtomicInteger CRASHES = new AtomicInteger();
  private static final AtomicReference<List<String>> HELD_FILES = new AtomicReference<>();
  private static volatile CountDownLatch roundHeld = new CountDownLatch(1);

  private final List<JobClient> jobs = new ArrayList<>();

  @BeforeAll
  static void startServer() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("tiering-job-it-");
    server = PackagedServer.start(run, SERVER_START_TIMEOUT, "--tiering-enabled", "false");
    client = Connection.open("127.0.0.1", server.rpcPort(), null);
    catalog = new RESTCatalog();
    catalog.initialize("test", new HashMap<>(Map.of("uri", server.baseUri())));
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void cancelJobs() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get(60, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void rowsWrittenThroughTheClientAreTieredExactlyOnce() throws Exception {
    client.admin().createNamespace(null, List.of("plain"));
    List<TablePath> logTables = new ArrayList<>();
    for (String name : List.of("clicks", "views", "orders")) {
      TablePath path = new TablePath(null, List.of("plain"), name);
      createLogTable(path);
      logTables.add(path);
    }
    TablePath keyed = new TablePath(null, List.of("plain"), "accounts");
    createKeyedTable(keyed);

    Map<TablePath, Set<Long>> written = new HashMap<>();
    for (int i = 0; i < logTables.size(); i++) {
      written.put(logTables.get(i), appendRows(logTables.get(i), i * 100_000L, 3_000));
    }
    Map<Long, String> accounts = new TreeMap<>();
    upsertRows(keyed, new Random(7), 2_000, 300, accounts);
    // The server does not tier: its status says so, and no table has a snapshot before the job.
    HttpResponse<String> status =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(server.baseUri() + "/v1/namespaces/plain/tables/clicks/tiering"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(status.statusCode()).as("tiering status: %s", status.body()).isEqualTo(200);
    assertThat(status.body()).contains("tiering.enabled=false");
    for (TablePath path : written.keySet()) {
      assertThat(lakeTable(path).currentSnapshot()).as("snapshot of %s", path).isNull();
    }

    SUBTASKS.clear();
    JobClient job = startJob(JobTieringHook.NONE, false, true);

    for (TablePath path : logTables) {
      awaitTiered(path);
      assertExactlyOnce(path, written.get(path));
    }
    awaitTiered(keyed);
    assertThat(keyedRows(keyed)).as("rows of %s", keyed).isEqualTo(accounts);

    // Rows written while the job runs are tiered too.
    Set<Long> more = appendRows(logTables.get(0), 900_000L, 1_000);
    written.get(logTables.get(0)).addAll(more);
    awaitTiered(logTables.get(0));
    assertExactlyOnce(logTables.get(0), written.get(logTables.get(0)));

    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    // Each table's rounds ran on one subtask; the tables were spread over more than one.
    Set<Integer> used = new HashSet<>();
    for (TablePath path : written.keySet()) {
      assertThat(SUBTASKS.get(path.toString())).as("subtasks of %s", path).hasSize(1);
      used.addAll(SUBTASKS.get(path.toString()));
    }
    used.addAll(SUBTASKS.get(keyed.toString()));
    assertThat(used).as("subtasks that ran rounds").hasSize(PARALLELISM);
  }

  @Test
  void roundCancelledBeforeItsCommitIsRedoneByTheNextJob() throws Exception {
    client.admin().createNamespace(null, List.of("cancelled"));
    TablePath path = new TablePath(null, List.of("cancelled"), "events");
    String held = path.toString();
    createLogTable(path);
    Set<Long> written = appendRows(path, 0, 3_000);

    roundHeld = new CountDownLatch(1);
    HELD_FILES.set(null);
    JobClient first =
        startJob(
            (table, files) -> {
              if (!table.toString().equals(held)) {
                return;
              }
              List<String> locations = new ArrayList<>();
              for (DataFile file : files) {
                locations.add(file.location());
              }
              HELD_FILES.set(locations);
              roundHeld.countDown();
              // The round waits here, its files written and not committed, until the job dies.
              try {
                new CountDownLatch(1).await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Round of " + table + " cancelled", e);
              }
            },
            false,
            false);
    assertThat(roundHeld.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
        .as("a round of %s reached its commit", path)
        .isTrue();
    List<String> heldFiles = HELD_FILES.get();
    assertThat(heldFiles).as("data files of the held round").isNotEmpty();
    for (String location : heldFiles) {
      assertThat(Files.exists(localPath(location))).as("written: %s", location).isTrue();
    }

    first.cancel().get(60, TimeUnit.SECONDS);
    awaitCondition(
        () -> first.getJobStatus().join() == JobStatus.CANCELED,
        () -> "job " + first.getJobID() + " is " + first.getJobStatus().join());
    assertThat(lakeTable(path).currentSnapshot()).as("snapshot after the cancel").isNull();

    written.addAll(appendRows(path, 500_000L, 2_000));
    startJob(JobTieringHook.NONE, false, false);
    awaitTiered(path);
    assertExactlyOnce(path, written);
    Set<String> referenced = referencedFiles(lakeTable(path));
    for (String location : heldFiles) {
      assertThat(referenced).as("files of the table").doesNotContain(location);
    }
  }

  @Test
  void roundsThatCrashTheirTaskBeforeTheCommitAreRedoneExactlyOnce() throws Exception {
    client.admin().createNamespace(null, List.of("crashing"));
    TablePath events = new TablePath(null, List.of("crashing"), "events");
    TablePath accounts = new TablePath(null, List.of("crashing"), "accounts");
    createLogTable(events);
    createKeyedTable(accounts);
    Set<Long> written = appendRows(events, 0, 2_000);
    Random random = new Random(11);
    Map<Long, String> model = new TreeMap<>();
    upsertRows(accounts, random, 1_000, 200, model);

    int crashes = 4;
    CRASHES.set(0);
    JobClient job =
        startJob(
            (table, files) -> {
              if (!files.isEmpty() && CRASHES.getAndIncrement() < crashes) {
                throw new SimulatedCrash("Crash before the commit of " + table);
              }
            },
            true,
            false);
    // Writers go on while rounds crash and the job restarts: each batch after another crash.
    for (int batch = 1; batch <= 8; batch++) {
      int crashed = Math.min(batch, crashes);
      awaitCondition(
          () -> CRASHES.get() >= crashed,
          () -> "crashes so far: " + CRASHES.get() + " of " + crashed);
      written.addAll(appendRows(events, batch * 10_000L, 300));
      upsertRows(accounts, random, 100, 200, model);
    }
    awaitCondition(
        () -> CRASHES.get() > crashes, () -> "rounds so far: " + CRASHES.get() + " of " + crashes);

    awaitTiered(events);
    awaitTiered(accounts);
    assertExactlyOnce(events, written);
    assertThat(keyedRows(accounts)).as("rows of %s", accounts).isEqualTo(model);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * The embedded crash test's two kinds of kill, for the job, while writers write: every other job
   * is cancelled after a random number of acknowledged rows once it has committed a round (a kill
   * anywhere: reading, writing, committing or between rounds), the others die in their first round
   * that has files to commit, after writing them. Then a last job catches up.
   */
  @Test
  void jobsKilledAtAnyMomentWhileWritersWriteLeaveEveryRowExactlyOnce() throws Exception {
    client.admin().createNamespace(null, List.of("chaos"));
    TablePath events = new TablePath(null, List.of("chaos"), "events");
    TablePath accounts = new TablePath(null, List.of("chaos"), "accounts");
    createLogTable(events);
    createKeyedTable(accounts);
    long seed = Long.getLong("lakestream.crash.seed", System.nanoTime());
    System.out.println(
        "jobsKilledAtAnyMomentWhileWritersWriteLeaveEveryRowExactlyOnce seed " + seed);
    Random random = new Random(seed);

    Set<Long> written = ConcurrentHashMap.newKeySet();
    Map<Long, String> model = new TreeMap<>(); // guarded by itself
    AtomicInteger acknowledged = new AtomicInteger();
    AtomicReference<Throwable> writerFailure = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean writing =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    long writerSeed = random.nextLong();
    Thread writer =
        new Thread(
            () -> {
              Random writes = new Random(writerSeed);
              long next = 0;
              try {
                while (writing.get()) {
                  written.addAll(appendRows(events, next, 100));
                  next += 100;
                  synchronized (model) {
                    upsertRows(accounts, writes, 20, 300, model);
                  }
                  acknowledged.addAndGet(120);
                }
              } catch (Throwable e) {
                writerFailure.set(e);
              }
            },
            "chaos-writer");
    writer.start();
    int kills = 8;
    try {
      for (int kill = 1; kill <= kills; kill++) {
        if (kill % 2 == 1) {
          int snapshots = snapshotCount(events);
          JobClient job = startJob(JobTieringHook.NONE, false, false);
          awaitCondition(
              () -> snapshotCount(events) > snapshots,
              () -> "a commit of job " + job.getJobID() + " (seed " + seed + ")");
          int target = acknowledged.get() + 100 + random.nextInt(2_000);
          awaitCondition(
              () -> acknowledged.get() >= target || writerFailure.get() != null,
              () -> "acknowledged rows: " + acknowledged.get() + " of " + target);
          job.cancel().get(60, TimeUnit.SECONDS);
          awaitCondition(
              () -> job.getJobStatus().join() == JobStatus.CANCELED,
              () -> "job " + job.getJobID() + " is " + job.getJobStatus().join());
        } else {
          JobClient job =
              startJob(
                  (table, files) -> {
                    if (!files.isEmpty()) {
                      throw new SimulatedCrash("Crash before the commit of " + table);
                    }
                  },
                  false,
                  false);
          awaitCondition(
              () -> job.getJobStatus().join() == JobStatus.FAILED,
              () -> "job " + job.getJobID() + " is " + job.getJobStatus().join());
        }
      }
    } finally {
      writing.set(false);
      writer.join(TIMEOUT.toMillis());
    }
    assertThat(writerFailure.get()).as("the writer's failure").isNull();
    assertThat(writer.isAlive()).as("the writer still running").isFalse();

    startJob(JobTieringHook.NONE, false, false);
    awaitTiered(events);
    awaitTiered(accounts);
    assertExactlyOnce(events, written);
    synchronized (model) {
      assertThat(keyedRows(accounts)).as("rows of %s (seed %d)", accounts, seed).isEqualTo(model);
    }
  }

  private static int snapshotCount(TablePath path) {
    return Iterables.size(lakeTable(path).snapshots());
  }

  @Test
  void jobJarRunsItsEntryClassOnTheCluster() throws Exception {
    client.admin().createNamespace(null, List.of("packaged"));
    TablePath path = new TablePath(null, List.of("packaged"), "events");
    createLogTable(path);
    Set<Long> written = appendRows(path, 0, 2_000);

    // What `flink run -c TieringJob <job jar> <arguments>` does: the entry class's main builds the
    // job graph in the jar's class loader, and the jar travels with it to the task managers.
    Path jar = Path.of(System.getProperty("lakestream.tiering.job.jar"));
    assertThat(jar).as("the job jar (mvn package)").exists();
    Configuration configuration = new Configuration(FLINK.getClientConfiguration());
    PackagedProgram program =
        PackagedProgram.newBuilder()
            .setJarFile(jar.toFile())
            .setEntryPointClassName("io.lakestream.tiering.flink.TieringJob")
            .setArguments(
                "--uri",
                server.baseUri(),
                "--rpc-address",
                "127.0.0.1:" + server.rpcPort(),
                "--interval",
                "500ms",
                "--parallelism",
                "1")
            .setConfiguration(configuration)
            .build();
    JobGraph graph = PackagedProgramUtils.createJobGraph(program, configuration, 1, false);
    assertThat(graph.getUserJars()).as("jars of the job graph").isNotEmpty();
    try (RestClusterClient<StandaloneClusterId> cluster =
        new RestClusterClient<>(configuration, StandaloneClusterId.getInstance())) {
      JobID id = cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
      try {
        awaitTiered(path);
        assertExactlyOnce(path, written);
        assertThat(cluster.getJobStatus(id).get()).isEqualTo(JobStatus.RUNNING);
      } finally {
        cluster.cancel(id).get(60, TimeUnit.SECONDS);
      }
    } finally {
      program.close();
    }
  }

  /** What a hook throws to stand for a task that dies before its round commits. */
  private static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String message) {
      super(message);
    }
  }

  private JobClient startJob(JobTieringHook hook, boolean restarts, boolean recordSubtasks)
      throws Exception {
    Configuration configuration = new Configuration();
    if (restarts) {
      configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
      configuration.set(
          RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    } else {
      configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    TieringJobOptions options =
        TieringJobOptions.parse(
            new String[] {
              "--uri",
              server.baseUri(),
              "--rpc-address",
              "127.0.0.1:" + server.rpcPort(),
              "--interval",
              "500ms",
              "--parallelism",
              Integer.toString(PARALLELISM)
            },
            1);
    var results = TieringJob.addTo(env, options, hook);
    if (recordSubtasks) {
      results.map(new RecordSubtask()).setParallelism(PARALLELISM).sinkTo(new DiscardingSink<>());
    }
    JobClient job = env.executeAsync(TieringJob.NAME);
    jobs.add(job);
    return job;
  }

  /** Records which subtask ran each table's rounds (chained to the rounds' subtasks). */
  private static final class RecordSubtask extends RichMapFunction<TieringRoundResult, String> {
    private static final long serialVersionUID = 1L;
    private transient int subtask;

    @Override
    public void open(OpenContext context) {
      subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    @Override
    public String map(TieringRoundResult result) {
      SUBTASKS.computeIfAbsent(result.table, t -> ConcurrentHashMap.newKeySet()).add(subtask);
      return result.table;
    }
  }

  private static void createLogTable(TablePath path) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "label", Types.StringType.get()));
    client
        .admin()
        .createTable(
            path,
            TableDescriptor.logTable(schema, 3)
                .withBucketKey("id")
                .withProperty("lakestream.tiering.interval", "1s"));
  }

  private static void createKeyedTable(TablePath path) {
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "balance", Types.StringType.get())),
            Set.of(1));
    client
        .admin()
        .createTable(
            path,
            TableDescriptor.of(
                schema,
                Map.of(
                    TableDescriptor.KIND,
                    "primary-key",
                    TableDescriptor.BUCKETS,
                    "2",
                    "lakestream.tiering.interval",
                    "1s")));
  }

  /** Appends ids {@code from .. from + count - 1}; returns them once the server acknowledged. */
  private static Set<Long> appendRows(TablePath path, long from, int count) {
    Set<Long> ids = new HashSet<>();
    try (var writer = client.table(path).newAppendWriter()) {
      for (long id = from; id < from + count; id++) {
        writer.append(id, "row " + id);
        ids.add(id);
      }
      writer.flush();
    }
    return ids;
  }

  /** Upserts and deletes random keys below {@code keys}, applying each to {@code model}. */
  private static void upsertRows(
      TablePath path, Random random, int operations, int keys, Map<Long, String> model) {
    try (UpsertWriter writer = client.table(path).newUpsertWriter()) {
      for (int i = 0; i < operations; i++) {
        long id = random.nextInt(keys);
        if (random.nextInt(5) == 0) {
          writer.delete(id);
          model.remove(id);
        } else {
          String balance = "b" + random.nextInt(1_000_000);
          writer.upsert(id, balance);
          model.put(id, balance);
        }
      }
      writer.flush();
    }
  }

  private static Table lakeTable(TablePath path) {
    return catalog.loadTable(TableIdentifier.of(path.namespace().get(0), path.name()));
  }

  /** Waits until the current snapshot's offsets are every bucket's high watermark. */
  private static void awaitTiered(TablePath path) {
    io.lakestream.client.Table stream = client.table(path);
    Map<String, Map<Integer, Long>> highWatermarks = new TreeMap<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        long offset = stream.latestOffset(partition, bucket);
        if (offset > 0) {
          highWatermarks.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
        }
      }
    }
    assertThat(highWatermarks).as("high watermarks of %s", path).isNotEmpty();
    awaitCondition(
        () -> tiered(path).equals(highWatermarks),
        () -> path + " tiered up to " + tiered(path) + ", high watermarks " + highWatermarks);
  }

  private static Map<String, Map<Integer, Long>> tiered(TablePath path) {
    Table table = lakeTable(path);
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    if (table.currentSnapshot() == null) {
      return offsets;
    }
    TieredOffsets.of(table.currentSnapshot())
        .partitions()
        .forEach(
            (partition, buckets) ->
                buckets.forEach(
                    (bucket, offset) -> {
                      if (offset > 0) {
                        offsets
                            .computeIfAbsent(partition, p -> new TreeMap<>())
                            .put(bucket, offset);
                      }
                    }));
    return offsets;
  }

  /** The table holds each written id once, and nothing else. */
  private static void assertExactlyOnce(TablePath path, Set<Long> written) throws Exception {
    Map<Long, Integer> counts = new HashMap<>();
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(lakeTable(path)).build()) {
      for (Record record : records) {
        counts.merge((Long) record.getField("id"), 1, Integer::sum);
        rows++;
      }
    }
    Map<Long, Integer> duplicated = new TreeMap<>();
    counts.forEach(
        (id, count) -> {
          if (count > 1) {
            duplicated.put(id, count);
          }
        });
    assertThat(duplicated).as("ids of %s in Iceberg more than once", path).isEmpty();
    assertThat(counts.keySet()).as("ids of %s in Iceberg", path).isEqualTo(written);
    assertThat(rows).as("rows of %s in Iceberg", path).isEqualTo(written.size());
  }

  private static Map<Long, String> keyedRows(TablePath path) throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(lakeTable(path)).build()) {
      for (Record record : records) {
        String before = rows.put((Long) record.getField("id"), (String) record.getField("balance"));
        assertThat(before).as("key %s of %s read twice", record.getField("id"), path).isNull();
      }
    }
    return rows;
  }

  private static Set<String> referencedFiles(Table table) throws Exception {
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add(task.file().location());
      }
    }
    return files;
  }

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  private static void awaitCondition(BooleanSupplier condition, Supplier<String> state) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Not within " + TIMEOUT + ": " + state.get());
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
  }
}
