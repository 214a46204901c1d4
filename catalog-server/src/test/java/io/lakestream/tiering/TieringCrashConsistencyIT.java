package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
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
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering survives SIGKILL exactly once. The packaged server runs as a separate process with a log
 * table that tiers every second; writers append rows with unique ids and remember which the server
 * acknowledged; the server is killed with SIGKILL while it tiers and restarted on the same data
 * directory, and the writers go on. Half the kills come the moment the server logs that a round is
 * about to commit (its data files are written, the commit is not done): they leave data files no
 * snapshot references. The others come after a random number of acknowledged appends once a round
 * of the run has committed, at any point of a later round; so every run of those commits something
 * and tiering makes progress. At the end the server runs once more until tiering has caught up with
 * every bucket's high watermark, and the Iceberg table, read through the REST catalog, must hold
 * every acknowledged row exactly once (an unacknowledged one at most once, nothing else), every
 * file its snapshots reference must exist, and the orphan sweep must have deleted every data file
 * tiering wrote that no snapshot references.
 *
 * <p>The seed is printed; rerun a failure with {@code -Dlakestream.crash.seed=N}.
 */
class TieringCrashConsistencyIT {
  private static final String HOST = "127.0.0.1";
  private static final TablePath TABLE = TablePath.of("tiered.events");
  private static final TableIdentifier IDENTIFIER = TableIdentifier.of("tiered", "events");
  private static final int ROUNDS = 20;
  private static final int WRITERS = 2;
  private static final int BUCKETS = 3;
  // Small flushes: the writers are paced by the server's acknowledgements, and the log grows by a
  // few thousand rows between rounds instead of a backlog that a round needs seconds to read.
  private static final int MAX_ROWS_PER_FLUSH = 5;
  private static final int MAX_ACKS_AFTER_FIRST_COMMIT = 100;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration LOG_LINE_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration WRITER_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);

  /** What a round logs at debug just before its commit, and after it committed. */
  private static final String COMMITTING = "Committing ";

  private static final String TIERED = "Tiered ";

  /** The round's log line before its commit is at debug: enable it for that one logger. */
  private static final Map<String, String> ENVIRONMENT =
      Map.of(
          "LAKESTREAM_JAVA_OPTS",
          "-Dorg.slf4j.simpleLogger.log." + StreamTableTiering.class.getName() + "=debug");

  @TempDir Path temp;

  private enum KillMoment {
    /** As soon as the k-th round of this run logs that it commits. */
    AT_COMMIT,
    /**
     * After a random number of acknowledged appends once the first round of this run committed:
     * anywhere in a later round (reading, writing, committing) or between rounds.
     */
    AFTER_ACKS
  }

  /** What one kill left on disk: every tiering-named file under the data location. */
  private record Kill(int round, KillMoment moment, Set<String> tieringFiles) {}

  @Test
  void everyAcknowledgedRowIsTieredExactlyOnceAcrossSigkills() throws Exception {
    long seed = Long.getLong("lakestream.crash.seed", System.nanoTime());
    System.out.println("TieringCrashConsistencyIT seed " + seed);
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

    ServerLives lives = new ServerLives();
    List<RowWriter> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      writers.add(new RowWriter(i, lives, random.nextLong()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> running = new ArrayList<>();
    List<Kill> kills = new ArrayList<>();
    ServerProcess server = start(logs, httpPort, flags);
    Path dataDirectory;
    try {
      dataDirectory = createLogTable(server);
      writers.forEach(writer -> running.add(pool.submit(writer)));
      for (int round = 1; round <= ROUNDS; round++) {
        long roundStarted = System.nanoTime();
        Connection connection = Connection.open(HOST, rpcPort, null);
        lives.up(connection);
        KillMoment moment = round % 2 == 0 ? KillMoment.AT_COMMIT : KillMoment.AFTER_ACKS;
        String detail;
        if (moment == KillMoment.AT_COMMIT) {
          int commits = 1 + random.nextInt(2);
          for (int i = 0; i < commits; i++) {
            awaitLine(server, COMMITTING, round, seed);
          }
          detail = "at commit " + commits;
        } else {
          awaitLine(server, TIERED, round, seed);
          int acks = random.nextInt(MAX_ACKS_AFTER_FIRST_COMMIT);
          CountDownLatch acknowledged = new CountDownLatch(acks);
          writers.forEach(writer -> writer.onAck(acknowledged::countDown));
          assertThat(acknowledged.await(60, TimeUnit.SECONDS))
              .as("round %d: %d acknowledgements within 60 s (seed %d)", round, acks, seed)
              .isTrue();
          detail = "after " + acks + " acknowledgements";
        }
        server.kill();
        lives.down();
        connection.close();
        kills.add(new Kill(round, moment, tieringFiles(dataDirectory)));
        long restarting = System.nanoTime();
        server = start(logs, httpPort, flags);
        System.out.printf(
            Locale.ROOT,
            "round %d: killed %s (%d ms), ready again after %d ms; %d rows acknowledged%n",
            round,
            detail,
            TimeUnit.NANOSECONDS.toMillis(restarting - roundStarted),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarting),
            writers.stream().mapToInt(writer -> writer.acknowledged().size()).sum());
      }
      lives.stop();
      awaitAll(running, seed);

      Set<Long> acknowledged = new HashSet<>();
      Set<Long> sent = new HashSet<>();
      for (RowWriter writer : writers) {
        acknowledged.addAll(writer.acknowledged());
        sent.addAll(writer.sent());
      }
      try (Connection connection = Connection.open(HOST, rpcPort, null);
          RESTCatalog catalog = catalog(server)) {
        Map<String, Map<Integer, Long>> highWatermarks = highWatermarks(connection);
        Table table = awaitCaughtUp(catalog, highWatermarks, seed);

        Map<Long, Integer> counts = new HashMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record record : records) {
            counts.merge((Long) record.getField("id"), 1, Integer::sum);
          }
        }
        List<String> violations = new ArrayList<>();
        counts.forEach(
            (id, count) -> {
              if (count > 1) {
                violations.add("row " + id + " is in the table " + count + " times");
              }
              if (!sent.contains(id)) {
                violations.add("row " + id + " was never written");
              }
            });
        for (long id : acknowledged) {
          if (!counts.containsKey(id)) {
            violations.add("acknowledged row " + id + " is missing");
          }
        }
        long rowsInLog =
            highWatermarks.values().stream()
                .flatMap(buckets -> buckets.values().stream())
                .mapToLong(Long::longValue)
                .sum();
        long rowsInTable = counts.values().stream().mapToLong(Integer::longValue).sum();
        if (rowsInTable != rowsInLog) {
          violations.add("the table holds " + rowsInTable + " rows, the log " + rowsInLog);
        }
        if (!violations.isEmpty()) {
          throw new AssertionError(
              violations.size()
                  + " violations (seed "
                  + seed
                  + "):\n  "
                  + String.join("\n  ", violations.subList(0, Math.min(violations.size(), 40))));
        }

        Set<String> referenced = referencedFiles(table);
        assertThat(referenced).as("files the snapshots reference").isNotEmpty();
        for (String location : referenced) {
          assertThat(LocalFileIO.toPath(location)).as("a referenced data file").exists();
        }
        // Sweeps run every second: every tiering file no snapshot references goes.
        Set<String> unreferenced = awaitNoOrphans(dataDirectory, referenced, seed);
        assertThat(unreferenced).as("unreferenced tiering files (seed %d)", seed).isEmpty();

        int orphaningKills = 0;
        int orphanedFiles = 0;
        int orphanedAtCommit = 0;
        Set<String> seenAtEarlierKills = new HashSet<>();
        for (Kill kill : kills) {
          Set<String> orphans = new HashSet<>(kill.tieringFiles());
          orphans.removeAll(referenced);
          orphans.removeAll(seenAtEarlierKills);
          seenAtEarlierKills.addAll(kill.tieringFiles());
          long complete = orphans.stream().filter(file -> !file.endsWith(".tmp")).count();
          orphanedFiles += orphans.size();
          if (complete > 0) {
            orphaningKills++;
            if (kill.moment() == KillMoment.AT_COMMIT) {
              orphanedAtCommit++;
            }
          }
        }
        System.out.printf(
            Locale.ROOT,
            "TieringCrashConsistencyIT seed %d: %d SIGKILLs while tiering, %d writers x %d"
                + " buckets; %d rows acknowledged, %d more sent unacknowledged, %d in the table in"
                + " %d snapshots; %d kills between writing data files and committing them (%d at"
                + " the commit log line), %d orphaned files swept; %d s%n",
            seed,
            ROUNDS,
            WRITERS,
            BUCKETS,
            acknowledged.size(),
            sent.size() - acknowledged.size(),
            rowsInTable,
            size(table.snapshots()),
            orphaningKills,
            orphanedAtCommit,
            orphanedFiles,
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        for (RowWriter writer : writers) {
          System.out.println("writer failures: " + writer.failures());
        }
        assertThat(acknowledged.size()).as("acknowledged rows (seed %d)", seed).isGreaterThan(0);
        assertThat(orphaningKills)
            .as("kills between writing data files and committing (seed %d)", seed)
            .isPositive();
      }
    } finally {
      lives.stop();
      server.close();
      pool.shutdownNow();
    }
  }

  private static ServerProcess start(Path logs, int httpPort, List<String> flags)
      throws IOException, InterruptedException {
    return ServerProcess.launchReady(logs, httpPort, flags, ENVIRONMENT, START_TIMEOUT);
  }

  private static void awaitLine(ServerProcess server, String text, int round, long seed)
      throws IOException {
    String line = server.awaitLine(candidate -> candidate.contains(text), LOG_LINE_TIMEOUT);
    if (line == null) {
      throw new AssertionError(
          "round "
              + round
              + ": no '"
              + text
              + "' logged within "
              + LOG_LINE_TIMEOUT
              + " (seed "
              + seed
              + "):\n"
              + server.stdout());
    }
  }

  private static RESTCatalog catalog(ServerProcess server) {
    RESTCatalog catalog = new RESTCatalog();
    // The Iceberg client probes the properties with containsKey(null): mutable maps only.
    catalog.initialize(
        "lakestream",
        new HashMap<>(Map.of("uri", server.baseUri(), "io-impl", LocalFileIO.class.getName())));
    return catalog;
  }

  /** Creates the log table, tiering every second; returns its local data directory. */
  private static Path createLogTable(ServerProcess server) throws IOException {
    try (RESTCatalog catalog = catalog(server)) {
      catalog.createNamespace(Namespace.of("tiered"), new HashMap<>());
      Table table =
          catalog.createTable(
              IDENTIFIER,
              new Schema(
                  Types.NestedField.required(1, "id", Types.LongType.get()),
                  Types.NestedField.optional(2, "writer", Types.IntegerType.get())),
              PartitionSpec.unpartitioned(),
              new HashMap<>(
                  Map.of(
                      "lakestream.kind",
                      "log",
                      "lakestream.buckets",
                      Integer.toString(BUCKETS),
                      TieringConfig.INTERVAL_PROPERTY,
                      "1s")));
      return LocalFileIO.toPath(OrphanFiles.dataLocation(table));
    }
  }

  private static Map<String, Map<Integer, Long>> highWatermarks(Connection connection) {
    io.lakestream.client.Table stream = connection.table(TABLE);
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        long offset = stream.latestOffset(partition, bucket);
        if (offset > 0) {
          offsets.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
        }
      }
    }
    return offsets;
  }

  /** Polls until the current snapshot's offsets are the high watermarks; returns the table. */
  private static Table awaitCaughtUp(
      RESTCatalog catalog, Map<String, Map<Integer, Long>> highWatermarks, long seed) {
    long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
    while (true) {
      Table table = catalog.loadTable(IDENTIFIER);
      Snapshot current = table.currentSnapshot();
      Map<String, Map<Integer, Long>> tiered =
          current == null
              ? Map.of()
              : TieredOffsets.parse(current.summary().get(TieredOffsets.SUMMARY_KEY)).partitions();
      if (tiered.equals(highWatermarks)) {
        return table;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "Tiering did not catch up within "
                + CATCH_UP_TIMEOUT
                + " (seed "
                + seed
                + "): tiered "
                + tiered
                + ", high watermarks "
                + highWatermarks);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  /** Every data and delete file of every snapshot of the table. */
  private static Set<String> referencedFiles(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        try (CloseableIterable<? extends ContentFile<?>> entries =
            manifest.content() == org.apache.iceberg.ManifestContent.DATA
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

  /** Every file under the directory with a name tiering gives its files, as local paths. */
  private static Set<String> tieringFiles(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      Set<String> files = new HashSet<>();
      paths
          .filter(Files::isRegularFile)
          .filter(path -> OrphanFiles.isTieringFile(path.toString()))
          .forEach(path -> files.add(path.toString()));
      return files;
    } catch (NoSuchFileException e) {
      return Set.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Set<String> awaitNoOrphans(Path directory, Set<String> referenced, long seed) {
    long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
    while (true) {
      Set<String> unreferenced = new HashSet<>(tieringFiles(directory));
      unreferenced.removeAll(referenced);
      if (unreferenced.isEmpty() || System.nanoTime() > deadline) {
        return unreferenced;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  private static int size(Iterable<?> items) {
    int size = 0;
    for (Object ignored : items) {
      size++;
    }
    return size;
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
  private static final class ServerLives {
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
   * Appends rows with ids unique across writers, a random number per flush, and records which ids
   * it sent and which the server acknowledged (a returned flush). When a flush fails with the
   * killed server its rows are in doubt: the writer drops its append writer and waits for the next
   * life of the server.
   */
  private static final class RowWriter implements java.util.concurrent.Callable<Void> {
    private final int index;
    private final ServerLives lives;
    private final Random random;
    private final Set<Long> sent = ConcurrentHashMap.newKeySet();
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Runnable> ackListener = new AtomicReference<>(() -> {});
    private long nextId;
    private int failures;
    private RuntimeException lastFailure;

    RowWriter(int index, ServerLives lives, long seed) {
      this.index = index;
      this.lives = lives;
      this.random = new Random(seed);
      this.nextId = (index + 1) * 1_000_000_000_000L;
    }

    void onAck(Runnable listener) {
      ackListener.set(listener);
    }

    Set<Long> sent() {
      return sent;
    }

    Set<Long> acknowledged() {
      return acknowledged;
    }

    /** How often a life ended in a failed append or flush, and the last failure. */
    String failures() {
      return failures + (lastFailure == null ? "" : " (last: " + lastFailure + ")");
    }

    @Override
    public Void call() throws InterruptedException {
      int generation = 0;
      while (true) {
        Map.Entry<Integer, Connection> life = lives.awaitNewerThan(generation);
        if (life == null) {
          return null;
        }
        generation = life.getKey();
        try (AppendWriter writer =
            life.getValue().table(TABLE).newAppendWriter(WriterOptions.defaults())) {
          while (!lives.stopped()) {
            int rows = 1 + random.nextInt(MAX_ROWS_PER_FLUSH);
            List<Long> ids = new ArrayList<>(rows);
            for (int i = 0; i < rows; i++) {
              long id = nextId++;
              sent.add(id);
              ids.add(id);
              writer.append(id, index);
            }
            writer.flush();
            acknowledged.addAll(ids);
            ackListener.get().run();
          }
        } catch (RuntimeException e) {
          // The server died under this life: the rows of the failed flush are in doubt.
          failures++;
          lastFailure = e;
        }
      }
    }
  }
}
