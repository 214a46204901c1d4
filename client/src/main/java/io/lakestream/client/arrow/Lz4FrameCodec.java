package io.lakestream.client.arrow;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's {@code LZ4_FRAME} buffer codec on lz4-java. Arrow's own LZ4 codec uses commons-compress's
 * pure-Java compressor, which needed minutes for a 2 MB batch, and on a frame shorter than its
 * declared length it leaks the output buffer. Frames are standard LZ4 frames (64 KiB independent
 * blocks), readable by every Arrow implementation. Stateless and thread-safe.
 */
final class Lz4FrameCodec extends AbstractCompressionCodec {
  private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
  private static final XXHashFactory XXHASH = XXHashFactory.fastestInstance();

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer) {
    byte[] input = new byte[(int) uncompressedBuffer.writerIndex()];
    uncompressedBuffer.getBytes(0, input);
    ByteArrayOutputStream out = new ByteArrayOutputStream(input.length / 2 + 64);
    try (LZ4FrameOutputStream frame =
        new LZ4FrameOutputStream(
            out,
            LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
            -1L,
            LZ4.fastCompressor(),
            XXHASH.hash32(),
            LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
      frame.write(input);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write to an in-memory stream", e);
    }
    byte[] compressed = out.toByteArray();
    ArrowBuf result =
        allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + compressed.length);
    result.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, compressed);
    result.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + compressed.length);
    return result;
  }

  /**
   * Decompresses into a buffer of exactly the declared length; fails with {@link
   * InvalidBatchFormatException} before allocating Arrow memory if the frame is invalid or holds
   * another number of bytes.
   */
  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressedBuffer) {
    long declared = readUncompressedLength(compressedBuffer);
    if (declared > Integer.MAX_VALUE - 8) {
      throw new InvalidBatchFormatException(
          "LZ4 buffer declares " + declared + " uncompressed bytes, more than one array holds");
    }
    byte[] input =
        new byte
            [(int) (compressedBuffer.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH)];
    compressedBuffer.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, input);
    byte[] output = new byte[(int) declared];
    try (InputStream frame =
        new LZ4FrameInputStream(
            new ByteArrayInputStream(input), LZ4.safeDecompressor(), XXHASH.hash32())) {
      int read = frame.readNBytes(output, 0, output.length);
      if (read != output.length || frame.read() != -1) {
        throw new InvalidBatchFormatException(
            "LZ4 buffer declares "
                + declared
                + " uncompressed bytes but its frame holds "
                + (read < output.length ? Integer.toString(read) : "more"));
      }
    } catch (IOException e) {
      throw new InvalidBatchFormatException(
          "LZ4 buffer is not a valid frame: " + e.getMessage(), e);
    }
    ArrowBuf result = allocator.buffer(declared);
    result.setBytes(0, output);
    result.writerIndex(declared);
    return result;
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.LZ4_FRAME;
  }
}
