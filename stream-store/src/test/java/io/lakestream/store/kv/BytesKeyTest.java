package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BytesKeyTest {
  @Test
  void consecutiveNumericKeysGetDistinctHashes() {
    int keys = 1_000_000;
    for (int prefix = 0; prefix <= 2; prefix++) {
      Set<Integer> hashes = new HashSet<>();
      for (long id = 0; id < keys; id++) {
        ByteBuffer key = ByteBuffer.allocate(prefix + Long.BYTES);
        key.position(prefix);
        key.putLong(id ^ Long.MIN_VALUE);
        hashes.add(new BytesKey(key.array()).hashCode());
      }
      // A random 32-bit hash of a million keys collides about a hundred times.
      assertThat(hashes.size())
          .as("distinct hashes with %d prefix bytes", prefix)
          .isGreaterThan(keys - 1_000);
    }
  }

  @Test
  void equalContentMeansEqualKeys() {
    BytesKey key = new BytesKey(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    BytesKey same = new BytesKey(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    assertThat(key).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(key).isNotEqualTo(new BytesKey(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 0}));
    assertThat(new BytesKey(new byte[0])).isNotEqualTo(new BytesKey(new byte[1]));
  }
}
