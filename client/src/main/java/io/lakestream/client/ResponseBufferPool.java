package io.lakestream.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Direct buffers for fetch responses, kept between the scanners of one connection. A scanner
 * allocates buffers of several megabytes, and a new direct buffer is zeroed first: a short-lived
 * scanner (one per union read of a query, one per scan of a benchmark) paid that on every use.
 * Thread safe.
 */
final class ResponseBufferPool {
  private final int maxKept;
  private final ArrayDeque<ByteBuffer> kept = new ArrayDeque<>();

  /**
   * @param maxKept buffers kept at most; more given back are left to the garbage collector
   */
  ResponseBufferPool(int maxKept) {
    if (maxKept < 0) {
      throw new IllegalArgumentException("maxKept must not be negative: " + maxKept);
    }
    this.maxKept = maxKept;
  }

  /** A kept buffer of at least {@code capacity} bytes, or a new one of {@code capacity}. */
  synchronized ByteBuffer take(int capacity) {
    ByteBuffer buffer = kept.poll();
    if (buffer != null && buffer.capacity() >= capacity) {
      return buffer.clear();
    }
    return ByteBuffer.allocateDirect(capacity);
  }

  /** Keeps a buffer no one uses any more, unless enough are kept. */
  synchronized void give(ByteBuffer buffer) {
    if (buffer.isDirect() && kept.size() < maxKept) {
      kept.add(buffer);
    }
  }

  synchronized int kept() {
    return kept.size();
  }

  /** Lets every kept buffer go. */
  synchronized void clear() {
    kept.clear();
  }
}
