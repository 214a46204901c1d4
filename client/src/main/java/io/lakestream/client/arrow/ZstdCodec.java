package io.lakestream.client.arrow;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import java.util.concurrent.ArrayBlockingQueue;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's {@code ZSTD} buffer codec on zstd-jni, with compression and decompression contexts kept
 * for reuse. Arrow's own ZSTD codec calls zstd's one-shot functions, which set up and free a
 * context for every buffer: about 14 us a call on the 2-core machine, as much as compressing 16 KB,
 * and a batch of 20 columns has some 50 buffers each way. Frames are standard ZSTD frames, readable
 * by every Arrow implementation. Thread-safe: a call borrows a context from a small shared pool
 * (callers are often virtual threads, for which thread-local contexts would not be reused).
 */
final class ZstdCodec extends AbstractCompressionCodec {
  /** Idle contexts kept per kind; more are created when needed and closed when not kept. */
  private static final int POOLED = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

  private static final ArrayBlockingQueue<ZstdCompressCtx> COMPRESSORS =
      new ArrayBlockingQueue<>(POOLED);
  private static final ArrayBlockingQueue<ZstdDecompressCtx> DECOMPRESSORS =
      new ArrayBlockingQueue<>(POOLED);

  private final int level;

  /** A codec compressing at a ZSTD level; every level decompresses every frame. */
  ZstdCodec(int level) {
    this.level = level;
  }

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer) {
    long length = uncompressedBuffer.writerIndex();
    long bound = Zstd.compressBound(length);
    if (bound > Integer.MAX_VALUE - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
      throw new IllegalArgumentException("A buffer of " + length + " bytes is too large for ZSTD");
    }
    ArrowBuf result = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + bound);
    ZstdCompressCtx context = COMPRESSORS.poll();
    if (context == null) {
      context = new ZstdCompressCtx();
    }
    boolean reusable = false;
    try {
      context.setLevel(level);
      int written =
          context.compressDirectByteBuffer(
              result.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, (int) bound),
              0,
              (int) bound,
              uncompressedBuffer.nioBuffer(0, (int) length),
              0,
              (int) length);
      result.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + written);
      reusable = true;
      return result;
    } catch (RuntimeException e) {
      result.close();
      throw e;
    } finally {
      release(context, reusable, COMPRESSORS);
    }
  }

  /**
   * Decompresses into a buffer of exactly the declared length; fails with {@link
   * InvalidBatchFormatException} if the frame is invalid or holds another number of bytes.
   */
  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressedBuffer) {
    long declared = readUncompressedLength(compressedBuffer);
    long length = compressedBuffer.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
    if (declared > Integer.MAX_VALUE - 8 || length > Integer.MAX_VALUE) {
      throw new InvalidBatchFormatException(
          "ZSTD buffer declares " + declared + " uncompressed bytes, more than one buffer holds");
    }
    ArrowBuf result = allocator.buffer(declared);
    ZstdDecompressCtx context = DECOMPRESSORS.poll();
    if (context == null) {
      context = new ZstdDecompressCtx();
    }
    boolean reusable = false;
    try {
      int read =
          context.decompressDirectByteBuffer(
              result.nioBuffer(0, (int) declared),
              0,
              (int) declared,
              compressedBuffer.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, (int) length),
              0,
              (int) length);
      reusable = true;
      if (read != declared) {
        throw new InvalidBatchFormatException(
            "ZSTD buffer declares " + declared + " uncompressed bytes but its frame holds " + read);
      }
      result.writerIndex(declared);
      return result;
    } catch (RuntimeException e) {
      result.close();
      throw e;
    } finally {
      release(context, reusable, DECOMPRESSORS);
    }
  }

  /** Returns a context to its pool, or closes it: after a failure, or when the pool is full. */
  private static <T extends AutoCloseable> void release(
      T context, boolean reusable, ArrayBlockingQueue<T> pool) {
    if (reusable && pool.offer(context)) {
      return;
    }
    try {
      context.close();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot close a ZSTD context", e);
    }
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.ZSTD;
  }
}
