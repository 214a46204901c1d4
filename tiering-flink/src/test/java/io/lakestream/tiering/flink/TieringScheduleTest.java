package io.lakestream.tiering.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog.StreamTable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TieringScheduleTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final TablePath CLICKS = TablePath.of("web.clicks");
  private static final TablePath ORDERS = TablePath.of("shop.orders");

  private final TieringSchedule schedule = new TieringSchedule();

  @Test
  void firstRoundAtOnceThenEveryInterval() {
    schedule.listed(List.of(table(CLICKS, "2s"), table(ORDERS, "5s")), START);

    assertThat(paths(schedule.due(START))).containsExactly(CLICKS, ORDERS);
    assertThat(schedule.due(START.plusMillis(1_999))).isEmpty();
    assertThat(paths(schedule.due(START.plusSeconds(2)))).containsExactly(CLICKS);
    assertThat(paths(schedule.due(START.plusSeconds(4)))).containsExactly(CLICKS);
    assertThat(paths(schedule.due(START.plusSeconds(5)))).containsExactly(ORDERS);
  }

  @Test
  void workCarriesTheTableFormatAndIssueTime() {
    schedule.listed(
        List.of(
            new StreamTable(
                CLICKS, Map.of("lakestream.kind", "log", "lakestream.lake-format", "paimon"))),
        START);

    assertThat(schedule.due(START))
        .containsExactly(new TieringWork(CLICKS, "paimon", START.toEpochMilli()));
  }

  @Test
  void tableWithoutIntervalTiersEveryThirtySeconds() {
    schedule.listed(List.of(new StreamTable(CLICKS, Map.of("lakestream.kind", "log"))), START);

    assertThat(schedule.due(START)).hasSize(1);
    assertThat(schedule.due(START.plusSeconds(29))).isEmpty();
    assertThat(schedule.due(START.plusSeconds(30))).hasSize(1);
  }

  @Test
  void droppedTablesAreForgotten() {
    schedule.listed(List.of(table(CLICKS, "1s"), table(ORDERS, "1s")), START);
    schedule.due(START);

    schedule.listed(List.of(table(ORDERS, "1s")), START.plusMillis(500));

    assertThat(schedule.tables()).containsExactly(ORDERS);
    assertThat(paths(schedule.due(START.plusSeconds(1)))).containsExactly(ORDERS);
  }

  @Test
  void anotherListingKeepsTheScheduleAndANewIntervalCountsFromTheLastRound() {
    schedule.listed(List.of(table(CLICKS, "10s")), START);
    schedule.due(START);
    schedule.listed(List.of(table(CLICKS, "10s")), START.plusSeconds(3));
    assertThat(schedule.due(START.plusSeconds(3))).isEmpty();

    schedule.listed(List.of(table(CLICKS, "4s")), START.plusSeconds(3));

    assertThat(schedule.due(START.plusMillis(3_999))).isEmpty();
    assertThat(paths(schedule.due(START.plusSeconds(4)))).containsExactly(CLICKS);
  }

  @Test
  void tableWithAnInvalidPropertyIsNotScheduledUntilFixed() {
    schedule.listed(List.of(table(CLICKS, "soon")), START);
    assertThat(schedule.due(START)).isEmpty();
    schedule.listed(
        List.of(
            new StreamTable(
                CLICKS, Map.of("lakestream.kind", "log", "lakestream.lake-format", "orc"))),
        START);
    assertThat(schedule.due(START)).isEmpty();

    schedule.listed(List.of(table(CLICKS, "1s")), START.plusSeconds(1));

    assertThat(paths(schedule.due(START.plusSeconds(1)))).containsExactly(CLICKS);
  }

  private static StreamTable table(TablePath path, String interval) {
    return new StreamTable(
        path, Map.of("lakestream.kind", "log", "lakestream.tiering.interval", interval));
  }

  private static List<TablePath> paths(List<TieringWork> work) {
    return work.stream().map(TieringWork::path).toList();
  }
}
