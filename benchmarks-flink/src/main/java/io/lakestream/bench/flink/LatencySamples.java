package io.lakestream.bench.flink;

import java.util.Arrays;

/**
 * Send-to-read latencies of rows with ids in a window {@code [from, to)}, recorded by one reader
 * thread and read by the benchmark thread. Rows outside the window only move {@link #highestId()}.
 * Thread safe.
 */
final class LatencySamples {
  private long from;
  private long[] micros = new long[0];
  private boolean[] seen = new boolean[0];
  private int count;
  private long highestId = -1;

  /** Starts a new window of ids {@code [from, to)}, forgetting the previous one. */
  synchronized void window(long from, long to) {
    this.from = from;
    this.micros = new long[Math.toIntExact(to - from)];
    this.seen = new boolean[micros.length];
    this.count = 0;
  }

  synchronized void record(long id, long latencyMicros) {
    highestId = Math.max(highestId, id);
    long index = id - from;
    if (index >= 0 && index < micros.length && !seen[(int) index]) {
      seen[(int) index] = true;
      micros[(int) index] = latencyMicros;
      count++;
    }
  }

  /** The highest id read so far, -1 before the first. */
  synchronized long highestId() {
    return highestId;
  }

  /** Whether every row of the window has been read. */
  synchronized boolean complete() {
    return count == micros.length;
  }

  /** The window's latencies in milliseconds, sorted; call once {@link #complete()}. */
  synchronized double[] sortedMillis() {
    double[] millis = Arrays.stream(micros).mapToDouble(m -> m / 1000.0).toArray();
    Arrays.sort(millis);
    return millis;
  }
}
