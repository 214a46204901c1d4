package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringRound;
import java.time.Duration;
import java.time.Instant;
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

  private final Map<TablePath, TableTotals> tables = new ConcurrentHashMap<>();

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

  /** Forgets tables that are not in {@code tiered} (dropped ones), so memory stays bounded. */
  public void retain(Set<TablePath> tiered) {
    tables.keySet().retainAll(tiered);
  }
}
