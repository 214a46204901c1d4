package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RowCacheTest {
  private static BytesKey key(int id) {
    return new BytesKey(ByteBuffer.allocate(5).put((byte) 7).putInt(id).array());
  }

  private static BytesKey key(String text) {
    return new BytesKey(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A value that names its key and version, of a length that varies with both. */
  private static byte[] value(int id, int version) {
    ByteBuffer value = ByteBuffer.allocate(8 + (id * 7 + version) % 40);
    return value.putInt(id).putInt(version).array();
  }

  /**
   * Removes (one time in five) or writes the row of a random key below {@code keys}, in the cache
   * and in the model alike; returns the key.
   */
  private static int changeOne(
      RowCache.Rows rows, Map<Integer, byte[]> model, Random random, int keys, int step) {
    int id = random.nextInt(keys);
    if (random.nextInt(5) == 0) {
      rows.remove(key(id));
      model.remove(id);
    } else {
      byte[] value = value(id, step);
      rows.put(key(id), value);
      model.put(id, value);
    }
    return id;
  }

  @Test
  void holdsPutRowsUntilRemovedOrCleared() {
    RowCache cache = new RowCache(1 << 20);
    RowCache.Rows rows = cache.newRows(true);
    rows.put(key("a"), new byte[] {1, 2, 3});
    rows.put(key("bb"), new byte[] {4});
    rows.put(key("a"), new byte[] {5, 6});
    assertThat(rows.get(key("a"))).containsExactly(5, 6);
    assertThat(rows.get(key("bb"))).containsExactly(4);
    assertThat(rows.get(key("c"))).isNull();
    assertThat(rows.size()).isEqualTo(2);
    assertThat(cache.usedBytes()).isPositive();

    rows.remove(key("bb"));
    rows.remove(key("never"));
    assertThat(rows.get(key("bb"))).isNull();
    assertThat(rows.size()).isEqualTo(1);
    assertThat(rows.complete()).isTrue();

    rows.clear();
    assertThat(rows.get(key("a"))).isNull();
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
  void aBucketWithFewRowsTakesLittleOfTheBudget() {
    RowCache cache = new RowCache(512L << 20);
    for (int bucket = 0; bucket < 100; bucket++) {
      cache.newRows(true).put(key(bucket), new byte[100]);
    }
    // A first chunk of 4 KiB and an index of 1,024 slots each, not a 256 KiB chunk each.
    assertThat(cache.usedBytes()).isLessThan(100 * (32L << 10));
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
  void randomChangesWithRoomForEveryRowMatchAMap() {
    // About 1 MiB of live rows and index, 7 MiB of rows written in all: old chunks are reclaimed.
    RowCache cache = new RowCache(4L << 20);
    RowCache.Rows rows = cache.newRows(true);
    Map<Integer, byte[]> model = new HashMap<>();
    Random random = new Random(42);
    for (int step = 0; step < 200_000; step++) {
      changeOne(rows, model, random, 20_000, step);
    }
    assertThat(rows.complete()).isTrue();
    assertThat(rows.size()).isEqualTo(model.size());
    for (int id = 0; id < 20_000; id++) {
      assertThat(rows.get(key(id))).as("row of %d", id).isEqualTo(model.get(id));
    }
    // Garbage was reclaimed by moving live rows, without evicting any and within the budget.
    assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacityBytes() + cache.chunkBytes());
  }

  @Test
  void rewritingEveryRowOfHalfTheBudgetKeepsTheViewComplete() {
    // Every key written once, then again in another order: when the budget runs out, the oldest
    // chunks are still about half live, one per fresh chunk. They must be compacted into new chunks
    // rather than evicted, as the live rows (about half the budget) fit.
    RowCache cache = new RowCache(8L << 20);
    RowCache.Rows rows = cache.newRows(true);
    List<Integer> ids = new ArrayList<>();
    for (int id = 0; id < 60_000; id++) {
      ids.add(id);
    }
    Random random = new Random(11);
    for (int pass = 0; pass < 3; pass++) {
      Collections.shuffle(ids, random);
      for (int id : ids) {
        rows.put(key(id), value(id, pass));
      }
    }
    assertThat(rows.complete()).isTrue();
    assertThat(rows.size()).isEqualTo(ids.size());
    for (int id : ids) {
      assertThat(rows.get(key(id))).as("row of %d", id).isEqualTo(value(id, 2));
    }
    assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacityBytes() + cache.chunkBytes());
  }

  @Test
  void aViewThatChangesFewRowsOftenLeavesTheBudgetToTheOthers() {
    RowCache cache = new RowCache(8L << 20);
    // A bucket of 1,000 rows changed 200,000 times: 8 MiB written, a few KiB live.
    RowCache.Rows busy = cache.newRows(true);
    for (int step = 0; step < 200_000; step++) {
      busy.put(key(step % 1_000), value(step % 1_000, step));
    }
    // Then a bucket of 60,000 rows, about half the budget with its index.
    RowCache.Rows large = cache.newRows(true);
    for (int id = 0; id < 60_000; id++) {
      large.put(key(id), value(id, 0));
    }
    assertThat(large.complete()).isTrue();
    assertThat(busy.complete()).isTrue();
    for (int id = 0; id < 60_000; id++) {
      assertThat(large.get(key(id))).as("row of %d", id).isEqualTo(value(id, 0));
    }
    for (int id = 0; id < 1_000; id++) {
      assertThat(busy.get(key(id))).as("row of %d", id).isEqualTo(value(id, 199_000 + id));
    }
  }

  @Test
  void aSmallBudgetEvictsButNeverAnswersWrongly() {
    RowCache cache = new RowCache(64 << 10);
    RowCache.Rows rows = cache.newRows(true);
    Map<Integer, byte[]> model = new HashMap<>();
    Random random = new Random(7);
    for (int step = 0; step < 50_000; step++) {
      int id = changeOne(rows, model, random, 5_000, step);
      // The row just written is always held.
      assertThat(rows.get(key(id))).isEqualTo(model.get(id));
    }
    assertThat(rows.complete()).isFalse();
    int held = 0;
    for (int id = 0; id < 5_000; id++) {
      byte[] cached = rows.get(key(id));
      if (cached != null) {
        assertThat(cached).as("row of %d", id).isEqualTo(model.get(id));
        held++;
      }
    }
    assertThat(held).isEqualTo(rows.size()).isPositive().isLessThan(model.size());
  }

  @Test
  void aRowLargerThanAChunkIsNotHeldAndEndsCompleteness() {
    RowCache cache = new RowCache(1 << 10);
    RowCache.Rows rows = cache.newRows(true);
    rows.put(key("small"), new byte[8]);
    rows.put(key("small"), new byte[cache.chunkBytes()]);
    assertThat(rows.get(key("small"))).isNull();
    assertThat(rows.complete()).isFalse();
  }

  @Test
  void readersConcurrentWithChangesSeeOnlyRowsThatWereWritten() throws Exception {
    RowCache cache = new RowCache(256 << 10);
    RowCache.Rows rows = cache.newRows(true);
    AtomicBoolean writing = new AtomicBoolean(true);
    CompletableFuture<Integer> reader =
        CompletableFuture.supplyAsync(
            () -> {
              Random random = new Random(3);
              int seen = 0;
              while (writing.get()) {
                int id = random.nextInt(2_000);
                byte[] value = rows.get(key(id));
                if (value != null) {
                  ByteBuffer read = ByteBuffer.wrap(value);
                  int version = read.getInt(4);
                  if (read.getInt(0) != id || !Arrays.equals(value, value(id, version))) {
                    throw new AssertionError("Key " + id + " read a row it never had");
                  }
                  seen++;
                }
              }
              return seen;
            });
    Random random = new Random(5);
    for (int step = 0; step < 300_000; step++) {
      int id = random.nextInt(2_000);
      if (random.nextInt(4) == 0) {
        rows.remove(key(id));
      } else {
        rows.put(key(id), value(id, step));
      }
    }
    writing.set(false);
    assertThat(reader.get()).isPositive();
  }

  @Test
  void aNodeGivesItsRowsAtMostAQuarterOfTheHeap() {
    assertThat(KvManager.rowCacheBytes(KvConfig.defaults(), 4L << 30)).isEqualTo(512L << 20);
    assertThat(KvManager.rowCacheBytes(KvConfig.defaults(), 1L << 30)).isEqualTo(256L << 20);
  }

  @Test
  void keysWithTheSameHashKeepTheirOwnRows() {
    // Two different keys of one 32-bit hash share their index position and their slot tag.
    Map<Integer, Integer> byHash = new HashMap<>();
    int first = -1;
    int second = -1;
    for (int id = 0; first < 0; id++) {
      Integer earlier = byHash.putIfAbsent(key(id).hashCode(), id);
      if (earlier != null) {
        first = earlier;
        second = id;
      }
    }
    RowCache.Rows rows = new RowCache(1 << 20).newRows(true);
    rows.put(key(first), value(first, 1));
    rows.put(key(second), value(second, 1));
    rows.put(key(first), value(first, 2));
    assertThat(rows.get(key(first))).isEqualTo(value(first, 2));
    assertThat(rows.get(key(second))).isEqualTo(value(second, 1));

    rows.remove(key(first));

    assertThat(rows.get(key(first))).isNull();
    assertThat(rows.get(key(second))).isEqualTo(value(second, 1));
    assertThat(rows.size()).isEqualTo(1);
  }

  @Test
  void refusesANegativeBudget() {
    assertThatThrownBy(() -> new RowCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Row cache capacity is negative: -1");
  }
}
