package io.lakestream.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.tiering.TieringFixture;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Union reads under motion: while a writer writes and tiering commits every second, every read sees
 * each row acknowledged before it started, exactly once, across tiering commits.
 */
class UnionScanTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "b0", Types.LongType.get())),
          Set.of(1));
  private static final int READS = 12;

  @RegisterExtension
  static final TieringFixture fixture = TieringFixture.serviceDiscoveringEverySecond("union");

  private static UnionScanPlanner planner() {
    return new UnionScanPlanner(fixture.lake(), fixture.connection());
  }

  private static UnionScanReader reader() {
    return new UnionScanReader(fixture.connection(), Duration.ofMinutes(1));
  }

  private static TablePath create(String name, String kind) {
    return fixture.createTable(
        name,
        SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind",
                kind,
                "lakestream.buckets",
                "3",
                "lakestream.tiering.interval",
                "1s")));
  }

  /** Waits until a plan has a lake snapshot, so that reads span lake and log. */
  private static void awaitFirstTiering(TablePath path) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (planner().plan(path).plan().snapshotId().isEmpty()) {
      assertThat(System.nanoTime() - deadline).as("first tiering of %s", path).isNegative();
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  @Test
  void logTableReadsSeeEveryAcknowledgedRowExactlyOnce() throws Exception {
    TablePath path = create("events", "log");
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong appended = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> writing =
        pool.submit(
            () -> {
              try (AppendWriter writer =
                  fixture.connection().table(path).newAppendWriter(WriterOptions.defaults())) {
                long id = 0;
                while (!stop.get()) {
                  appended.set(id + 50);
                  for (int i = 0; i < 50; i++, id++) {
                    writer.append(id, id * 7);
                  }
                  writer.flush();
                  acknowledged.set(id);
                }
              }
              return null;
            });
    try {
      awaitFirstTiering(path);
      Set<Long> snapshots = new HashSet<>();
      int readsWithLogRows = 0;
      for (int read = 0; read < READS; read++) {
        long before = acknowledged.get();
        UnionScanPlanner.Planned planned = planner().plan(path);
        UnionScanPlan plan = planned.plan();
        plan.snapshotId().ifPresent(snapshots::add);
        if (plan.logRecords() > 0) {
          readsWithLogRows++;
        }
        Set<Long> ids = new HashSet<>();
        long count =
            reader()
                .read(
                    planned,
                    record -> {
                      long id = (Long) record.getField("id");
                      assertThat(ids.add(id)).as("id %s read twice", id).isTrue();
                      assertThat(record.getField("b0")).isEqualTo(id * 7);
                    });
        assertThat(count).isEqualTo(ids.size()).isGreaterThanOrEqualTo(before);
        for (long id = 0; id < before; id++) {
          assertThat(ids.contains(id)).as("id %s acknowledged before the read", id).isTrue();
        }
        // Buckets become durable independently, so the ids need not be a prefix; but every id read
        // was appended, none invented.
        long appendedAfter = appended.get();
        assertThat(ids).allSatisfy(id -> assertThat(id).isBetween(0L, appendedAfter - 1));
        LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
      }
      assertThat(snapshots).as("reads across several tiering commits").hasSizeGreaterThan(1);
      assertThat(readsWithLogRows).as("reads that needed the log").isPositive();
    } finally {
      stop.set(true);
      writing.get();
      pool.shutdown();
    }
  }

  @Test
  void primaryKeyTableReadsSeeTheStateOfEveryAcknowledgedUpsert() throws Exception {
    TablePath path = create("state", "primary-key");
    int keys = 200;
    Map<Long, Long> acknowledged = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<Map<Long, Long>> writing =
        pool.submit(
            () -> {
              Map<Long, Long> state = new HashMap<>();
              try (UpsertWriter writer =
                  fixture.connection().table(path).newUpsertWriter(WriterOptions.defaults())) {
                long version = 0;
                Random random = new Random(21);
                while (!stop.get()) {
                  Map<Long, Long> batch = new HashMap<>();
                  for (int i = 0; i < 40; i++) {
                    long id = random.nextInt(keys);
                    version++;
                    writer.upsert(id, version);
                    batch.put(id, version);
                  }
                  writer.flush();
                  state.putAll(batch);
                  acknowledged.putAll(batch);
                }
                // A last phase with deletes, compared exactly once the writer is done.
                for (long id = 0; id < keys; id += 3) {
                  writer.delete(id);
                  state.remove(id);
                }
                writer.flush();
              }
              return state;
            });
    Map<Long, Long> expected;
    try {
      awaitFirstTiering(path);
      for (int read = 0; read < READS; read++) {
        Map<Long, Long> before = Map.copyOf(acknowledged);
        Map<Long, Long> seen = new HashMap<>();
        reader()
            .read(
                planner().plan(path),
                record -> {
                  Long previous =
                      seen.put((Long) record.getField("id"), (Long) record.getField("b0"));
                  assertThat(previous).as("key %s read twice", record.getField("id")).isNull();
                });
        // Versions only grow, so each key shows its acknowledged version or a later one.
        before.forEach(
            (id, version) ->
                assertThat(seen.get(id)).as("key %s", id).isGreaterThanOrEqualTo(version));
        LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
      }
    } finally {
      stop.set(true);
      expected = writing.get();
      pool.shutdown();
    }
    Map<Long, Long> finalState = new HashMap<>();
    reader()
        .read(
            planner().plan(path),
            record -> finalState.put((Long) record.getField("id"), (Long) record.getField("b0")));
    assertThat(finalState).isEqualTo(expected);
  }
}
