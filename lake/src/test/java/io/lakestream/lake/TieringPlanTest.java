package io.lakestream.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TieringPlanTest {
  private static final TablePath PATH = TablePath.of("app.events");

  @Test
  void aRoundReadToTheEndReachesEveryBucketsNextOffset() {
    Map<String, Map<Integer, Long>> next =
        Map.of("p=a", Map.of(0, 25L, 1, 7L), "p=b", Map.of(0, 4L));

    assertThat(TieringPlan.reaching(next, Map.of()))
        .isEqualTo(TieredOffsets.of(Map.of("p=a", Map.of(0, 25L, 1, 7L), "p=b", Map.of(0, 4L))));
  }

  @Test
  void aBucketReadShortReachesTheOffsetItWasReadToAndZeroDropsIt() {
    Map<String, Map<Integer, Long>> next =
        Map.of("p=a", Map.of(0, 25L, 1, 7L), "p=b", Map.of(0, 4L));

    TieredOffsets reached =
        TieringPlan.reaching(
            next, Map.of(new TableBucket("p=a", 0), 12L, new TableBucket("p=b", 0), 0L));

    assertThat(reached).isEqualTo(TieredOffsets.of(Map.of("p=a", Map.of(0, 12L, 1, 7L))));
    assertThat(next.get("p=a")).containsEntry(0, 25L); // the plan itself is not changed
  }

  @Test
  void onlyLogAndPrimaryKeyTablesAreStreamingTables() {
    assertThat(StreamTableKinds.isPrimaryKey(PATH, "primary-key", IllegalStateException::new))
        .isTrue();
    assertThat(StreamTableKinds.isPrimaryKey(PATH, "log", IllegalStateException::new)).isFalse();
    assertThatThrownBy(() -> StreamTableKinds.isPrimaryKey(PATH, "view", TieringException::new))
        .isInstanceOf(TieringException.class)
        .hasMessage("Table app.events is a view table, not a streaming table");
  }
}
