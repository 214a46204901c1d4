package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One figure of a benchmark report, beside its baseline measured in the same run on the same
 * machine (see {@code BENCHMARKS.md}).
 *
 * <p>{@code value} and {@code baselineValue} are in the same {@code unit} and are medians over the
 * measured iterations, except for counts of faults (failed requests, lost commits), which are
 * totals over every iteration so that a single fault shows; their baseline then says what the count
 * is out of. {@code ratio} is {@code value / baselineValue}: for a time or a size, a ratio of 30
 * means Lakestream costs thirty times what the baseline does; for a throughput, a ratio of 30 means
 * Lakestream does thirty times as much. Values are finite and not negative; baseline values are
 * positive, so the ratio is always defined.
 *
 * @param name snake_case identifier ending in its unit, stable across runs, e.g. {@code ready_ms}
 * @param value the measured median
 * @param unit the unit of {@code value} and {@code baselineValue}, e.g. {@code ms} or {@code MiB}
 * @param baseline what the baseline measured, in a few words
 * @param baselineValue the baseline's median
 * @param ratio {@code value / baselineValue}
 * @param target the goal the figure is judged against, when it has one
 */
public record Figure(
    String name,
    double value,
    String unit,
    String baseline,
    double baselineValue,
    double ratio,
    Optional<Target> target) {

  public Figure {
    requireNonNull(name, "name is null");
    requireNonNull(unit, "unit is null");
    requireNonNull(baseline, "baseline is null");
    requireNonNull(target, "target is null");
    if (!Double.isFinite(value) || value < 0) {
      throw new IllegalArgumentException("Figure " + name + ": value must be finite and >= 0");
    }
    if (!Double.isFinite(baselineValue) || baselineValue <= 0) {
      throw new IllegalArgumentException(
          "Figure " + name + ": baselineValue must be finite and > 0, got " + baselineValue);
    }
    if (!Double.isFinite(ratio) || ratio < 0) {
      throw new IllegalArgumentException("Figure " + name + ": ratio must be finite and >= 0");
    }
  }

  /** A figure with a target, its ratio computed from the value and the baseline value. */
  public static Figure of(
      String name,
      double value,
      String unit,
      String baseline,
      double baselineValue,
      Target target) {
    return new Figure(
        name,
        value,
        unit,
        baseline,
        baselineValue,
        value / baselineValue,
        Optional.of(requireNonNull(target, "target is null")));
  }

  /** A figure reported beside its baseline but judged against no target. */
  public static Figure withoutTarget(
      String name, double value, String unit, String baseline, double baselineValue) {
    return new Figure(
        name, value, unit, baseline, baselineValue, value / baselineValue, Optional.empty());
  }
}
