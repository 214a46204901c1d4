package io.lakestream.client.arrow;

import java.nio.ByteBuffer;

/**
 * How to assemble a projected record batch message from pieces of the original, so that a server
 * can send the kept buffers straight from a file: first {@link #metadata()}, then for each kept
 * buffer {@code i} the {@link #length(int)} bytes at {@link #sourceOffset(int)} of the original
 * message followed by {@link #padding(int)} zero bytes. The result is {@link #messageSize()} bytes
 * and equals what {@link ArrowBatchCodec#project} returns.
 *
 * <p>Internal: made by {@link ArrowBatchCodec#planProjection} for the server; not for applications.
 * Immutable.
 */
public final class ProjectionPlan {
  private final ByteBuffer metadata;
  private final long[] sourceOffsets;
  private final long[] lengths;
  private final int[] paddings;
  private final long messageSize;

  ProjectionPlan(
      ByteBuffer metadata, long[] sourceOffsets, long[] lengths, int[] paddings, long messageSize) {
    this.metadata = metadata;
    this.sourceOffsets = sourceOffsets;
    this.lengths = lengths;
    this.paddings = paddings;
    this.messageSize = messageSize;
  }

  /**
   * The continuation marker, metadata length and padded metadata of the new message.
   *
   * @return a view of the bytes to send first, positioned at 0
   */
  public ByteBuffer metadata() {
    return metadata.duplicate();
  }

  /**
   * The number of kept buffers.
   *
   * @return the count; indexes run from 0 to it
   */
  public int bufferCount() {
    return lengths.length;
  }

  /**
   * Where kept buffer {@code i} starts in the original message.
   *
   * @param i the kept buffer's index
   * @return the offset in bytes from the original message's start
   */
  public long sourceOffset(int i) {
    return sourceOffsets[i];
  }

  /**
   * The size of kept buffer {@code i}.
   *
   * @param i the kept buffer's index
   * @return its length in bytes, as stored (compressed or not)
   */
  public long length(int i) {
    return lengths[i];
  }

  /**
   * Zero bytes that follow kept buffer {@code i}, so the next one starts 8-byte aligned.
   *
   * @param i the kept buffer's index
   * @return 0 to 7
   */
  public int padding(int i) {
    return paddings[i];
  }

  /**
   * The size of the projected message.
   *
   * @return the metadata plus every kept buffer and its padding, in bytes
   */
  public long messageSize() {
    return messageSize;
  }
}
