package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class KeyOrderTest {
  /**
   * Keys of 0 to 20 bytes over a small alphabet, so that many are equal, many share their first
   * eight bytes (more than the in-place run length), and some are prefixes of others.
   */
  private static byte[][] randomKeys(Random random, int count) {
    byte[][] keys = new byte[count][];
    for (int i = 0; i < count; i++) {
      int length = random.nextInt(4) == 0 ? 8 + random.nextInt(13) : random.nextInt(9);
      byte[] key = new byte[length];
      for (int j = 0; j < length; j++) {
        // Mostly equal leading bytes; the bytes 0x00, 0x7F, 0x80 and 0xFF test unsigned order.
        key[j] =
            j < 6 && random.nextInt(8) != 0
                ? 0x41
                : new byte[] {0, 0x7F, (byte) 0x80, -1}[random.nextInt(4)];
      }
      keys[i] = key;
    }
    return keys;
  }

  @Test
  void keepsEachKeysLastChangeInUnsignedByteOrder() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      byte[][] keys = randomKeys(random, random.nextInt(round < 5 ? 3 : 3000));
      TreeMap<byte[], Integer> model = new TreeMap<>(Arrays::compareUnsigned);
      for (int i = 0; i < keys.length; i++) {
        model.put(keys[i], i);
      }

      int[] kept = KeyOrder.lastChangePerKey(keys);

      assertThat(kept).containsExactly(model.values().stream().mapToInt(i -> i).toArray());
    }
  }

  @Test
  void anEmptyOrSingleBatchNeedsNoOrdering() {
    assertThat(KeyOrder.lastChangePerKey(new byte[0][])).isEmpty();
    assertThat(KeyOrder.lastChangePerKey(new byte[][] {{9}})).containsExactly(0);
    List<byte[]> same = new ArrayList<>(List.of(new byte[] {1}, new byte[] {1}, new byte[] {1}));
    assertThat(KeyOrder.lastChangePerKey(same.toArray(byte[][]::new))).containsExactly(2);
  }
}
