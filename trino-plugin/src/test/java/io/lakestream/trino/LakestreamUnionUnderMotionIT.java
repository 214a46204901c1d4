package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.RateLimiter;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Union reads while the table moves: writers append or upsert through the stream client and the
 * server's tiering service commits into the lake every second, and each Trino query through the
 * {@code lakestream} catalog sees every acknowledged row exactly once. The expectations are the
 * test's own bookkeeping of what the writers had acknowledged, never read from the server.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamUnionUnderMotionIT {
  private static final String NAMESPACE = "motion";
  private static final int LOG_WRITERS = 3;
  private static final int KEYED_WRITERS = 2;
  // Each writer's row b0 values start at writer * WRITER_RANGE, so rows are distinct.
  private static final long WRITER_RANGE = 1_000_000_000L;
  private static final double ROWS_PER_SECOND_PER_WRITER = 2_000;
  private static final Duration MIN_MOTION = Duration.ofSeconds(12);
  private static final Duration MAX_MOTION = Duration.ofSeconds(240);
  private static final int MIN_NEW_SNAPSHOTS = 4;
  // Queries (log table) or quiescent checks (primary-key table) at the least.
  private static final int MIN_CHECKS = 8;
  private static final int KEYS_PER_WRITER = 500;

  private final SharedTrino shared;
  private Connection connection;

  LakestreamUnionUnderMotionIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    connection = Connection.open("127.0.0.1", shared.rpcPort(), null);
    try {
      connection.admin().createNamespace(null, List.of(NAMESPACE));
    } catch (RpcException e) {
      if (e.error() != ErrorCode.ALREADY_EXISTS) {
        throw e;
      }
    }
  }

  @AfterAll
  void close() {
    if (connection != null) {
      connection.close();
    }
  }

  /** What a log table's writers have appended: a row count and the sum of the rows' b0. */
  private record Totals(long count, long sum) {
    Totals plus(long rows, long sumOfRows) {
      return new Totals(count + rows, sum + sumOfRows);
    }
  }

  /** Both sides of the writers' bookkeeping, updated together under one lock. */
  private static final class Ledger {
    private Totals handedOff = new Totals(0, 0); // given to a writer, maybe not acknowledged
    private Totals acknowledged = new Totals(0, 0);

    synchronized void handOff(long rows, long sum) {
      handedOff = handedOff.plus(rows, sum);
    }

    synchronized void acknowledge(long rows, long sum) {
      acknowledged = acknowledged.plus(rows, sum);
    }

    synchronized Totals acknowledged() {
      return acknowledged;
    }

    synchronized Totals handedOff() {
      return handedOff;
    }
  }

  /**
   * Proves that while writers append and tiering commits every second, every {@code SELECT
   * count(*), sum(b0)} lies between the totals acknowledged when it started and the totals handed
   * to the writers by the time it ended (every one of which is acknowledged later): an acknowledged
   * row is never missing, and rows tiered while the query ran are not read twice (from the lake and
   * again from the log), which would push the count past what was ever handed off. Every third
   * query also counts distinct b0, which must equal the count, catching a double read of any size.
   */
  @Test
  void logTableCountsEachAcknowledgedRowOnceWhileTieringCommits() throws Exception {
    TablePath path = TablePath.of(NAMESPACE + ".moving_log");
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "b0", Types.LongType.get()),
            Types.NestedField.optional(2, "writer", Types.IntegerType.get()),
            Types.NestedField.optional(3, "payload", Types.StringType.get()));
    connection
        .admin()
        .createTable(
            path,
            TableDescriptor.logTable(schema, 3)
                .withBucketKey("b0")
                .withProperty("lakestream.tiering.interval", "1s"));
    io.lakestream.client.Table table = connection.table(path);
    String qualified = LAKESTREAM_CATALOG + "." + NAMESPACE + ".moving_log";

    Ledger ledger = new Ledger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService writers = Executors.newFixedThreadPool(LOG_WRITERS);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < LOG_WRITERS; w++) {
      int writer = w;
      running.add(
          writers.submit(
              () -> {
                SplittableRandom random = new SplittableRandom(1_000 + writer);
                RateLimiter pace = RateLimiter.create(ROWS_PER_SECOND_PER_WRITER);
                long next = writer * WRITER_RANGE;
                try (AppendWriter append =
                    table.newAppendWriter(WriterOptions.defaults().withBatchRows(256))) {
                  while (!stop.get()) {
                    int rows = 50 + random.nextInt(300);
                    pace.acquire(rows);
                    long sum = 0;
                    for (int i = 0; i < rows; i++) {
                      sum += next + i;
                    }
                    ledger.handOff(rows, sum);
                    for (int i = 0; i < rows; i++) {
                      append.append(next + i, writer, "row " + (next + i));
                    }
                    append.flush();
                    ledger.acknowledge(rows, sum);
                    next += rows;
                  }
                }
                return null;
              }));
    }

    long snapshotsBefore = snapshotCount("moving_log");
    long started = System.nanoTime();
    int queries = 0;
    long snapshotsNow = snapshotsBefore;
    try {
      while (true) {
        long elapsed = System.nanoTime() - started;
        if (elapsed > MIN_MOTION.toNanos()
            && snapshotsNow - snapshotsBefore >= MIN_NEW_SNAPSHOTS
            && queries >= MIN_CHECKS) {
          break;
        }
        assertThat(elapsed)
            .as(
                "motion lasted %s with %s queries and %s new lake snapshots of %s; tiering"
                    + " should commit every second",
                MAX_MOTION, queries, snapshotsNow - snapshotsBefore, qualified)
            .isLessThan(MAX_MOTION.toNanos());
        for (Future<?> writer : running) {
          if (writer.isDone()) {
            writer.get(); // a writer failed: report why
          }
        }

        Totals low = ledger.acknowledged();
        boolean distinct = queries % 3 == 2;
        List<Object> row =
            shared
                .rows(
                    "SELECT count(*), sum(b0)"
                        + (distinct ? ", count(DISTINCT b0)" : "")
                        + " FROM "
                        + qualified)
                .getFirst();
        Totals high = ledger.handedOff();
        queries++;
        long count = (Long) row.get(0);
        long sum = row.get(1) == null ? 0 : (Long) row.get(1);
        String what =
            "query "
                + queries
                + ": count "
                + count
                + ", sum "
                + sum
                + "; acknowledged at its start "
                + low
                + ", handed off at its end "
                + high;
        assertThat(count).as(what).isBetween(low.count(), high.count());
        assertThat(sum).as(what).isBetween(low.sum(), high.sum());
        if (distinct) {
          assertThat((Long) row.get(2)).as("distinct b0 of " + what).isEqualTo(count);
        }
        snapshotsNow = snapshotCount("moving_log");
      }
    } finally {
      stop.set(true);
      writers.shutdown();
    }
    for (Future<?> writer : running) {
      writer.get(60, TimeUnit.SECONDS);
    }
    assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    System.out.printf(
        "%s: %d queries, %d new lake snapshots, %s acknowledged%n",
        qualified, queries, snapshotsNow - snapshotsBefore, ledger.acknowledged());

    // Quiescent: every row handed off is acknowledged, and the read is exact.
    Totals all = ledger.acknowledged();
    assertThat(all).isEqualTo(ledger.handedOff());
    List<Object> row =
        shared.rows("SELECT count(*), sum(b0), count(DISTINCT b0) FROM " + qualified).getFirst();
    assertThat(row).containsExactly(all.count(), all.sum(), all.count());
  }

  /**
   * Proves that a primary-key table reads as the writers' model state at every quiescent point
   * (writers paused, every change acknowledged): same count, same sum of {@code v}, same key set,
   * while tiering keeps committing changes between the checks, so each check reads some changes
   * from the lake and the newest ones from the log. Each writer owns its keys and applies seeded
   * random upserts and deletes to them.
   */
  @Test
  void primaryKeyTableEqualsModelStateAtQuiescentPoints() throws Exception {
    TablePath path = TablePath.of(NAMESPACE + ".moving_keyed");
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "v", Types.LongType.get()),
                Types.NestedField.optional(3, "tag", Types.StringType.get())),
            java.util.Set.of(1));
    connection
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
    io.lakestream.client.Table table = connection.table(path);
    String qualified = LAKESTREAM_CATALOG + "." + NAMESPACE + ".moving_keyed";

    // Each writer's model: key -> v of its present row.
    List<TreeMap<Long, Long>> models = new ArrayList<>();
    List<SplittableRandom> randoms = new ArrayList<>();
    for (int w = 0; w < KEYED_WRITERS; w++) {
      models.add(new TreeMap<>());
      randoms.add(new SplittableRandom(7_000 + w));
    }
    ExecutorService writers = Executors.newFixedThreadPool(KEYED_WRITERS);
    long snapshotsBefore = snapshotCount("moving_keyed");
    long snapshotsNow = snapshotsBefore;
    long started = System.nanoTime();
    int rounds = 0;
    try {
      while (System.nanoTime() - started < MIN_MOTION.toNanos()
          || snapshotsNow - snapshotsBefore < MIN_NEW_SNAPSHOTS
          || rounds < MIN_CHECKS) {
        assertThat(System.nanoTime() - started)
            .as(
                "motion lasted %s with %s rounds and %s new lake snapshots",
                MAX_MOTION, rounds, snapshotsNow - snapshotsBefore)
            .isLessThan(MAX_MOTION.toNanos());
        int round = rounds;
        List<Future<?>> changes = new ArrayList<>();
        for (int w = 0; w < KEYED_WRITERS; w++) {
          TreeMap<Long, Long> model = models.get(w);
          SplittableRandom random = randoms.get(w);
          long firstKey = w * WRITER_RANGE;
          changes.add(
              writers.submit(
                  () -> {
                    try (UpsertWriter upsert =
                        table.newUpsertWriter(WriterOptions.defaults().withBatchRows(128))) {
                      int operations = 200 + random.nextInt(800);
                      for (int i = 0; i < operations; i++) {
                        long key = firstKey + random.nextInt(KEYS_PER_WRITER);
                        if (random.nextInt(4) == 0) {
                          upsert.delete(key);
                          model.remove(key);
                        } else {
                          long v = random.nextLong(1_000_000);
                          upsert.upsert(key, v, "round " + round);
                          model.put(key, v);
                        }
                      }
                      upsert.flush();
                    }
                    return null;
                  }));
        }
        for (Future<?> change : changes) {
          change.get(120, TimeUnit.SECONDS);
        }
        rounds++;

        // Quiescent: every change is acknowledged and nothing is being written.
        TreeMap<Long, Long> state = new TreeMap<>();
        models.forEach(state::putAll);
        long sum = state.values().stream().mapToLong(Long::longValue).sum();
        List<Object> aggregate =
            shared.rows("SELECT count(*), sum(v) FROM " + qualified).getFirst();
        assertThat(aggregate)
            .as("round %s: count and sum(v) of %s", rounds, qualified)
            .containsExactly((long) state.size(), state.isEmpty() ? null : sum);
        List<Long> keys =
            shared.rows("SELECT id FROM " + qualified + " ORDER BY id").stream()
                .map(row -> (Long) row.getFirst())
                .toList();
        assertThat(keys)
            .as("round %s: keys of %s", rounds, qualified)
            .isEqualTo(List.copyOf(state.keySet()));
        List<Object> sample =
            shared
                .rows(
                    "SELECT count(*), sum(CAST(id AS DECIMAL(38,0)) * v) FROM "
                        + qualified
                        + " WHERE id % 7 = 3")
                .getFirst();
        long sampleCount = 0;
        BigDecimal sampleSum = BigDecimal.ZERO;
        for (Map.Entry<Long, Long> entry : state.entrySet()) {
          if (entry.getKey() % 7 == 3) {
            sampleCount++;
            sampleSum =
                sampleSum.add(
                    BigDecimal.valueOf(entry.getKey())
                        .multiply(BigDecimal.valueOf(entry.getValue())));
          }
        }
        assertThat((Long) sample.get(0))
            .as("round %s: rows with id %% 7 = 3", rounds)
            .isEqualTo(sampleCount);
        if (sampleCount > 0) {
          assertThat((BigDecimal) sample.get(1))
              .as("round %s: each row's key and value belong together", rounds)
              .isEqualByComparingTo(sampleSum);
        }
        snapshotsNow = snapshotCount("moving_keyed");
      }
    } finally {
      writers.shutdown();
    }
    assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    System.out.printf(
        "%s: %d rounds, %d new lake snapshots%n",
        qualified, rounds, snapshotsNow - snapshotsBefore);
  }

  /** The lake table's snapshots, through Trino's Iceberg connector ({@code lake} catalog). */
  private long snapshotCount(String table) {
    return (Long)
        shared
            .rows("SELECT count(*) FROM lake." + NAMESPACE + ".\"" + table + "$snapshots\"")
            .getFirst()
            .getFirst();
  }
}
