package io.lakestream.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Table.BucketOffsets;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogRangePlannerTest {
  private static final TablePath PATH = TablePath.of("app.events");

  private static Map<TableBucket, BucketOffsets> offsets(Object... bucketsEarliestLatest) {
    Map<TableBucket, BucketOffsets> offsets = new LinkedHashMap<>();
    for (int i = 0; i < bucketsEarliestLatest.length; i += 4) {
      offsets.put(
          new TableBucket(
              (String) bucketsEarliestLatest[i], (Integer) bucketsEarliestLatest[i + 1]),
          new BucketOffsets(
              (Long) bucketsEarliestLatest[i + 2], (Long) bucketsEarliestLatest[i + 3]));
    }
    return offsets;
  }

  @Test
  void rangesRunFromTheTieredOffsetToTheHighWatermarkAndSkipEmptyBuckets() {
    TieredOffsets tiered = TieredOffsets.of(Map.of("p=a", Map.of(0, 10L, 1, 7L)));
    Map<String, Map<Integer, Long>> next = new HashMap<>();

    List<LogRange> ranges =
        LogRangePlanner.plan(
            PATH,
            offsets("p=a", 0, 0L, 25L, "p=a", 1, 0L, 7L, "p=b", 0, 0L, 4L, "p=b", 1, 0L, 0L),
            tiered,
            LogRangePlanner.WhenGone.FAIL,
            next);

    assertThat(ranges)
        .containsExactly(new LogRange("p=a", 0, 10, 25), new LogRange("p=b", 0, 0, 4));
    assertThat(next).isEqualTo(Map.of("p=a", Map.of(0, 25L, 1, 7L), "p=b", Map.of(0, 4L)));
  }

  @Test
  void aLogThatStartsAboveTheTieredOffsetFailsAUnionReadButTieringGoesOnFromTheLogStart() {
    TieredOffsets tiered = TieredOffsets.of(Map.of("", Map.of(0, 5L)));
    Map<TableBucket, BucketOffsets> gone = offsets("", 0, 8L, 12L);

    assertThatThrownBy(
            () ->
                LogRangePlanner.plan(
                    PATH, gone, tiered, LogRangePlanner.WhenGone.FAIL, new HashMap<>()))
        .isInstanceOf(LogRangeGoneException.class)
        .hasMessageContaining("starts at offset 8")
        .hasMessageContaining("offsets 5 to 8 were deleted before they were tiered");

    Map<String, Map<Integer, Long>> next = new HashMap<>();
    assertThat(
            LogRangePlanner.plan(
                PATH, gone, tiered, LogRangePlanner.WhenGone.CONTINUE_FROM_LOG_START, next))
        .containsExactly(new LogRange("", 0, 8, 12));
    assertThat(next).isEqualTo(Map.of("", Map.of(0, 12L)));
  }

  @Test
  void aHighWatermarkBelowTheTieredOffsetKeepsTheTieredOffset() {
    TieredOffsets tiered = TieredOffsets.of(Map.of("", Map.of(0, 9L)));
    Map<String, Map<Integer, Long>> next = new HashMap<>();

    assertThat(
            LogRangePlanner.plan(
                PATH,
                offsets("", 0, 0L, 3L),
                tiered,
                LogRangePlanner.WhenGone.CONTINUE_FROM_LOG_START,
                next))
        .isEmpty();
    assertThat(next).isEqualTo(Map.of("", Map.of(0, 9L)));
  }
}
