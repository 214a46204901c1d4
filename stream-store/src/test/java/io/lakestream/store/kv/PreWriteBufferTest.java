package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PreWriteBufferTest {
  private static BytesKey key(int id) {
    return new BytesKey(ByteBuffer.allocate(4).putInt(id).array());
  }

  /**
   * Random adds, durable prefixes and aborted suffixes against a list of the buffered entries: a
   * key's newest entry is always the last buffered entry of that key, and below() the buffered
   * entries under an offset, in order.
   */
  @Test
  void eachKeysNewestEntryIsItsLastBufferedOne() {
    Random random = new Random(3);
    PreWriteBuffer buffer = new PreWriteBuffer();
    List<PreWriteBuffer.Entry> model = new ArrayList<>();
    long nextOffset = 0;
    int keys = 300;
    for (int step = 0; step < 20_000; step++) {
      int action = random.nextInt(10);
      if (action < 7) {
        int id = random.nextInt(keys);
        nextOffset += 1 + random.nextInt(2);
        PreWriteBuffer.Entry entry =
            new PreWriteBuffer.Entry(
                nextOffset, key(id), null, random.nextBoolean() ? null : new byte[] {1});
        buffer.add(entry);
        model.add(entry);
      } else if (action < 9 && !model.isEmpty()) {
        long end = model.get(random.nextInt(model.size())).offset + random.nextInt(2);
        assertThat(buffer.below(end))
            .containsExactlyElementsOf(model.stream().filter(e -> e.offset < end).toList());
        buffer.removeBelow(end);
        model.removeIf(e -> e.offset < end);
      } else if (!model.isEmpty()) {
        long from = model.get(random.nextInt(model.size())).offset;
        buffer.truncateFrom(from);
        model.removeIf(e -> e.offset >= from);
        nextOffset = Math.max(nextOffset, from);
      }
      assertThat(buffer.size()).isEqualTo(model.size());
      for (int id = 0; id < keys; id++) {
        PreWriteBuffer.Entry newest = null;
        for (PreWriteBuffer.Entry entry : model) {
          if (entry.wrappedKey.equals(key(id))) {
            newest = entry;
          }
        }
        assertThat(buffer.get(key(id))).as("key %d at step %d", id, step).isSameAs(newest);
      }
    }
  }
}
