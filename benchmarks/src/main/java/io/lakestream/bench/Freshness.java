package io.lakestream.bench;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One iteration's freshness: milliseconds from a write's ack to its arrival at a polling reader
 * (p50, p99, max), beside the same writes' own write-to-ack times, the baseline of the freshness
 * figures in BENCHMARKS.md. A benchmark's figures are the medians over its iterations; {@code
 * write} names the write in their baselines ({@code "append"} gives "append-to-ack p50").
 */
record Freshness(double p50, double p99, double max, double ackP50, double ackP99, double ackMax) {
  /** The percentiles of per-write samples; sorts both arrays in place. */
  static Freshness of(double[] freshnessMillis, double[] ackMillis) {
    Arrays.sort(freshnessMillis);
    Arrays.sort(ackMillis);
    return new Freshness(
        Percentile.of(freshnessMillis, 0.50),
        Percentile.of(freshnessMillis, 0.99),
        freshnessMillis[freshnessMillis.length - 1],
        Percentile.of(ackMillis, 0.50),
        Percentile.of(ackMillis, 0.99),
        ackMillis[ackMillis.length - 1]);
  }

  /** {@code freshness_ms_p50}: the median over the samples of their p50 freshness. */
  static <S> Figure p50Figure(List<S> samples, Function<S, Freshness> freshness, String write) {
    return Figure.withoutTarget(
        "freshness_ms_p50",
        Median.of(samples, s -> freshness.apply(s).p50()),
        "ms",
        write + "-to-ack p50",
        positive(Median.of(samples, s -> freshness.apply(s).ackP50())));
  }

  /** {@code freshness_ms_p99}, judged against the benchmark's target. */
  static <S> Figure p99Figure(
      List<S> samples, Function<S, Freshness> freshness, String write, double targetMillis) {
    return Figure.of(
        "freshness_ms_p99",
        Median.of(samples, s -> freshness.apply(s).p99()),
        "ms",
        write + "-to-ack p99",
        positive(Median.of(samples, s -> freshness.apply(s).ackP99())),
        Target.below(targetMillis));
  }

  /** {@code freshness_ms_max}. */
  static <S> Figure maxFigure(List<S> samples, Function<S, Freshness> freshness, String write) {
    return Figure.withoutTarget(
        "freshness_ms_max",
        Median.of(samples, s -> freshness.apply(s).max()),
        "ms",
        write + "-to-ack max",
        positive(Median.of(samples, s -> freshness.apply(s).ackMax())));
  }

  /** A baseline must be above 0 for its ratio; a sub-microsecond ack counts as 1 microsecond. */
  private static double positive(double value) {
    return Math.max(value, 0.001);
  }
}
