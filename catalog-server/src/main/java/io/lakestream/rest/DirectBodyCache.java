package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Off-heap copies of answer bodies that are sent again and again (the cached loadTable answers), so
 * that sending one does not copy it from the heap into a fresh direct buffer each time, as the
 * socket write of a heap buffer must. Keyed by the identity of the body array, which the caches
 * above hand out unchanged for as long as the content stays current; least recently used first out
 * once the copies exceed a byte budget.
 *
 * <p>The cache holds one reference to each copy and hands out retained duplicates: the write that
 * sends one releases it, and a copy evicted while still being sent is freed when the last send
 * ends. Thread safe.
 */
final class DirectBodyCache implements AutoCloseable {
  /** A body array by identity: two equal arrays are two entries, one array is one. */
  private record Identity(byte[] body) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Identity identity && identity.body == body;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(body);
    }
  }

  private final long maxBytes;
  private final Map<Identity, ByteBuf> copies = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;
  private boolean closed;

  /**
   * @param maxBytes the budget of off-heap copies; a larger body is never copied
   */
  DirectBodyCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * The body as a direct buffer for one send, which must release it (writing it does). The array
   * must not change afterwards.
   */
  ByteBuf retainedCopy(byte[] body) {
    requireNonNull(body, "body is null");
    if (body.length > maxBytes) {
      return Unpooled.wrappedBuffer(body);
    }
    Identity key = new Identity(body);
    synchronized (copies) {
      if (closed) {
        return Unpooled.wrappedBuffer(body);
      }
      ByteBuf copy = copies.get(key);
      if (copy == null) {
        copy = Unpooled.directBuffer(body.length).writeBytes(body);
        copies.put(key, copy);
        bytes += body.length;
        evictBeyondBudget();
      }
      return copy.retainedDuplicate();
    }
  }

  private void evictBeyondBudget() {
    Iterator<ByteBuf> oldestFirst = copies.values().iterator();
    while (bytes > maxBytes && oldestFirst.hasNext()) {
      ByteBuf evicted = oldestFirst.next();
      oldestFirst.remove();
      bytes -= evicted.capacity();
      evicted.release();
    }
  }

  /** Bytes of off-heap copies held (not counting evicted copies still being sent). */
  long bytes() {
    synchronized (copies) {
      return bytes;
    }
  }

  /** Releases every copy; copies still being sent are freed when their sends end. */
  @Override
  public void close() {
    synchronized (copies) {
      closed = true;
      copies.values().forEach(ByteBuf::release);
      copies.clear();
      bytes = 0;
    }
  }
}
