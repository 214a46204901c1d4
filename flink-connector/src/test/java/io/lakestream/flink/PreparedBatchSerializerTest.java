package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.PreparedBatch;
import io.lakestream.client.batch.LogBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The exactly-once sink's committables survive checkpoint state as they were, or fail to read. */
class PreparedBatchSerializerTest {
  private final PreparedBatchSerializer serializer = new PreparedBatchSerializer();

  @Test
  void logTableBatchRoundTrips() throws IOException {
    PreparedBatch batch = new PreparedBatch("day=2024-01-02", 3, null, null, framed(2, 77L, 9));

    PreparedBatch read = serializer.deserialize(1, serializer.serialize(batch));

    assertThat(read.partition()).isEqualTo("day=2024-01-02");
    assertThat(read.bucket()).isEqualTo(3);
    assertThat(read.keyValue()).isFalse();
    assertThat(read.writerId()).isEqualTo(77L);
    assertThat(read.sequence()).isEqualTo(9);
    assertThat(read.rowCount()).isEqualTo(2);
    assertThat(read.batch()).isEqualTo(batch.batch());
  }

  @Test
  void primaryKeyTableBatchRoundTrips() throws IOException {
    PreparedBatch batch =
        new PreparedBatch("", 0, new int[] {0, 2}, new byte[] {0, 1, 0}, framed(3, 5L, 0));

    PreparedBatch read = serializer.deserialize(1, serializer.serialize(batch));

    assertThat(read.keyValue()).isTrue();
    assertThat(read.targetColumns()).containsExactly(0, 2);
    assertThat(read.operations()).containsExactly(0, 1, 0);
    assertThat(read.writerId()).isEqualTo(5L);
    assertThat(read.rowCount()).isEqualTo(3);
  }

  @Test
  void damagedOrUnknownCommittablesFailToRead() throws IOException {
    byte[] serialized =
        serializer.serialize(new PreparedBatch("", 1, null, null, framed(1, 8L, 4)));
    byte[] damaged = serialized.clone();
    damaged[damaged.length - 1] ^= 0x55;

    assertThatThrownBy(() -> serializer.deserialize(1, damaged))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("fails its CRC check");
    assertThatThrownBy(() -> serializer.deserialize(2, serialized))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  private static byte[] framed(int rows, long writerId, int sequence) {
    LogBatch batch =
        LogBatch.create(
            rows,
            0,
            writerId,
            sequence,
            (short) 0,
            ByteBuffer.wrap("payload".getBytes(StandardCharsets.UTF_8)));
    ByteBuffer buffer = batch.buffer();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }
}
