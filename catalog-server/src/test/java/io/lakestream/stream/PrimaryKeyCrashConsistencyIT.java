package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.stream.KeyRangeWriter.Operation;
import io.lakestream.stream.KeyRangeWriter.Outcome;
import io.lakestream.testing.CrashRounds;
import io.lakestream.testing.PackagedServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash consistency of primary-key tables. The packaged server runs as a separate process; several
 * {@link KeyRangeWriter}s, each the only writer of its own range of keys, upsert and delete
 * concurrently through their {@link io.lakestream.client.UpsertWriter}s and record which operations
 * were acknowledged; after a random number of operations the server is killed with SIGKILL and
 * restarted on the same data directory and ports, while the writers' flushes wait and resend.
 *
 * <p>After every restart, and once more after a last restart with nothing in flight, the test reads
 * the changelog of every bucket from offset 0 and checks that
 *
 * <ul>
 *   <li>its offsets are contiguous up to the high watermark, with nothing before offset 0 dropped;
 *   <li>it folds cleanly: each +I is for an absent key, each -U and -D carries the current row,
 *       each +U follows the -U of its key;
 *   <li>per key, it is exactly what applying the writer's operations in order produces, where every
 *       acknowledged operation is applied once and an in-doubt one (its writer gave up) is applied
 *       once or not at all: no acknowledged write lost, none applied twice, nothing from nowhere;
 *   <li>a lookup of every key returns the row the fold ends with.
 * </ul>
 *
 * <p>The seed is printed; rerun a failure with {@code -Dlakestream.crash.seed=N}.
 */
class PrimaryKeyCrashConsistencyIT {
  private static final String HOST = "127.0.0.1";
  private static final TablePath TABLE = TablePath.of("crash.accounts");
  private static final int ROUNDS = 20;
  private static final int WRITERS = 4;
  private static final int KEYS_PER_WRITER = 40;
  private static final int BUCKETS = 3;
  private static final int MIN_OPERATIONS_BEFORE_KILL = 5;
  private static final int OPERATIONS_BEFORE_KILL_SPREAD = 150;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration WRITER_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path temp;

  /** A row of the table, {@code (id, v, writer, seq)}. */
  private record Row(long id, long value, int writer, long sequence) {
    static Row of(Object[] values) {
      assertThat(values).hasSize(4);
      return new Row(
          ((Number) values[0]).longValue(),
          ((Number) values[1]).longValue(),
          ((Number) values[2]).intValue(),
          ((Number) values[3]).longValue());
    }

    static Row of(Operation upsert) {
      return new Row(upsert.key(), upsert.value(), upsert.writer(), upsert.sequence());
    }
  }

  private record Change(int bucket, long offset, ChangeType type, Row row) {
    @Override
    public String toString() {
      return type.name() + " " + row + " at bucket " + bucket + " offset " + offset;
    }
  }

  /** What a verification saw: the state, and how the in-doubt operations turned out. */
  private record Verified(
      Map<Long, Row> state, long changes, int inDoubtApplied, int inDoubtLost) {}

