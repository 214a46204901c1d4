package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringRound;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the rounds of each table have done since the service started: counts of committed and failed
 * rounds, rows committed, and the timing of the last committed round. Kept in memory only; it
 * starts from zero when the process does (Prometheus counters are expected to).
 *
 * <p>Thread safe: the service records from its thread, status readers read from any.
 */
public final class TieringStatistics {
  /**
   * The totals of one table.
   *
   * @param committedRounds rounds that committed a snapshot
   * @param failedRounds rounds that threw
   * @param rows rows committed by all rounds
   * @param lastCommit the last round that committed, or null
   */
  public record TableTotals(
      long committedRounds, long failedRounds, long rows, RoundTiming lastCommit) {
    static final TableTotals ZERO = new TableTotals(0, 0, 0, null);
  }

  /**
   * When a round ran and what it committed.
   *
   * @param started when the round began (before it loaded the table)
   * @param duration from start to the end of its commit
   * @param rows rows it committed
   * @param snapshotId the snapshot it committed
   */
  public record RoundTiming(Instant started, Duration duration, long rows, long snapshotId) {
    public RoundTiming {
      requireNonNull(started, "started is null");
      requireNonNull(duration, "duration is null");
    }
  }

  /**
   * Upper bounds, in seconds, of the buckets that {@link #roundDurations} counts committed rounds
   * in: from a tenth of a second to ten minutes.
   */
  public static final List<Double> ROUND_SECONDS_BOUNDS =
      List.of(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0);

  /**
   * How long the committed rounds of a table took.
   *
   * @param counts rounds per bucket, not cumulative: {@code counts[i]} took at most {@link
   *     #ROUND_SECONDS_BOUNDS}{@code [i]} and more than the bound before it; the last entry counts
   *     those longer than every bound
   * @param sumSeconds the rounds' durations added up
   */
  public record RoundDurations(long[] counts, double sumSeconds) {
    static final RoundDurations NONE =
        new RoundDurations(new long[ROUND_SECONDS_BOUNDS.size() + 1], 0);

    public RoundDurations {
      counts = counts.clone();
    }

    @Override
    public long[] counts() {
      return counts.clone();
    }

    RoundDurations plus(Duration duration) {
      double seconds = Math.max(0, duration.toNanos() / 1e9);
      int index = 0;
      while (index < ROUND_SECONDS_BOUNDS.size() && seconds > ROUND_SECONDS_BOUNDS.get(index)) {
        index++;
      }
      long[] next = counts.clone();
      next[index]++;
      return new RoundDurations(next, sumSeconds + seconds);
    }
  }

  private final Map<TablePath, TableTotals> tables = new ConcurrentHashMap<>();
  private final Map<TablePath, RoundDurations> durations = new ConcurrentHashMap<>();

  /** Records a round that returned (committed, found nothing new, or lost the race). */
  public void roundFinished(TablePath path, TieringRound round, Instant started, Instant ended) {
    requireNonNull(round, "round is null");
    if (round.outcome() != TieringRound.Outcome.COMMITTED) {
      return;
    }
    RoundTiming timing =
        new RoundTiming(
            started, Duration.between(started, ended), round.rows(), round.snapshotId());
    tables.merge(
        path,
        new TableTotals(1, 0, round.rows(), timing),
        (current, added) ->
            new TableTotals(
                current.committedRounds() + 1,
                current.failedRounds(),
                current.rows() + added.rows(),
                timing));
    durations.compute(
        path,
        (ignored, current) ->
            (current == null ? RoundDurations.NONE : current).plus(timing.duration()));
  }

  /** Records a round that threw. */
  public void roundFailed(TablePath path) {
    tables.merge(
        path,
        new TableTotals(0, 1, 0, null),
        (current, added) ->
            new TableTotals(
                current.committedRounds(),
                current.failedRounds() + 1,
                current.rows(),
                current.lastCommit()));
  }

  /** The totals of a table; zero when no round of it has been recorded. */
  public TableTotals totals(TablePath path) {
    return Optional.ofNullable(tables.get(path)).orElse(TableTotals.ZERO);
  }

  /** How long the table's committed rounds took; no rounds when none has been recorded. */
  public RoundDurations roundDurations(TablePath path) {
    return Optional.ofNullable(durations.get(path)).orElse(RoundDurations.NONE);
  }

  /** Forgets tables that are not in {@code tiered} (dropped ones), so memory stays bounded. */
  public void retain(Set<TablePath> tiered) {
    tables.keySet().retainAll(tiered);
    durations.keySet().retainAll(tiered);
  }
}
