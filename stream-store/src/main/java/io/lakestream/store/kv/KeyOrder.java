package io.lakestream.store.kv;

import java.util.Arrays;

/**
 * The order in which {@link KvTablet#markDurable} hands a batch of changes to RocksDB: per key only
 * its last change (the state after an earlier one in the same batch is never visible), in key
 * order.
 *
 * <p>RocksDB inserts a batch's records into its memtable, a skip list, one after another; each
 * insert searches from where the previous one ended, so records in key order are placed in a few
 * steps, while records in arrival order (random keys) each search from the top. The keys are
 * ordered by a radix sort on their first eight bytes (primitive arrays, no comparator), ties broken
 * on the remaining bytes.
 */
final class KeyOrder {
  /** Runs of equal prefixes up to this long are sorted in place by insertion. */
  private static final int SMALL_RUN = 16;

  private KeyOrder() {}

  /**
   * The positions of the changes to keep, in key order: for each distinct key the position of its
   * last change in {@code keys} (a later change of a key supersedes an earlier one).
   */
  static int[] lastChangePerKey(byte[][] keys) {
    int count = keys.length;
    if (count < 2) {
      return count == 0 ? new int[0] : new int[] {0};
    }
    long[] prefixes = new long[count];
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      prefixes[i] = prefix(keys[i]);
      order[i] = i;
    }
    radixSort(prefixes, order);
    // Equal prefixes: order by the whole key, stably, so that equal keys stay in change order.
    for (int start = 0; start < count; ) {
      int end = start + 1;
      while (end < count && prefixes[end] == prefixes[start]) {
        end++;
      }
      if (end - start > 1) {
        sortByWholeKey(keys, order, start, end);
      }
      start = end;
    }
    int kept = 0;
    for (int i = 0; i < count; i++) {
      if (i + 1 < count && Arrays.equals(keys[order[i]], keys[order[i + 1]])) {
        continue;
      }
      order[kept++] = order[i];
    }
    return kept == count ? order : Arrays.copyOf(order, kept);
  }

  /**
   * The first eight bytes of a key as an unsigned big-endian number (shorter keys padded with
   * zeros), so that comparing prefixes as unsigned numbers orders keys as RocksDB's bytewise
   * comparator does, up to ties.
   */
  private static long prefix(byte[] key) {
    long prefix = 0;
    int length = Math.min(Long.BYTES, key.length);
    for (int i = 0; i < length; i++) {
      prefix |= (key[i] & 0xFFL) << (56 - 8 * i);
    }
    return prefix;
  }

  /**
   * Sorts the prefixes as unsigned numbers, least significant byte first, carrying {@code order}
   * along; stable. A byte that is the same in every prefix (the high bytes of small numeric keys)
   * costs one counting pass and no move.
   */
  private static void radixSort(long[] prefixes, int[] order) {
    int count = prefixes.length;
    long[] prefixBuffer = new long[count];
    int[] orderBuffer = new int[count];
    int[] counts = new int[256];
    for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
      Arrays.fill(counts, 0);
      for (long prefix : prefixes) {
        counts[(int) (prefix >>> shift) & 0xFF]++;
      }
      if (counts[(int) (prefixes[0] >>> shift) & 0xFF] == count) {
        continue;
      }
      int sum = 0;
      for (int digit = 0; digit < counts.length; digit++) {
        int digitCount = counts[digit];
        counts[digit] = sum;
        sum += digitCount;
      }
      for (int i = 0; i < count; i++) {
        int target = counts[(int) (prefixes[i] >>> shift) & 0xFF]++;
        prefixBuffer[target] = prefixes[i];
        orderBuffer[target] = order[i];
      }
      System.arraycopy(prefixBuffer, 0, prefixes, 0, count);
      System.arraycopy(orderBuffer, 0, order, 0, count);
    }
  }

  /** Stably sorts {@code order[start, end)} by the keys it points at. */
  private static void sortByWholeKey(byte[][] keys, int[] order, int start, int end) {
    if (end - start > SMALL_RUN) {
      // Many keys sharing eight bytes (strings with a common start): a merge sort, not quadratic.
      Integer[] run = new Integer[end - start];
      for (int i = start; i < end; i++) {
        run[i - start] = order[i];
      }
      Arrays.sort(run, (left, right) -> Arrays.compareUnsigned(keys[left], keys[right]));
      for (int i = start; i < end; i++) {
        order[i] = run[i - start];
      }
      return;
    }
    for (int i = start + 1; i < end; i++) {
      int moving = order[i];
      int j = i - 1;
      while (j >= start && Arrays.compareUnsigned(keys[order[j]], keys[moving]) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = moving;
    }
  }
}
