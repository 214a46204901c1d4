package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.StateSnapshot;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The SIGKILL fault test of tiering, for any lake format: the machinery the crash ITs share ({@link
 * TieringCrashConsistencyIT} for Iceberg, {@link PaimonTieringCrashConsistencyIT} for Paimon).
 *
 * <p>The packaged server runs as a separate process with one or more streaming tables ({@link
 * CrashTable}) that tier every second; writers per table write and remember what the server
 * acknowledged ({@link AppendLoad} for log tables, {@link UpsertLoad} for primary-key tables); the
 * server is killed with SIGKILL while it tiers and restarted on the same data directory, and the
 * writers go on. Every other kill comes the moment the server logs one of the {@link
 * CrashTable#killLines()} of one of the tables, such as a round's announcement that it is about to
 * commit ({@value #COMMITTING}...{@code of <table> up to}: its data files are written, the commit
 * is not done), the tables and their lines taking turns; the others come after a random number of
 * acknowledged writes once a round of the run has committed ({@value #TIERED}), at any point of a
 * later round. At the end the server runs once more and each table checks, after tiering caught up,
 * that its lake table holds exactly what was acknowledged ({@link CrashTable#check}).
 */
final class TieringCrashHarness {
  static final String HOST = "127.0.0.1";

  /** What a round logs at debug just before its commit, and after it committed. */
  static final String COMMITTING = "Committing ";

  static final String TIERED = "Tiered ";

  static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  static final Duration LOG_LINE_TIMEOUT = Duration.ofSeconds(60);
  static final Duration WRITER_TIMEOUT = Duration.ofSeconds(60);
  static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);

  private TieringCrashHarness() {}

  /**
   * A run's shape.
   *
   * @param name the test's name, in printed lines
   * @param rounds kills (at least 20)
   * @param writersPerTable concurrent writers of each table
   * @param maxAcksAfterFirstCommit the most acknowledged writes to wait for before a kill that is
   *     not at a commit
   * @param debugLoggers loggers whose debug lines ({@value #COMMITTING}, {@value #TIERED}) the
   *     kills wait for
   * @param serverJvmOptions more options of the server's JVM
   * @param flushPause how long a writer waits after each acknowledged batch (zero: none)
   * @param quietFinish whether the last rounds, one per table in turn, first stop the table's
   *     writers and then kill the server in the table's round that tiers its log's last rows
   *     ({@link CrashTable#lastRowsKillLine}): no later write makes a later round repair what the
   *     kill left, the restart alone must
   */
  record Settings(
      String name,
      int rounds,
      int writersPerTable,
      int maxAcksAfterFirstCommit,
      List<String> debugLoggers,
      List<String> serverJvmOptions,
      Duration flushPause,
      boolean quietFinish) {
    Settings {
      requireNonNull(name, "name is null");
      debugLoggers = List.copyOf(debugLoggers);
      serverJvmOptions = List.copyOf(serverJvmOptions);
      requireNonNull(flushPause, "flushPause is null");
    }
  }

  enum KillMoment {
    /**
     * As soon as the server logs, for the k-th time in this run, one of the targeted table's {@link
     * CrashTable#killLines()} (such as a round's {@value #COMMITTING} line).
     */
    AT_LINE,
    /**
     * After a random number of acknowledged writes once the first round of this run committed:
     * anywhere in a later round (reading, writing, committing) or between rounds.
     */
    AFTER_ACKS
  }

  /**
   * What one kill left on disk.
   *
   * @param target the table whose log line the kill waited for; null for {@link
   *     KillMoment#AFTER_ACKS}
   * @param line the name of that {@link KillLine}; null for {@link KillMoment#AFTER_ACKS}
   * @param files per table, its {@link CrashTable#filesOnDisk()} right after the kill
   */
  record Kill(
      int round,
      KillMoment moment,
      TablePath target,
      String line,
      Map<TablePath, Set<String>> files) {}

  /**
   * A line of the server's output to kill it at.
   *
   * @param name what the moment is, in printed lines
   */
  record KillLine(String name, Predicate<String> matches) {
    KillLine {
      requireNonNull(name, "name is null");
      requireNonNull(matches, "matches is null");
    }

    /** A round of the table logs that it commits: its data files are written, not committed. */
    static KillLine committing(TablePath path) {
      String of = " of " + path + " up to ";
      return new KillLine(
          "before the commit", line -> line.contains(COMMITTING) && line.contains(of));
    }
  }

  /** What a table's check gets after the last restart, once every writer has stopped. */
  record Context(
      ServerProcess server,
      Connection connection,
      RESTCatalog catalog,
      List<LoadWriter> writers,
      List<Kill> kills,
      Path logs,
      long seed) {}

  /** One streaming table under the fault test. */
  interface CrashTable {
    TablePath path();

    /** The log lines to kill the server at, in turns (see {@link KillMoment#AT_LINE}). */
    List<KillLine> killLines();

    /**
     * The line to kill the server at in the table's round that tiers the log up to its end, when no
     * writer writes any more ({@link Settings#quietFinish()}).
     *
     * @param logEnd the log's end offsets, as a round logs its offsets
     */
    default KillLine lastRowsKillLine(String logEnd) {
      throw new UnsupportedOperationException(path() + " has no kill line for its last rows");
    }

    /** Creates the table through the catalog (it tiers every second). */
    void create(RESTCatalog catalog);

    /** The {@code index}-th writer of the table. */
    LoadWriter newWriter(int index, ServerLives lives, long seed);

    /** The lake files of the table that exist now, as local paths (taken at every kill). */
    Set<String> filesOnDisk();

    /**
     * Waits until tiering caught up with the log and checks the lake table against what the writers
     * were acknowledged; throws an {@link AssertionError} naming the seed when it does not hold.
     *
     * @return a line of figures to print
     */
    String check(Context context) throws Exception;
  }

  /** Runs the fault test over the tables; each table's check runs after the last restart. */
  static void run(Settings settings, List<CrashTable> tables, Path temp) throws Exception {
    long seed = Long.getLong("lakestream.crash.seed", System.nanoTime());
    System.out.println(settings.name() + " seed " + seed);
    Random random = new Random(seed);
    long started = System.nanoTime();

    Path data = temp.resolve("data");
    Path logs = temp.resolve("logs");
    int httpPort = ServerProcess.freePort();
    int rpcPort = ServerProcess.freePort();
    List<String> flags =
        List.of(
            "--data-dir", data.toString(),
            "--http-port", Integer.toString(httpPort),
            "--rpc-port", Integer.toString(rpcPort),
            "--flight-port", Integer.toString(ServerProcess.freePort()),
            "--tiering-discovery-interval", "1s",
            "--tiering-orphan-file-age", "1s");
    StringBuilder options = new StringBuilder();
    for (String logger : settings.debugLoggers()) {
      options.append(options.isEmpty() ? "" : " ");
      options.append("-Dorg.slf4j.simpleLogger.log.").append(logger).append("=debug");
    }
    for (String option : settings.serverJvmOptions()) {
      options.append(options.isEmpty() ? "" : " ").append(option);
    }
    Map<String, String> environment = Map.of("LAKESTREAM_JAVA_OPTS", options.toString());

    // Each table's writers have their own view of the lives: a quiet finish stops them per table.
    Map<TablePath, ServerLives> livesByTable = new LinkedHashMap<>();
    Map<TablePath, List<LoadWriter>> writersByTable = new LinkedHashMap<>();
    List<LoadWriter> writers = new ArrayList<>();
    for (CrashTable table : tables) {
      ServerLives lives = new ServerLives();
      livesByTable.put(table.path(), lives);
      List<LoadWriter> ofTable = new ArrayList<>();
      for (int i = 0; i < settings.writersPerTable(); i++) {
        LoadWriter writer = table.newWriter(i, lives, random.nextLong());
        writer.pauseAfterAck(settings.flushPause());
        ofTable.add(writer);
      }
      writersByTable.put(table.path(), ofTable);
      writers.addAll(ofTable);
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers.size());
    Map<TablePath, List<Future<?>>> runningByTable = new LinkedHashMap<>();
    List<Future<?>> running = new ArrayList<>();
    List<Kill> kills = new ArrayList<>();
    ServerProcess server = start(logs, httpPort, flags, environment);
    try {
      try (RESTCatalog catalog = catalog(server)) {
        for (CrashTable table : tables) {
          table.create(catalog);
        }
      }
      writersByTable.forEach(
          (path, ofTable) -> {
            for (LoadWriter writer : ofTable) {
              Future<?> future = pool.submit(writer);
              running.add(future);
              runningByTable.computeIfAbsent(path, p -> new ArrayList<>()).add(future);
            }
          });
      int quietFrom =
          settings.quietFinish() ? settings.rounds() - tables.size() + 1 : Integer.MAX_VALUE;
      for (int round = 1; round <= settings.rounds(); round++) {
        long roundStarted = System.nanoTime();
        if (round >= quietFrom) {
          // This table's writers stop; those of the tables after it in the list go on.
          TablePath quiet = tables.get(round - quietFrom).path();
          livesByTable.get(quiet).stop();
          awaitAll(runningByTable.get(quiet), seed);
        }
        Connection connection = Connection.open(HOST, rpcPort, null);
        livesByTable.values().forEach(lives -> lives.up(connection));
        KillMoment moment = round % 2 == 0 ? KillMoment.AT_LINE : KillMoment.AFTER_ACKS;
        TablePath target = null;
        KillLine line = null;
        String detail;
        if (round >= quietFrom) {
          moment = KillMoment.AT_LINE;
          CrashTable table = tables.get(round - quietFrom);
          target = table.path();
          line =
              table.lastRowsKillLine(
                  TieredOffsets.of(highWatermarks(connection, target)).toString());
          awaitLine(server, line.matches(), round, seed);
          detail = "at line '" + line.name() + "' of " + target + " (writers stopped)";
        } else if (moment == KillMoment.AT_LINE) {
          CrashTable table = tables.get((round / 2) % tables.size());
          target = table.path();
          line = table.killLines().get((round / (2 * tables.size())) % table.killLines().size());
          int times = 1 + random.nextInt(2);
          for (int i = 0; i < times; i++) {
            awaitLine(server, line.matches(), round, seed);
          }
          detail = "at line '" + line.name() + "' of " + target + " (" + times + ". time)";
        } else {
          awaitLine(server, candidate -> candidate.contains(TIERED), round, seed);
          int acks = random.nextInt(settings.maxAcksAfterFirstCommit());
          CountDownLatch acknowledged = new CountDownLatch(acks);
          writers.forEach(writer -> writer.onAck(acknowledged::countDown));
          assertThat(acknowledged.await(60, TimeUnit.SECONDS))
              .as("round %d: %d acknowledgements within 60 s (seed %d)", round, acks, seed)
              .isTrue();
          detail = "after " + acks + " acknowledgements";
        }
        server.kill();
        livesByTable.values().forEach(ServerLives::down);
        connection.close();
        Map<TablePath, Set<String>> files = new LinkedHashMap<>();
        for (CrashTable table : tables) {
          files.put(table.path(), table.filesOnDisk());
        }
        kills.add(new Kill(round, moment, target, line == null ? null : line.name(), files));
        long restarting = System.nanoTime();
        server = start(logs, httpPort, flags, environment);
        System.out.printf(
            Locale.ROOT,
            "round %d: killed %s (%d ms), ready again after %d ms%n",
            round,
            detail,
            TimeUnit.NANOSECONDS.toMillis(restarting - roundStarted),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarting));
      }
      livesByTable.values().forEach(ServerLives::stop);
      awaitAll(running, seed);

      try (Connection connection = Connection.open(HOST, rpcPort, null);
          RESTCatalog catalog = catalog(server)) {
        List<String> reports = new ArrayList<>();
        for (CrashTable table : tables) {
          reports.add(
              table.check(
                  new Context(
                      server,
                      connection,
                      catalog,
                      writersByTable.get(table.path()),
                      List.copyOf(kills),
                      logs,
                      seed)));
        }
        System.out.printf(
            Locale.ROOT,
            "%s seed %d: %d SIGKILLs while tiering (%d at a table's kill line), %d writers per"
                + " table; %d s%n  %s%n",
            settings.name(),
            seed,
            settings.rounds(),
            kills.stream().filter(kill -> kill.moment() == KillMoment.AT_LINE).count(),
            settings.writersPerTable(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
            String.join("\n  ", reports));
        for (LoadWriter writer : writers) {
          System.out.println("writer failures: " + writer.failures());
        }
      }
    } finally {
      livesByTable.values().forEach(ServerLives::stop);
      server.close();
      pool.shutdownNow();
    }
  }

  private static ServerProcess start(
      Path logs, int httpPort, List<String> flags, Map<String, String> environment)
      throws IOException, InterruptedException {
    return ServerProcess.launchReady(logs, httpPort, flags, environment, START_TIMEOUT);
  }

  private static void awaitLine(
      ServerProcess server, Predicate<String> matching, int round, long seed) throws IOException {
    String line = server.awaitLine(matching, LOG_LINE_TIMEOUT);
    if (line == null) {
      throw new AssertionError(
          "round "
              + round
              + ": the awaited line was not logged within "
              + LOG_LINE_TIMEOUT
              + " (seed "
              + seed
              + "):\n"
              + server.stdout());
    }
  }

  static RESTCatalog catalog(ServerProcess server) {
    RESTCatalog catalog = new RESTCatalog();
    // The Iceberg client probes the properties with containsKey(null): mutable maps only.
    catalog.initialize(
        "lakestream",
        new HashMap<>(Map.of("uri", server.baseUri(), "io-impl", LocalFileIO.class.getName())));
    return catalog;
  }

  static TableIdentifier identifier(TablePath path) {
    return TableIdentifier.parse(path.toString());
  }

  /** Every partition's and bucket's high watermark of the log (buckets at 0 left out). */
  static Map<String, Map<Integer, Long>> highWatermarks(Connection connection, TablePath path) {
    return TieringFixture.highWatermarks(connection.table(path));
  }

  /**
   * Every row the server holds for a primary-key table (its state, bucket by bucket), by the {@code
   * long} first column.
   */
  static Map<Long, Object[]> serverState(Connection connection, TablePath path) {
    io.lakestream.client.Table stream = connection.table(path);
    Map<Long, Object[]> rows = new HashMap<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        try (StateSnapshot snapshot = stream.snapshot(partition, bucket)) {
          while (snapshot.hasNext()) {
            Object[] row = snapshot.next();
            rows.put(((Number) row[0]).longValue(), row);
          }
        }
      }
    }
    return rows;
  }

  /** The offsets in the current snapshot's summary of a catalog entry. */
  static Map<String, Map<Integer, Long>> entryOffsets(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null || current.summary().get(TieredOffsets.SUMMARY_KEY) == null) {
      return Map.of();
    }
    return TieredOffsets.parse(current.summary().get(TieredOffsets.SUMMARY_KEY)).partitions();
  }

  /** Polls until {@code caughtUp} holds, failing with {@code state} after the catch-up timeout. */
  static void awaitCaughtUp(
      java.util.function.BooleanSupplier caughtUp,
      java.util.function.Supplier<String> state,
      long seed) {
    long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
    while (!caughtUp.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "Tiering did not catch up within "
                + CATCH_UP_TIMEOUT
                + " (seed "
                + seed
                + "): "
                + state.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  /** Every data and delete file of every snapshot of an Iceberg table, as local paths. */
  static Set<String> icebergReferencedFiles(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        try (CloseableIterable<? extends ContentFile<?>> entries =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (ContentFile<?> file : entries) {
            files.add(LocalFileIO.toPath(file.location()).toString());
          }
        }
      }
    }
    return files;
  }

  /** Every regular file under the directory that matches, as local paths; none if it is absent. */
  static Set<String> files(Path directory, Predicate<Path> matching) {
    try (Stream<Path> paths = Files.walk(directory)) {
      Set<String> files = new HashSet<>();
      paths
          .filter(Files::isRegularFile)
          .filter(matching)
          .forEach(path -> files.add(path.toString()));
      return files;
    } catch (NoSuchFileException e) {
      return Set.of();
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof NoSuchFileException) {
        return files(directory, matching); // a file went while walking: list again
      }
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Kills after which files of the table were on disk that no snapshot references, each such file
   * counted at the first kill that found it.
   *
   * @param orphans the files to count (unreferenced, and complete: no temporary files)
   * @return [kills that orphaned files, of them at one of the table's kill lines, files]
   */
  static int[] orphaningKills(
      TablePath path, List<Kill> kills, Set<String> referenced, Predicate<String> complete) {
    int orphaningKills = 0;
    int atCommit = 0;
    int orphanedFiles = 0;
    Set<String> seenAtEarlierKills = new HashSet<>();
    for (Kill kill : kills) {
      Set<String> orphans = new HashSet<>(kill.files().get(path));
      orphans.removeAll(referenced);
      orphans.removeAll(seenAtEarlierKills);
      seenAtEarlierKills.addAll(kill.files().get(path));
      orphanedFiles += orphans.size();
      if (orphans.stream().anyMatch(complete)) {
        orphaningKills++;
        if (kill.moment() == KillMoment.AT_LINE && path.equals(kill.target())) {
          atCommit++;
        }
      }
    }
    return new int[] {orphaningKills, atCommit, orphanedFiles};
  }

  /**
   * Checks a log table's rows (ids with their counts as read from the lake) against the writers:
   * every acknowledged row exactly once, an unacknowledged one at most once, nothing else, and as
   * many rows as the log holds.
   *
   * @return the violations, empty when it holds
   */
  static List<String> logViolations(
      String reader, Map<Long, Integer> counts, List<LoadWriter> writers, long rowsInLog) {
    Set<Long> acknowledged = new HashSet<>();
    Set<Long> sent = new HashSet<>();
    for (LoadWriter writer : writers) {
      AppendLoad load = (AppendLoad) writer;
      acknowledged.addAll(load.acknowledged());
      sent.addAll(load.sent());
    }
    List<String> violations = new ArrayList<>();
    counts.forEach(
        (id, count) -> {
          if (count > 1) {
            violations.add(reader + ": row " + id + " is in the table " + count + " times");
          }
          if (!sent.contains(id)) {
            violations.add(reader + ": row " + id + " was never written");
          }
        });
    for (long id : acknowledged) {
      if (!counts.containsKey(id)) {
        violations.add(reader + ": acknowledged row " + id + " is missing");
      }
    }
    long rowsInTable = counts.values().stream().mapToLong(Integer::longValue).sum();
    if (rowsInTable != rowsInLog) {
      violations.add(reader + ": the table holds " + rowsInTable + " rows, the log " + rowsInLog);
    }
    return violations;
  }

  /**
   * Checks a primary-key table's rows as read from the lake ({@code key -> [version, ...]}, every
   * row a key has) against the server's state and the writers' model: each key at most once, the
   * same version as the server holds, and a version (or absence) the writers' acknowledged and
   * in-doubt writes allow.
   *
   * @param serverVersions the server's state: key to version
   * @return the violations, empty when it holds
   */
  static List<String> primaryKeyViolations(
      String reader,
      Map<Long, List<Long>> lake,
      Map<Long, Long> serverVersions,
      List<LoadWriter> writers) {
    List<String> violations = new ArrayList<>();
    lake.forEach(
        (key, versions) -> {
          if (versions.size() > 1) {
            violations.add(reader + ": key " + key + " is in the table " + versions + " times");
          }
        });
    Set<Long> keys = new HashSet<>(lake.keySet());
    keys.addAll(serverVersions.keySet());
    Map<Long, UpsertLoad> owners = new HashMap<>();
    for (LoadWriter writer : writers) {
      UpsertLoad load = (UpsertLoad) writer;
      load.keys().forEach(key -> owners.put(key, load));
      keys.addAll(load.keys());
    }
    for (long key : keys) {
      Long inLake = lake.containsKey(key) ? lake.get(key).get(0) : null;
      Long inServer = serverVersions.get(key);
      if (!java.util.Objects.equals(inLake, inServer)) {
        violations.add(
            reader + ": key " + key + " has version " + inLake + ", the server " + inServer);
      }
      UpsertLoad owner = owners.get(key);
      if (owner == null) {
        violations.add(reader + ": key " + key + " was never written");
      } else if (!owner.allowed(key).contains(inLake == null ? UpsertLoad.ABSENT : inLake)) {
        violations.add(
            reader
                + ": key "
                + key
                + " has version "
                + inLake
                + "; acknowledged and in doubt: "
                + owner.allowed(key));
      }
    }
    return violations;
  }

  static void assertNoViolations(List<String> violations, long seed) {
    assertNoViolations(violations, seed, () -> "");
  }

  /**
   * Like {@link #assertNoViolations(List, long)}, with {@code state} (what the table's files and
   * snapshots looked like) printed before the first violations.
   */
  static void assertNoViolations(
      List<String> violations, long seed, java.util.function.Supplier<String> state) {
    if (!violations.isEmpty()) {
      throw new AssertionError(
          violations.size()
              + " violations (seed "
              + seed
              + "):\n  "
              + state.get()
              + String.join("\n  ", violations.subList(0, Math.min(violations.size(), 40))));
    }
  }

  private static void awaitAll(List<Future<?>> running, long seed) throws InterruptedException {
    long deadline = System.nanoTime() + WRITER_TIMEOUT.toNanos();
    for (Future<?> writer : running) {
      try {
        writer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError(
            "Writer failed (seed " + seed + "): " + e.getCause(), e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError("Writer still running " + WRITER_TIMEOUT + " after the last kill");
      }
    }
  }

  /**
   * The server's lives as the writers see them: a connection to the running server, or none while
   * it is down. Writers wait here for the next life after theirs failed.
   */
  static final class ServerLives {
    private int generation;
    private Connection connection;
    private boolean stopped;

    synchronized void up(Connection connection) {
      generation++;
      this.connection = connection;
      notifyAll();
    }

    synchronized void down() {
      connection = null;
    }

    synchronized void stop() {
      stopped = true;
      connection = null;
      notifyAll();
    }

    synchronized boolean stopped() {
      return stopped;
    }

    /** A life newer than {@code after}: its generation and connection; null once stopped. */
    synchronized Map.Entry<Integer, Connection> awaitNewerThan(int after)
        throws InterruptedException {
      while (!stopped && (connection == null || generation <= after)) {
        wait();
      }
      return stopped ? null : Map.entry(generation, connection);
    }
  }

  /**
   * A writer of one table that survives the server's deaths: in each life of the server it opens a
   * writer and writes batches until the life ends (a failed write or flush; that batch is in
   * doubt), then waits for the next life. Subclasses write a batch and record what was sent and
   * acknowledged; the records are read after {@link #call} returned.
   */
  abstract static class LoadWriter implements Callable<Void> {
    final int index;
    final Random random;
    private final TablePath path;
    private final ServerLives lives;
    private final AtomicReference<Runnable> ackListener = new AtomicReference<>(() -> {});
    private Duration pauseAfterAck = Duration.ZERO;
    private int failures;
    private RuntimeException lastFailure;

    LoadWriter(TablePath path, int index, ServerLives lives, long seed) {
      this.path = requireNonNull(path, "path is null");
      this.index = index;
      this.lives = requireNonNull(lives, "lives is null");
      this.random = new Random(seed);
    }

    /** How long to wait after each acknowledged batch; set before {@link #call}. */
    void pauseAfterAck(Duration pause) {
      this.pauseAfterAck = requireNonNull(pause, "pause is null");
    }

    /** Runs after every acknowledged batch from now on. */
    void onAck(Runnable listener) {
      ackListener.set(listener);
    }

    /** How often a life ended in a failed write or flush, and the last failure. */
    String failures() {
      return path
          + " writer "
          + index
          + ": "
          + failures
          + (lastFailure == null ? "" : " (last: " + lastFailure + ")");
    }

    /** Opens the stream client's writer of this life. */
    abstract AutoCloseable open(io.lakestream.client.Table table);

    /** Writes and flushes one batch, recording it as sent and then as acknowledged. */
    abstract void writeBatch(AutoCloseable writer);

    /** The batch being written failed with the server: its writes are in doubt. */
    abstract void batchFailed();

    @Override
    public Void call() throws Exception {
      int generation = 0;
      while (true) {
        Map.Entry<Integer, Connection> life = lives.awaitNewerThan(generation);
        if (life == null) {
          return null;
        }
        generation = life.getKey();
        try (AutoCloseable writer = open(life.getValue().table(path))) {
          while (!lives.stopped()) {
            writeBatch(writer);
            ackListener.get().run();
            long deadline = System.nanoTime() + pauseAfterAck.toNanos();
            for (long left = pauseAfterAck.toNanos();
                left > 0 && !lives.stopped();
                left = deadline - System.nanoTime()) {
              LockSupport.parkNanos(left);
            }
          }
        } catch (RuntimeException e) {
          // The server died under this life: the batch being written is in doubt.
          failures++;
          lastFailure = e;
          batchFailed();
        }
      }
    }
  }

  /**
   * Appends rows {@code (id bigint, writer int)} with ids unique across writers, a random number
   * per flush, and records which ids it sent and which the server acknowledged (a returned flush).
   */
  static final class AppendLoad extends LoadWriter {
    private final int maxRowsPerFlush;
    private final Set<Long> sent = ConcurrentHashMap.newKeySet();
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private long nextId;

    AppendLoad(TablePath path, int index, ServerLives lives, long seed, int maxRowsPerFlush) {
      super(path, index, lives, seed);
      this.maxRowsPerFlush = maxRowsPerFlush;
      this.nextId = (index + 1) * 1_000_000_000_000L;
    }

    Set<Long> sent() {
      return sent;
    }

    Set<Long> acknowledged() {
      return acknowledged;
    }

    @Override
    AutoCloseable open(io.lakestream.client.Table table) {
      return table.newAppendWriter(WriterOptions.defaults());
    }

    @Override
    void writeBatch(AutoCloseable writer) {
      AppendWriter append = (AppendWriter) writer;
      int rows = 1 + random.nextInt(maxRowsPerFlush);
      List<Long> ids = new ArrayList<>(rows);
      for (int i = 0; i < rows; i++) {
        long id = nextId++;
        sent.add(id);
        ids.add(id);
        append.append(id, index);
      }
      append.flush();
      acknowledged.addAll(ids);
    }

    @Override
    void batchFailed() {
      // Its ids are in sent and not in acknowledged.
    }
  }

  /**
   * Writes a primary-key table {@code (id bigint key, writer int, version bigint)}: batches of
   * upserts and deletes of keys of its own key set, every upsert with a version no other write of
   * the writer has, so a row tells which write it came from. It keeps the model: per key, the state
   * of its last acknowledged write (a version, or {@link #ABSENT}) and the states of writes of
   * failed batches since (in doubt: they may or may not have reached the log).
   */
  static final class UpsertLoad extends LoadWriter {
    /** The state of a deleted or never written key. */
    static final long ABSENT = -1;

    private final int maxWritesPerFlush;
    private final int deletePercent;
    private final List<Long> keys = new ArrayList<>();
    private final Map<Long, Long> acknowledged = new HashMap<>();
    private final Map<Long, Set<Long>> inDoubt = new HashMap<>();
    private final List<long[]> batch = new ArrayList<>();
    private long nextVersion;

    UpsertLoad(
        TablePath path,
        int index,
        ServerLives lives,
        long seed,
        int keyCount,
        int maxWritesPerFlush,
        int deletePercent) {
      super(path, index, lives, seed);
      this.maxWritesPerFlush = maxWritesPerFlush;
      this.deletePercent = deletePercent;
      for (int i = 0; i < keyCount; i++) {
        keys.add((index + 1) * 1_000_000L + i);
      }
    }

    List<Long> keys() {
      return keys;
    }

    /** The states a key may be in: acknowledged ({@link #ABSENT} if never) and in doubt. */
    synchronized Set<Long> allowed(long key) {
      Set<Long> allowed = new HashSet<>(inDoubt.getOrDefault(key, Set.of()));
      allowed.add(acknowledged.getOrDefault(key, ABSENT));
      return allowed;
    }

    synchronized int acknowledgedKeys() {
      return (int) acknowledged.values().stream().filter(version -> version != ABSENT).count();
    }

    @Override
    AutoCloseable open(io.lakestream.client.Table table) {
      return table.newUpsertWriter(WriterOptions.defaults());
    }

    @Override
    void writeBatch(AutoCloseable writer) {
      UpsertWriter upsert = (UpsertWriter) writer;
      int writes = 1 + random.nextInt(maxWritesPerFlush);
      synchronized (this) {
        batch.clear();
      }
      for (int i = 0; i < writes; i++) {
        long key = keys.get(random.nextInt(keys.size()));
        boolean delete = random.nextInt(100) < deletePercent;
        long version = delete ? ABSENT : nextVersion++;
        synchronized (this) {
          batch.add(new long[] {key, version});
        }
        if (delete) {
          upsert.delete(key);
        } else {
          upsert.upsert(key, index, version);
        }
      }
      upsert.flush();
      synchronized (this) {
        for (long[] write : batch) {
          acknowledged.put(write[0], write[1]);
          inDoubt.remove(write[0]);
        }
        batch.clear();
      }
    }

    @Override
    synchronized void batchFailed() {
      for (long[] write : batch) {
        inDoubt.computeIfAbsent(write[0], key -> new HashSet<>()).add(write[1]);
      }
      batch.clear();
    }
  }
}
