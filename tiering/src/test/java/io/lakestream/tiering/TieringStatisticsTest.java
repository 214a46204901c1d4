package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TieringStatisticsTest {
  private static final TablePath EVENTS = TablePath.of("db.events");
  private static final TablePath CLICKS = TablePath.of("db.clicks");
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  private static TieringRound round(TablePath path, TieringRound.Outcome outcome, long rows) {
    return new TieringRound(
        path,
        outcome,
        rows,
        outcome == TieringRound.Outcome.COMMITTED ? 1 : 0,
        outcome == TieringRound.Outcome.COMMITTED ? 100 + rows : -1,
        TieredOffsets.NONE);
  }

  @Test
  void countsCommittedAndFailedRoundsAndTheRowsCommitted() {
    TieringStatistics statistics = new TieringStatistics();
    statistics.roundFinished(
        EVENTS, round(EVENTS, TieringRound.Outcome.COMMITTED, 40), T0, T0.plusMillis(250));
    statistics.roundFailed(EVENTS);
    statistics.roundFinished(
        EVENTS,
        round(EVENTS, TieringRound.Outcome.UP_TO_DATE, 0),
        T0.plusSeconds(1),
        T0.plusSeconds(1));
    statistics.roundFinished(
        EVENTS,
        round(EVENTS, TieringRound.Outcome.LOST_RACE, 0),
        T0.plusSeconds(2),
        T0.plusSeconds(2));
    statistics.roundFinished(
        EVENTS,
        round(EVENTS, TieringRound.Outcome.COMMITTED, 7),
        T0.plusSeconds(3),
        T0.plusSeconds(3).plusMillis(90));

    TieringStatistics.TableTotals totals = statistics.totals(EVENTS);
    assertThat(totals.committedRounds()).isEqualTo(2);
    assertThat(totals.failedRounds()).isEqualTo(1);
    assertThat(totals.rows()).isEqualTo(47);
    assertThat(totals.lastCommit())
        .isEqualTo(
            new TieringStatistics.RoundTiming(T0.plusSeconds(3), Duration.ofMillis(90), 7, 107));
    assertThat(statistics.totals(CLICKS))
        .isEqualTo(new TieringStatistics.TableTotals(0, 0, 0, null));
  }

  @Test
  void countsTheDurationsOfCommittedRoundsByBucket() {
    TieringStatistics statistics = new TieringStatistics();
    // Bounds 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600 seconds, then +Inf.
    long[] millis = {90, 100, 250, 3_000, 700_000};
    for (int i = 0; i < millis.length; i++) {
      Instant started = T0.plusSeconds(1000L * i);
      statistics.roundFinished(
          EVENTS,
          round(EVENTS, TieringRound.Outcome.COMMITTED, 1),
          started,
          started.plusMillis(millis[i]));
    }
    // Rounds that commit nothing are not timed.
    statistics.roundFinished(
        EVENTS, round(EVENTS, TieringRound.Outcome.UP_TO_DATE, 0), T0, T0.plusSeconds(50));
    statistics.roundFailed(EVENTS);

    TieringStatistics.RoundDurations durations = statistics.roundDurations(EVENTS);
    assertThat(durations.counts()).containsExactly(2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1);
    assertThat(durations.sumSeconds()).isCloseTo(703.44, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(statistics.roundDurations(CLICKS).counts()).containsOnly(0);

    statistics.retain(Set.of(CLICKS));
    assertThat(statistics.roundDurations(EVENTS).counts()).containsOnly(0);
  }

  @Test
  void forgetsTablesNoLongerTiered() {
    TieringStatistics statistics = new TieringStatistics();
    statistics.roundFailed(EVENTS);
    statistics.roundFailed(CLICKS);

    statistics.retain(Set.of(CLICKS));

    assertThat(statistics.totals(EVENTS).failedRounds()).isZero();
    assertThat(statistics.totals(CLICKS).failedRounds()).isEqualTo(1);
  }
}
