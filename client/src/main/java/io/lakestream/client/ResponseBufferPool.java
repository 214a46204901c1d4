package io.lakestream.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Direct buffers for fetch responses, kept between the scanners of one connection. A new direct
 * buffer is zeroed first, so a scanner that allocated one per response (one per union read of a
 * query, one per scan of a benchmark) paid that on every use. A response gets a buffer of about its
 * own size, in size classes a quarter of a power of two apart (at most a quarter wasted), so that a
 * scan of many buckets, whose responses are small, does not hold a large buffer for each. Kept
 * buffers are bounded by their bytes; a response takes a kept buffer of its class or one up to half
 * again as large. Thread safe.
 */
final class ResponseBufferPool {
  /** The smallest buffer handed out. */
  static final int MIN_CAPACITY = 64 << 10;

  private final long maxKeptBytes;
  private final TreeMap<Integer, ArrayDeque<ByteBuffer>> kept = new TreeMap<>();
  private long keptBytes;
  private int keptCount;

  /**
   * @param maxKeptBytes bytes of buffers kept at most; more given back are left to the garbage
   *     collector
   */
  ResponseBufferPool(long maxKeptBytes) {
    if (maxKeptBytes < 0) {
      throw new IllegalArgumentException("maxKeptBytes must not be negative: " + maxKeptBytes);
    }
    this.maxKeptBytes = maxKeptBytes;
  }

  /** The capacity of the buffer a response of {@code size} bytes gets: its size class. */
  static int capacityFor(int size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must not be negative: " + size);
    }
    if (size <= MIN_CAPACITY) {
      return MIN_CAPACITY;
    }
    long granule = Integer.highestOneBit(size) >> 2;
    long capacity = (size + granule - 1) / granule * granule;
    return (int) Math.min(capacity, Integer.MAX_VALUE - 8);
  }

  /**
   * A cleared buffer of at least {@code size} bytes: a kept one of its size class or up to half
   * again as large, or a new one of its size class.
   */
  synchronized ByteBuffer take(int size) {
    int capacity = capacityFor(size);
    Map.Entry<Integer, ArrayDeque<ByteBuffer>> fitting = kept.ceilingEntry(capacity);
    if (fitting != null && fitting.getKey() <= capacity + (capacity >> 1)) {
      ByteBuffer buffer = fitting.getValue().poll();
      if (fitting.getValue().isEmpty()) {
        kept.remove(fitting.getKey());
      }
      keptBytes -= buffer.capacity();
      keptCount--;
      return buffer.clear();
    }
    return ByteBuffer.allocateDirect(capacity);
  }

  /** Keeps a buffer no one uses any more, unless that would keep more than the bound. */
  synchronized void give(ByteBuffer buffer) {
    if (buffer.isDirect() && keptBytes + buffer.capacity() <= maxKeptBytes) {
      kept.computeIfAbsent(buffer.capacity(), ignored -> new ArrayDeque<>()).add(buffer);
      keptBytes += buffer.capacity();
      keptCount++;
    }
  }

  synchronized int kept() {
    return keptCount;
  }

  synchronized long keptBytes() {
    return keptBytes;
  }

  /** Lets every kept buffer go. */
  synchronized void clear() {
    kept.clear();
    keptBytes = 0;
    keptCount = 0;
  }
}
