package io.lakestream.client.arrow;

import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * How the buffers of a record batch message are compressed. Arrow compresses each buffer on its own
 * (body compression method {@code BUFFER}), so a projection can copy compressed buffers unchanged.
 * A buffer that would grow is stored uncompressed, as the Arrow format allows.
 */
public enum Compression {
  /** Buffers are stored as they are in memory. */
  NONE(CompressionUtil.CodecType.NO_COMPRESSION),
  /** LZ4 frame format per buffer (lz4-java): fast, modest ratio. */
  LZ4(CompressionUtil.CodecType.LZ4_FRAME),
  /** Zstandard level 1 per buffer: better ratio than LZ4, slower. */
  ZSTD(CompressionUtil.CodecType.ZSTD);

  private final CompressionUtil.CodecType codecType;

  Compression(CompressionUtil.CodecType codecType) {
    this.codecType = codecType;
  }

  CompressionUtil.CodecType codecType() {
    return codecType;
  }
}