  @Test
  void stateEqualsTheFoldOfTheAcknowledgedChangesAfterSigkill() throws Exception {
    long seed = Long.getLong("lakestream.crash.seed", System.nanoTime());
    System.out.println("PrimaryKeyCrashConsistencyIT seed " + seed);
    Random random = new Random(seed);
    long started = System.nanoTime();

    List<KeyRangeWriter> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      writers.add(
          new KeyRangeWriter(i, (long) i * KEYS_PER_WRITER, KEYS_PER_WRITER, random.nextLong()));
    }
    AtomicInteger kills = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    PackagedServer server = PackagedServer.start(temp, START_TIMEOUT);
    int rpcPort = server.rpcPort();
    try (Connection connection = Connection.open(HOST, rpcPort, null)) {
      createTable(server);
      Table table = connection.table(TABLE);
      for (int round = 1; round <= ROUNDS; round++) {
        int operationsBeforeKill =
            MIN_OPERATIONS_BEFORE_KILL + random.nextInt(OPERATIONS_BEFORE_KILL_SPREAD);
        CountDownLatch written = new CountDownLatch(operationsBeforeKill);
        AtomicBoolean stop = new AtomicBoolean();
        long writing = System.nanoTime();
        List<Future<?>> running = new ArrayList<>();
        for (KeyRangeWriter writer : writers) {
          running.add(
              pool.submit(
                  () -> {
                    writer.writeUntilStopped(table, stop, written, kills);
                    return null;
                  }));
        }
        if (!written.await(WRITER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          stop.set(true);
          CrashRounds.awaitWriters(running, WRITER_TIMEOUT, "restart", round, seed);
          throw new AssertionError(
              "Writers did not write " + operationsBeforeKill + " operations in round " + round);
        }
        long writeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - writing);
        kills.incrementAndGet();
        server.kill();
        long restarting = System.nanoTime();
        server.restart();
        long restartMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarting);
        stop.set(true);
        long stopping = System.nanoTime();
        CrashRounds.awaitWriters(running, WRITER_TIMEOUT, "restart", round, seed);
        long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
        long verifying = System.nanoTime();
        Verified verified = verify(table, writers, seed, "after restart " + round);
        long verifyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - verifying);
        System.out.printf(
            Locale.ROOT,
            "round %d: killed after %d operations (%d ms), ready again after %d ms, writers done %d ms"
                + " later, verified in %d ms; %d changes, %d keys present, %d in-doubt"
                + " operations applied and %d not%n",
            round,
            operationsBeforeKill,
            writeMillis,
            restartMillis,
            stopMillis,
            verifyMillis,
            verified.changes(),
            verified.state().size(),
            verified.inDoubtApplied(),
            verified.inDoubtLost());
      }
      Verified beforeLastKill = verify(table, writers, seed, "after the last round");
      for (KeyRangeWriter writer : writers) {
        writer.close();
      }

      // One more crash with nothing in flight: the state is rebuilt from the log and RocksDB and
      // must come back unchanged.
      server.kill();
      server.restart();
      Verified last = verify(table, writers, seed, "after the final restart");
      assertThat(last.state())
          .as("state after a restart with nothing in flight (seed %d)", seed)
          .isEqualTo(beforeLastKill.state());
      assertThat(last.changes()).isEqualTo(beforeLastKill.changes());

      long acknowledged = 0;
      long inDoubt = 0;
      int flushes = 0;
      int flushesAcrossKills = 0;
      List<String> failures = new ArrayList<>();
      for (KeyRangeWriter writer : writers) {
        for (Outcome outcome : writer.outcomes()) {
          acknowledged += outcome == Outcome.ACKNOWLEDGED ? 1 : 0;
          inDoubt += outcome == Outcome.IN_DOUBT ? 1 : 0;
        }
        flushes += writer.flushes();
        flushesAcrossKills += writer.flushesAcrossKills();
        writer
            .failures()
            .forEach(failure -> failures.add("writer " + writer.index() + ": " + failure));
      }
      System.out.printf(
          Locale.ROOT,
          "PrimaryKeyCrashConsistencyIT seed %d: %d rounds of SIGKILL while upserting, %d writers"
              + " x %d keys, %d buckets; %d operations acknowledged in %d flushes (%d of them"
              + " across a kill); %d operations left in doubt by %d writers that gave up; %d"
              + " changes, %d keys present; %d s%n",
          seed,
          ROUNDS,
          WRITERS,
          KEYS_PER_WRITER,
          BUCKETS,
          acknowledged,
          flushes,
          flushesAcrossKills,
          inDoubt,
          failures.size(),
          last.changes(),
          last.state().size(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      failures.forEach(failure -> System.out.println("  gave up: " + failure));

      // A writer may only give up when the server stayed unreachable through its retries; any
      // refusal (say an out-of-order sequence after a restart) is a bug.
      assertThat(failures)
          .as("writers that gave up for a reason other than the network (seed %d)", seed)
          .allMatch(failure -> failure.contains("NETWORK_ERROR"));
      assertThat(acknowledged).as("acknowledged operations (seed %d)", seed).isGreaterThan(ROUNDS);
      assertThat(flushesAcrossKills)
          .as("kills must catch flushes in flight (seed %d)", seed)
          .isPositive();
    } finally {
      server.close();
      pool.shutdownNow();
    }
  }

  private static void createTable(PackagedServer server) throws IOException {
    try (RESTCatalog catalog = server.openCatalog()) {
      catalog.createNamespace(Namespace.of("crash"), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of("crash", "accounts"),
          new Schema(
              List.of(
                  Types.NestedField.required(1, "id", Types.LongType.get()),
                  Types.NestedField.required(2, "v", Types.LongType.get()),
                  Types.NestedField.required(3, "writer", Types.IntegerType.get()),
                  Types.NestedField.required(4, "seq", Types.LongType.get())),
              Set.of(1)),
          PartitionSpec.unpartitioned(),
          new HashMap<>(
              Map.of(
                  "lakestream.kind",
                  "primary-key",
                  "lakestream.buckets",
                  Integer.toString(BUCKETS))));
    }
  }

  /** Reads the whole changelog and every key, and checks them against what the writers did. */
  private static Verified verify(Table table, List<KeyRangeWriter> writers, long seed, String when)
      throws Exception {
    List<String> violations = new ArrayList<>();
    Map<Long, List<Change>> changesByKey = new TreeMap<>();
    long changes = readChangelog(table, changesByKey, violations);
    Map<Long, Row> state = fold(changesByKey, violations);

    int inDoubtApplied = 0;
    int inDoubtLost = 0;
    for (KeyRangeWriter writer : writers) {
      List<Operation> operations = writer.operations();
      List<Outcome> outcomes = writer.outcomes();
      Map<Long, List<Integer>> byKey = new HashMap<>();
      for (int i = 0; i < operations.size(); i++) {
        byKey.computeIfAbsent(operations.get(i).key(), key -> new ArrayList<>()).add(i);
      }
      for (long key = writer.firstKey(); key < writer.firstKey() + writer.keys(); key++) {
        int[] inDoubt =
            match(
                key,
                byKey.getOrDefault(key, List.of()),
                operations,
                outcomes,
                changesByKey.getOrDefault(key, List.of()),
                violations);
        inDoubtApplied += inDoubt[0];
        inDoubtLost += inDoubt[1];
      }
    }
    for (Long key : changesByKey.keySet()) {
      if (key < 0 || key >= (long) writers.size() * KEYS_PER_WRITER) {
        violations.add("key " + key + " was never written: " + changesByKey.get(key));
      }
    }

    Lookuper lookuper = table.newLookuper();
    Map<Long, CompletableFuture<Object[]>> lookups = new TreeMap<>();
    for (long key = 0; key < (long) writers.size() * KEYS_PER_WRITER; key++) {
      lookups.put(key, lookuper.lookup(key));
    }
    for (Map.Entry<Long, CompletableFuture<Object[]>> lookup : lookups.entrySet()) {
      Object[] values = lookup.getValue().get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      Row found = values == null ? null : Row.of(values);
      Row folded = state.get(lookup.getKey());
      if (found == null ? folded != null : !found.equals(folded)) {
        violations.add(
            "key "
                + lookup.getKey()
                + ": lookup returns "
                + found
                + ", changelog folds to "
                + folded);
      }
    }

    CrashRounds.assertNoViolations(violations, when, seed);
    return new Verified(state, changes, inDoubtApplied, inDoubtLost);
  }

  /**
   * Reads every bucket from offset 0 up to its high watermark, checking that the offsets are
   * contiguous, and collects the changes per key in log order.
   *
   * @return the number of changes
   */
  private static long readChangelog(
      Table table, Map<Long, List<Change>> changesByKey, List<String> violations) {
    long[] end = new long[BUCKETS];
    long[] next = new long[BUCKETS];
    long changes = 0;
    try (LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < BUCKETS; bucket++) {
        long start = table.earliestOffset(bucket);
        if (start != 0) {
          violations.add("bucket " + bucket + ": log starts at " + start + ", not 0");
        }
        end[bucket] = table.latestOffset(bucket);
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (!reached(next, end)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "Changelog read up to "
                  + Arrays.toString(next)
                  + " of "
                  + Arrays.toString(end)
                  + " within "
                  + READ_TIMEOUT);
        }
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          try (batch) {
            int bucket = batch.bucket();
            if (batch.baseOffset() != next[bucket]) {
              violations.add(
                  "bucket "
                      + bucket
                      + ": batch at offset "
                      + batch.baseOffset()
                      + " where "
                      + next[bucket]
                      + " is next");
            }
            List<Object[]> rows = batch.rows();
            for (int i = 0; i < rows.size(); i++) {
              Row row = Row.of(rows.get(i));
              changesByKey
                  .computeIfAbsent(row.id(), key -> new ArrayList<>())
                  .add(new Change(bucket, batch.baseOffset() + i, batch.changeType(i), row));
            }
            changes += rows.size();
            next[bucket] = batch.baseOffset() + rows.size();
          }
        }
      }
    }
    for (int bucket = 0; bucket < BUCKETS; bucket++) {
      if (next[bucket] != end[bucket]) {
        violations.add(
            "bucket "
                + bucket
                + ": read up to "
                + next[bucket]
                + ", high watermark "
                + end[bucket]);
      }
    }
    return changes;
  }

  private static boolean reached(long[] next, long[] end) {
    for (int bucket = 0; bucket < next.length; bucket++) {
      if (next[bucket] < end[bucket]) {
        return false;
      }
    }
    return true;
  }

  /** Folds each key's changes into its final row, checking that each fits the row before it. */
  private static Map<Long, Row> fold(
      Map<Long, List<Change>> changesByKey, List<String> violations) {
    Map<Long, Row> state = new TreeMap<>();
    changesByKey.forEach(
        (key, changes) -> {
          Row current = null;
          Change previous = null;
          for (Change change : changes) {
            String problem =
                switch (change.type()) {
                  case INSERT -> current == null ? null : "+I of a present key, row " + current;
                  case UPDATE_BEFORE ->
                      change.row().equals(current) ? null : "-U does not match row " + current;
                  case UPDATE_AFTER ->
                      previous != null && previous.type() == ChangeType.UPDATE_BEFORE
                          ? null
                          : "+U without a -U before it";
                  case DELETE ->
                      change.row().equals(current) ? null : "-D does not match row " + current;
                };
            if (problem != null) {
              violations.add("key " + key + ": " + change + ": " + problem);
            }
            current =
                switch (change.type()) {
                  case INSERT, UPDATE_AFTER -> change.row();
                  case UPDATE_BEFORE -> current;
                  case DELETE -> null;
                };
            previous = change;
          }
          if (previous != null && previous.type() == ChangeType.UPDATE_BEFORE) {
            violations.add("key " + key + ": changelog ends with " + previous + " and no +U");
          }
          if (current != null) {
            state.put(key, current);
          }
        });
    return state;
  }

  /**
   * Replays one key's operations, in the order its writer issued them, against its changes: each
   * acknowledged operation must show in the changes as what it does to the row at that point, and
   * an in-doubt one may show or not; every change must come from an operation.
   *
   * @return how many in-doubt operations that change the row were applied, and how many were not
   */
  private static int[] match(
      long key,
      List<Integer> indexes,
      List<Operation> operations,
      List<Outcome> outcomes,
      List<Change> changes,
      List<String> violations) {
    int[] inDoubt = new int[2];
    int next = 0;
    Row current = null;
    for (int index : indexes) {
      Operation operation = operations.get(index);
      Outcome outcome = outcomes.get(index);
      if (outcome == Outcome.PENDING) {
        violations.add("key " + key + ": " + operation + " is still pending while verifying");
        continue;
      }
      List<Change> expected = new ArrayList<>();
      if (operation.delete()) {
        if (current != null) {
          expected.add(new Change(0, 0, ChangeType.DELETE, current));
        }
      } else if (current == null) {
        expected.add(new Change(0, 0, ChangeType.INSERT, Row.of(operation)));
      } else {
        expected.add(new Change(0, 0, ChangeType.UPDATE_BEFORE, current));
        expected.add(new Change(0, 0, ChangeType.UPDATE_AFTER, Row.of(operation)));
      }
      if (expected.isEmpty()) {
        // A delete of an absent key changes nothing, applied or not.
        continue;
      }
      boolean applied = next + expected.size() <= changes.size();
      for (int i = 0; applied && i < expected.size(); i++) {
        Change change = changes.get(next + i);
        applied =
            change.type() == expected.get(i).type() && change.row().equals(expected.get(i).row());
      }
      if (applied) {
        next += expected.size();
        current = operation.delete() ? null : Row.of(operation);
      } else if (outcome == Outcome.ACKNOWLEDGED) {
        violations.add(
            "key "
                + key
                + ": acknowledged "
                + operation
                + " is missing; next change is "
                + (next < changes.size() ? changes.get(next) : "none"));
        return inDoubt;
      }
      if (outcome == Outcome.IN_DOUBT) {
        inDoubt[applied ? 0 : 1]++;
      }
    }
    if (next < changes.size()) {
      violations.add(
          "key "
              + key
              + ": "
              + (changes.size() - next)
              + " changes no operation explains (applied twice, or out of order), from "
              + changes.get(next));
    }
    return inDoubt;
  }
}
