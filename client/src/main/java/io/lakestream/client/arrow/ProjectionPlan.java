package io.lakestream.client.arrow;

import java.nio.ByteBuffer;

/**
 * How to assemble a projected record batch message from pieces of the original, so that a server
 * can send the kept buffers straight from a file: first {@link #metadata()}, then for each kept
 * buffer {@code i} the {@link #length(int)} bytes at {@link #sourceOffset(int)} of the original
 * message followed by {@link #padding(int)} zero bytes. The result is {@link #messageSize()} bytes
 * and equals what {@link ArrowBatchCodec#project} returns.
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

  /** The continuation marker, metadata length and padded metadata of the new message. */
  public ByteBuffer metadata() {
    return metadata.duplicate();
  }

  public int bufferCount() {
    return lengths.length;
  }

  /** Where kept buffer {@code i} starts in the original message. */
  public long sourceOffset(int i) {
    return sourceOffsets[i];
  }

  public long length(int i) {
    return lengths[i];
  }

  /** Zero bytes that follow kept buffer {@code i}, so the next one starts 8-byte aligned. */
  public int padding(int i) {
    return paddings[i];
  }

  public long messageSize() {
    return messageSize;
  }
}
