package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RowCacheTest {
  private static BytesKey key(String text) {
    return new BytesKey(text.getBytes(StandardCharsets.UTF_8));
  }

  private static long cost(String key, int valueLength) {
    return key.length() + valueLength + RowCache.ENTRY_OVERHEAD;
  }

  @Test
  void countsKeysValuesAndOverheadAgainstTheBudget() {
    RowCache cache = new RowCache(1 << 20);
    RowCache.Rows rows = cache.newRows(true);
    rows.put(key("a"), new byte[10]);
    rows.put(key("bb"), new byte[20]);
    assertThat(cache.usedBytes()).isEqualTo(cost("a", 10) + cost("bb", 20));

    rows.put(key("a"), new byte[4]);
    assertThat(cache.usedBytes()).isEqualTo(cost("a", 4) + cost("bb", 20));
    assertThat(rows.get(key("a"))).hasSize(4);

    rows.remove(key("bb"));
    rows.remove(key("never"));
    assertThat(cache.usedBytes()).isEqualTo(cost("a", 4));
    assertThat(rows.get(key("bb"))).isNull();
    assertThat(rows.complete()).isTrue();

    rows.clear();
    assertThat(cache.usedBytes()).isZero();
    assertThat(rows.complete()).isFalse();
  }

  @Test
  void onlyAStoreThatOpenedEmptyStartsComplete() {
    RowCache cache = new RowCache(1 << 20);
    assertThat(cache.newRows(true).complete()).isTrue();
    assertThat(cache.newRows(false).complete()).isFalse();
    assertThat(new RowCache(0).newRows(true).complete()).isFalse();
  }

  @Test
  void aZeroBudgetHoldsNothing() {
    RowCache cache = new RowCache(0);
    RowCache.Rows rows = cache.newRows(true);
    rows.put(key("a"), new byte[10]);
    assertThat(rows.get(key("a"))).isNull();
    assertThat(cache.usedBytes()).isZero();
  }

  @Test
  void theBucketThatOverflowsTheBudgetGivesUpItsOwnRowsAndIsNoLongerComplete() {
    long entry = cost("k000", 100);
    RowCache cache = new RowCache(entry * 20);
    RowCache.Rows quiet = cache.newRows(true);
    RowCache.Rows busy = cache.newRows(true);
    for (int i = 0; i < 5; i++) {
      quiet.put(key("q%03d".formatted(i)), new byte[100]);
    }
    for (int i = 0; i < 100; i++) {
      busy.put(key("k%03d".formatted(i)), new byte[100]);
      assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacityBytes());
    }
    assertThat(busy.complete()).isFalse();
    assertThat(busy.size()).isLessThan(15);
    // The newest row stays: eviction makes room for what is being added.
    assertThat(busy.get(key("k099"))).isNotNull();
    assertThat(quiet.complete()).isTrue();
    assertThat(quiet.size()).isEqualTo(5);
    assertThat(cache.usedBytes()).isEqualTo(entry * (busy.size() + quiet.size()));
  }

  @Test
  void aNodeGivesItsRowsAtMostAQuarterOfTheHeap() {
    assertThat(KvManager.rowCacheBytes(KvConfig.defaults(), 4L << 30)).isEqualTo(512L << 20);
    assertThat(KvManager.rowCacheBytes(KvConfig.defaults(), 1L << 30)).isEqualTo(256L << 20);
  }

  @Test
  void refusesANegativeBudget() {
    assertThatThrownBy(() -> new RowCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Row cache capacity is negative: -1");
  }
}
