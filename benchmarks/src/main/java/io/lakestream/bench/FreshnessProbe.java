package io.lakestream.bench;

import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * The freshness measurement the streaming benchmarks share: a daemon thread polls a subscribed
 * scanner and records each arriving row's marker with its arrival time, while the benchmark writes
 * one sample row at a time and flushes it. A sample's freshness is the time from the flush's return
 * (the ack) to its row's arrival; its baseline is the time from the write to the ack. Only the
 * write and flush are timed: preparing a sample's row is not.
 */
final class FreshnessProbe {
  private static final Duration POLL = Duration.ofMillis(50);
  private static final long ARRIVAL_TIMEOUT_SECONDS = 10;

  private FreshnessProbe() {}

  /** What a benchmark writes and how the poller recognises it. */
  interface Samples {
    /** Adds the marker of each row of {@code batch} that may be a sample's arrival. */
    void markers(ScanBatch batch, LongConsumer markers);

    /** Prepares sample {@code n}'s row (untimed) and returns the marker its arrival carries. */
    long prepare(int n);

    /** Writes the prepared row and flushes it, returning once it is acknowledged (timed). */
    void writeAndFlush() throws Exception;

    /** Whether an arrival with {@code marker} is (or is past) the one expected. */
    boolean arrived(long marker, long expected);

    /** The failure message when sample {@code n}'s row never arrives. */
    String neverArrived(int n, long expected);
  }

  /** Measures {@code count} samples through {@code scanner}, already subscribed. */
  static Freshness measure(LogScanner scanner, int count, Samples samples) throws Exception {
    LinkedBlockingQueue<long[]> arrivals = new LinkedBlockingQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch polling = new CountDownLatch(1);
    Thread poller =
        Thread.ofPlatform()
            .name("freshness-poller")
            .daemon()
            .start(
                () -> {
                  try {
                    polling.countDown();
                    while (!stop.get()) {
                      for (ScanBatch batch : scanner.poll(POLL)) {
                        long now = System.nanoTime();
                        try (batch) {
                          samples.markers(batch, marker -> arrivals.add(new long[] {marker, now}));
                        }
                      }
                    }
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
    if (!polling.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("The freshness poller did not start");
    }
    double[] freshness = new double[count];
    double[] ack = new double[count];
    try {
      for (int n = 0; n < count; n++) {
        long expected = samples.prepare(n);
        long writeStart = System.nanoTime();
        samples.writeAndFlush();
        long acked = System.nanoTime();
        long[] arrival;
        do {
          arrival = arrivals.poll(ARRIVAL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
          if (arrival == null) {
            throw new IllegalStateException(samples.neverArrived(n, expected), failure.get());
          }
        } while (!samples.arrived(arrival[0], expected));
        freshness[n] = Math.max(0, arrival[1] - acked) / 1e6;
        ack[n] = (acked - writeStart) / 1e6;
      }
    } finally {
      stop.set(true);
      poller.join(5000);
    }
    return Freshness.of(freshness, ack);
  }
}
