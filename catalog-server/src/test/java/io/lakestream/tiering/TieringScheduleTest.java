package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.testing.EmbeddedLakestream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the service runs a table's rounds, on a clock the test moves: the interval runs from the
 * start of one round to the start of the next, a round that overruns the interval is followed by
 * the next at once, and a failed round is retried one interval after it ended. The rounds are real;
 * the hook before each commit stands for the time a round takes.
 */
class TieringScheduleTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final Duration INTERVAL = Duration.ofSeconds(10);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("sched"), new HashMap<>());
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  /** A clock that stands still until the test moves it. */
  private static final class MovedClock extends Clock {
    private volatile Instant now = T0;

    void set(Instant instant) {
      now = instant;
    }

    void advance(Duration duration) {
      now = now.plus(duration);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  /** What the next round's commit hook does: how long the round takes, and whether it fails. */
  private static final class SlowRounds implements TieringHook {
    private final MovedClock clock;
    private volatile Duration takes = Duration.ZERO;
    private volatile boolean fails;

    SlowRounds(MovedClock clock) {
      this.clock = clock;
    }

    @Override
    public void beforeCommit(TablePath table, List<DataFile> files) {
      clock.advance(takes);
      if (fails) {
        throw new IllegalStateException("round failed on purpose");
      }
    }
  }

  private static void appendRows(TablePath path, long from, long to) {
    try (AppendWriter writer = lakestream.connection().table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, "row " + id);
      }
      writer.flush();
    }
  }

  @Test
  void roundsStartAnIntervalApartFromTheirStartsAndAFailedRoundWaitsFromItsEnd() {
    catalog.createTable(
        TableIdentifier.of("sched", "events"),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(
            "lakestream.kind", "log",
            "lakestream.buckets", "1",
            "lakestream.tiering.interval", INTERVAL.toSeconds() + "s"));
    TablePath path = TablePath.of("sched.events");
    MovedClock clock = new MovedClock();
    SlowRounds hook = new SlowRounds(clock);
    LakeCatalog lake = IcebergLakeCatalog.of(catalog);
    try (TieringService service =
        new TieringService(
            lake,
            new IcebergTableTiering(
                lake,
                lakestream.connection(),
                hook,
                Duration.ofMinutes(1),
                IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND),
            TieringConfig.defaults(),
            clock)) {
      runRounds(service, clock, hook, path);
    }
  }

  private static void runRounds(
      TieringService service, MovedClock clock, SlowRounds hook, TablePath path) {
    // Found at T0: the first round is one interval later, and nothing runs before it.
    service.tick();
    assertThat(service.state(path).orElseThrow().nextRound()).isEqualTo(T0.plus(INTERVAL));
    appendRows(path, 0, 100);
    clock.set(T0.plus(INTERVAL).minusMillis(1));
    service.tick();
    assertThat(service.statistics().totals(path).committedRounds()).isZero();

    // A round that takes 3 s: the next is due an interval after this one started, not ended.
    Instant firstStart = T0.plus(INTERVAL);
    clock.set(firstStart);
    hook.takes = Duration.ofSeconds(3);
    service.tick();
    assertThat(service.statistics().totals(path).committedRounds()).isEqualTo(1);
    assertThat(service.statistics().totals(path).lastCommit().started()).isEqualTo(firstStart);
    assertThat(service.state(path).orElseThrow().nextRound()).isEqualTo(firstStart.plus(INTERVAL));

    // A round that takes longer than the interval: the next one is due when it ends.
    appendRows(path, 100, 200);
    Instant secondStart = firstStart.plus(INTERVAL);
    clock.set(secondStart);
    hook.takes = INTERVAL.plusSeconds(5);
    service.tick();
    assertThat(service.statistics().totals(path).committedRounds()).isEqualTo(2);
    Instant secondEnd = secondStart.plus(hook.takes);
    assertThat(clock.instant()).isEqualTo(secondEnd);
    assertThat(service.state(path).orElseThrow().nextRound()).isBefore(secondEnd);

    // So the very next tick runs one; this one fails after 4 s and is retried an interval after
    // its end, not its start.
    appendRows(path, 200, 300);
    hook.takes = Duration.ofSeconds(4);
    hook.fails = true;
    service.tick();
    TieringService.TableState failed = service.state(path).orElseThrow();
    assertThat(failed.lastError()).contains("round failed on purpose");
    assertThat(service.statistics().totals(path).failedRounds()).isEqualTo(1);
    assertThat(failed.nextRound()).isEqualTo(secondEnd.plusSeconds(4).plus(INTERVAL));

    // Nothing runs before then; at that moment the retry tiers the rows the failed round did not.
    hook.takes = Duration.ZERO;
    hook.fails = false;
    clock.set(failed.nextRound().minusMillis(1));
    service.tick();
    assertThat(service.statistics().totals(path).committedRounds()).isEqualTo(2);
    clock.set(failed.nextRound());
    service.tick();
    assertThat(service.statistics().totals(path).committedRounds()).isEqualTo(3);
    assertThat(service.statistics().totals(path).rows()).isEqualTo(300);
  }

  @Test
  void roundsOfDifferentTablesRunAtOnce() {
    List<TablePath> paths =
        List.of(TablePath.of("sched.together_a"), TablePath.of("sched.together_b"));
    for (TablePath path : paths) {
      catalog.createTable(
          TableIdentifier.of("sched", path.name()),
          SCHEMA,
          PartitionSpec.unpartitioned(),
          Map.of(
              "lakestream.kind", "log",
              "lakestream.buckets", "1",
              "lakestream.tiering.interval", INTERVAL.toSeconds() + "s"));
      appendRows(path, 0, 10);
    }
    // Each round waits before its commit until the other table's round waits there too: only
    // rounds that run at the same time both commit; one after the other, the first gives up.
    CyclicBarrier bothWaiting = new CyclicBarrier(paths.size());
    TieringHook meetTheOther =
        (table, files) -> {
          if (!paths.contains(table)) {
            return; // the other tests' tables
          }
          try {
            bothWaiting.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the other table's round did not run meanwhile", e);
          }
        };
    MovedClock clock = new MovedClock();
    LakeCatalog lake = IcebergLakeCatalog.of(catalog);
    try (TieringService service =
        new TieringService(
            lake,
            new IcebergTableTiering(
                lake,
                lakestream.connection(),
                meetTheOther,
                Duration.ofMinutes(1),
                IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND),
            TieringConfig.defaults(),
            clock)) {
      service.tick();
      clock.advance(INTERVAL);
      service.tick();
      for (TablePath path : paths) {
        assertThat(service.state(path).orElseThrow().lastError()).isNull();
        assertThat(service.statistics().totals(path).committedRounds()).isEqualTo(1);
        assertThat(service.statistics().totals(path).rows()).isEqualTo(10);
      }
    }
  }

  /**
   * A catalog that shows one table with a property value the server's own validation would refuse,
   * as a table created before that validation, or changed by another engine, shows it.
   */
  private record PropertyOverride(LakeCatalog delegate, TablePath table, String key, String value)
      implements LakeCatalog {
    @Override
    public List<StreamTable> listStreamTables() {
      return delegate.listStreamTables().stream()
          .map(
              found -> {
                if (!found.path().equals(table)) {
                  return found;
                }
                Map<String, String> properties = new HashMap<>(found.properties());
                properties.put(key, value);
                return new StreamTable(found.path(), properties);
              })
          .toList();
    }

    @Override
    public org.apache.iceberg.Table loadTable(TablePath path) {
      return delegate.loadTable(path);
    }
  }

  @Test
  void aTableWithAnAbsurdIntervalFailsAloneAndTheOthersAreTiered() {
    for (String name : List.of("absurd", "beside_absurd")) {
      catalog.createTable(
          TableIdentifier.of("sched", name),
          SCHEMA,
          PartitionSpec.unpartitioned(),
          Map.of(
              "lakestream.kind", "log",
              "lakestream.buckets", "1",
              "lakestream.tiering.interval", INTERVAL.toSeconds() + "s"));
    }
    TablePath absurd = TablePath.of("sched.absurd");
    TablePath beside = TablePath.of("sched.beside_absurd");
    appendRows(absurd, 0, 10);
    appendRows(beside, 0, 10);
    MovedClock clock = new MovedClock();
    LakeCatalog lake =
        new PropertyOverride(
            IcebergLakeCatalog.of(catalog),
            absurd,
            TieringConfig.INTERVAL_PROPERTY,
            "999999999999d");
    try (TieringService service =
        new TieringService(
            lake,
            new IcebergTableTiering(lake, lakestream.connection()),
            TieringConfig.defaults(),
            clock)) {
      for (int round = 0; round < 3; round++) {
        service.tick();
        clock.advance(INTERVAL);
      }
      service.tick();

      assertThat(service.statistics().totals(beside).committedRounds()).isEqualTo(1);
      assertThat(service.statistics().totals(beside).rows()).isEqualTo(10);
      assertThat(service.state(beside).orElseThrow().failed()).isFalse();
      TieringService.TableState failed = service.state(absurd).orElseThrow();
      assertThat(failed.failed()).isTrue();
      assertThat(failed.nextRound()).isNull();
      assertThat(failed.lastError())
          .contains("lakestream.tiering.interval")
          .contains("999999999999d");
      assertThat(service.statistics().totals(absurd).committedRounds()).isZero();
      TieringStatus status =
          new TieringStatusReader(lake, lakestream.connection(), service, clock).status(absurd);
      assertThat(status.state()).isEqualTo(TieringStatus.State.FAILED);
      assertThat(status.lastError()).contains("999999999999d");
    }
  }
}
