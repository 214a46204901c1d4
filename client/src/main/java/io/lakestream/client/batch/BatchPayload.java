package io.lakestream.client.batch;

import java.nio.ByteBuffer;

/**
 * The payload of a log batch of Arrow rows: {@code int32 statistics length | statistics | Arrow IPC
 * record batch message}. The statistics (per-column min, max, null count) let a server skip batches
 * that cannot match a filter without reading the rows.
 */
public final class BatchPayload {
  private BatchPayload() {}

  /**
   * Builds a payload from its two parts.
   *
   * @param statistics the encoded column statistics ({@link
   *     io.lakestream.client.arrow.BatchStatistics})
   * @param message the Arrow IPC record batch message, from its position to its limit (not
   *     consumed)
   * @return a new heap buffer positioned at the payload's start
   */
  public static ByteBuffer encode(byte[] statistics, ByteBuffer message) {
    ByteBuffer payload = ByteBuffer.allocate(4 + statistics.length + message.remaining());
    payload.putInt(statistics.length).put(statistics).put(message.duplicate());
    return payload.flip();
  }

  /**
   * The statistics bytes, without copying.
   *
   * @param payload a payload, from its position to its limit (not consumed)
   * @return a slice of the payload holding the statistics
   * @throws IllegalArgumentException if the payload is too short or its statistics length is wrong
   */
  public static ByteBuffer statistics(ByteBuffer payload) {
    int length = statisticsLength(payload);
    return payload.slice(payload.position() + 4, length);
  }

  /**
   * The Arrow message, without copying.
   *
   * @param payload a payload, from its position to its limit (not consumed)
   * @return a slice of the payload from the Arrow message's start to the payload's limit
   * @throws IllegalArgumentException if the payload is too short or its statistics length is wrong
   */
  public static ByteBuffer message(ByteBuffer payload) {
    int length = statisticsLength(payload);
    int start = payload.position() + 4 + length;
    return payload.slice(start, payload.limit() - start);
  }

  private static int statisticsLength(ByteBuffer payload) {
    if (payload.remaining() < 4) {
      throw new IllegalArgumentException(
          "Batch payload too short: " + payload.remaining() + " bytes");
    }
    int length = payload.getInt(payload.position());
    if (length < 0 || length > payload.remaining() - 4) {
      throw new IllegalArgumentException("Batch payload has a statistics length of " + length);
    }
    return length;
  }
}
