package io.lakestream.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Point lookups of a fixed key sequence from a number of threads, each with one lookup in flight:
 * throughput over the whole run and the latency of each lookup.
 */
final class PointLookups {
  private PointLookups() {}

  /** One lookup; returns whether the key was found. */
  @FunctionalInterface
  interface Lookup {
    boolean find(long key) throws Exception;
  }

  /**
   * What a run measured.
   *
   * @param perSecond lookups per second, first start to last finish
   * @param p50Micros median latency in microseconds
   * @param p99Micros 99th percentile latency in microseconds
   * @param found how many keys were found
   */
  record Result(double perSecond, double p50Micros, double p99Micros, long found) {}

  /** Looks up every key once, the keys split evenly between {@code threads} threads. */
  static Result run(long[] keys, int threads, Lookup lookup) throws Exception {
    double[] latencies = new double[keys.length];
    long[] found = new long[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>(threads);
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(
          Thread.ofPlatform()
              .name("point-lookups-" + t)
              .daemon()
              .start(
                  () -> {
                    try {
                      for (int i = thread; i < keys.length; i += threads) {
                        long begin = System.nanoTime();
                        boolean hit = lookup.find(keys[i]);
                        latencies[i] = (System.nanoTime() - begin) / 1e3;
                        if (hit) {
                          found[thread]++;
                        }
                      }
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    for (Thread worker : workers) {
      worker.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException("A point lookup failed", failure.get());
    }
    Arrays.sort(latencies);
    return new Result(
        keys.length / seconds,
        Percentile.of(latencies, 0.50),
        Percentile.of(latencies, 0.99),
        Arrays.stream(found).sum());
  }
}
