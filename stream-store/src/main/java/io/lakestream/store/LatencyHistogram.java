package io.lakestream.store;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of durations by fixed upper bounds, for a Prometheus histogram read at scrape time: one
 * {@link #record} costs a short scan of the bounds and two adder increments, so it may run on the
 * network thread for every request. Thread safe; a {@link #snapshot()} taken while others record
 * may see a count without its sum (the skew Prometheus histograms tolerate).
 */
public final class LatencyHistogram {
  /** Upper bounds, in seconds, from 50 microseconds to 10 seconds. */
  public static final List<Double> UPPER_BOUNDS_SECONDS =
      List.of(
          0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
          1.0, 2.5, 10.0);

  private static final long[] UPPER_BOUNDS_NANOS =
      UPPER_BOUNDS_SECONDS.stream().mapToLong(bound -> Math.round(bound * 1e9)).toArray();

  /** One adder per bound plus the last for durations above every bound; not cumulative. */
  private final LongAdder[] counts = new LongAdder[UPPER_BOUNDS_NANOS.length + 1];

  private final DoubleAdder sumSeconds = new DoubleAdder();

  public LatencyHistogram() {
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  /** Records one duration; a negative one (a clock step) counts as zero. */
  public void record(long nanos) {
    long duration = Math.max(0, nanos);
    int index = 0;
    while (index < UPPER_BOUNDS_NANOS.length && duration > UPPER_BOUNDS_NANOS[index]) {
      index++;
    }
    counts[index].increment();
    sumSeconds.add(duration / 1e9);
  }

  /**
   * The counts so far.
   *
   * @param counts durations in each bucket, not cumulative: {@code counts[i]} are those at most
   *     {@link #UPPER_BOUNDS_SECONDS}{@code [i]} and above the bound before it, and the last those
   *     above every bound
   * @param sumSeconds the sum of every recorded duration
   */
  public record Snapshot(long[] counts, double sumSeconds) {
    public Snapshot {
      counts = counts.clone();
    }

    public long count() {
      return Arrays.stream(counts).sum();
    }
  }

  public Snapshot snapshot() {
    long[] values = new long[counts.length];
    for (int i = 0; i < counts.length; i++) {
      values[i] = counts[i].sum();
    }
    return new Snapshot(values, sumSeconds.sum());
  }
}
