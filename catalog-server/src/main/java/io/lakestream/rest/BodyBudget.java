package io.lakestream.rest;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap that request bodies of all connections may hold together, from their first byte until
 * their answer is written. Reservations either fit whole or fail; nothing waits. Thread safe.
 */
final class BodyBudget {
  private final long limit;
  private final AtomicLong used = new AtomicLong();

  BodyBudget(long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit is not positive: " + limit);
    }
    this.limit = limit;
  }

  /** Reserves {@code bytes} if they fit under the limit with every reservation still held. */
  boolean tryReserve(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes is negative: " + bytes);
    }
    while (true) {
      long current = used.get();
      if (current + bytes > limit) {
        return false;
      }
      if (used.compareAndSet(current, current + bytes)) {
        return true;
      }
    }
  }

  /** Gives back bytes an earlier {@link #tryReserve} took. */
  void release(long bytes) {
    used.addAndGet(-bytes);
  }

  long limit() {
    return limit;
  }

  long used() {
    return used.get();
  }
}
