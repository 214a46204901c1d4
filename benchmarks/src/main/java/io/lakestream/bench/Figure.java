package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * One figure of a benchmark report, beside its baseline measured in the same run on the same
 * machine (see {@code BENCHMARKS.md}).
 *
 * <p>{@code value} and {@code baselineValue} are in the same {@code unit} and are medians over the
 * measured iterations, except for counts of faults (failed requests, lost commits), which are
 * totals over every iteration so that a single fault shows; their baseline then says what the count
 * is out of. {@code ratio} is {@code value / baselineValue}, except for a figure whose value and
 * baseline are both measured in every iteration ({@link #paired}): its ratio is the median of the
 * iterations' own ratios, close to but not always exactly the ratio of the two medians. For a time
 * or a size, a ratio of 30 means Lakestream costs thirty times what the baseline does; for a
 * throughput, a ratio of 30 means Lakestream does thirty times as much. Values are finite and not
 * negative; baseline values are positive, so the ratio is always defined.
 *
 * <p>A figure that could not be measured in this run (a peer system that is not available, or a
 * workload it does not support) is {@linkplain #skipped reported as skipped} with the reason: its
 * baseline value and ratio are then NaN, its value NaN unless Lakestream's side was measured, and
 * its target is neither met nor missed.
 *
 * @param name snake_case identifier ending in its unit, stable across runs, e.g. {@code ready_ms}
 * @param value the measured median
 * @param unit the unit of {@code value} and {@code baselineValue}, e.g. {@code ms} or {@code MiB}
 * @param baseline what the baseline measured, in a few words
 * @param baselineValue the baseline's median
 * @param ratio {@code value / baselineValue}
 * @param target the goal the figure is judged against, when it has one
 * @param skippedReason why the figure was not measured, for a skipped figure
 */
public record Figure(
    String name,
    double value,
    String unit,
    String baseline,
    double baselineValue,
    double ratio,
    Optional<Target> target,
    Optional<String> skippedReason) {

  public Figure {
    requireNonNull(name, "name is null");
    requireNonNull(unit, "unit is null");
    requireNonNull(baseline, "baseline is null");
    requireNonNull(target, "target is null");
    requireNonNull(skippedReason, "skippedReason is null");
    if (skippedReason.isPresent()) {
      if (!Double.isNaN(baselineValue) || !Double.isNaN(ratio)) {
        throw new IllegalArgumentException(
            "Figure " + name + ": a skipped figure has NaN for baselineValue and ratio");
      }
      if (!Double.isNaN(value) && (!Double.isFinite(value) || value < 0)) {
        throw new IllegalArgumentException(
            "Figure " + name + ": value must be NaN, or finite and >= 0");
      }
    } else {
      checkMeasured(name, value, baselineValue, ratio);
    }
  }

  private static void checkMeasured(String name, double value, double baselineValue, double ratio) {
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

  /** A measured figure. */
  public Figure(
      String name,
      double value,
      String unit,
      String baseline,
      double baselineValue,
      double ratio,
      Optional<Target> target) {
    this(name, value, unit, baseline, baselineValue, ratio, target, Optional.empty());
  }

  /**
   * A figure whose baseline was not measured in this run, for {@code reason} (e.g. "Kafka is not
   * available: ..."), with Lakestream's {@code value} if it was measured (NaN if not) and the
   * target it would have been judged against.
   */
  public static Figure skipped(
      String name,
      double value,
      String unit,
      String baseline,
      Optional<Target> target,
      String reason) {
    return new Figure(
        name,
        value,
        unit,
        baseline,
        Double.NaN,
        Double.NaN,
        target,
        Optional.of(requireNonNull(reason, "reason is null")));
  }

  /** Whether the figure was not measured; see {@link #skippedReason()}. */
  public boolean isSkipped() {
    return skippedReason.isPresent();
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

  /**
   * A figure of a value and its baseline both measured in every iteration: the value and the
   * baseline value are their medians, the ratio is the median of the iterations' own ratios ({@link
   * Median#ofRatios}). Each iteration measures the two seconds or minutes apart, the iterations
   * further apart on a machine whose speed drifts, so the ratio of the two medians can pair a fast
   * iteration's value with a slow one's baseline, a ratio no iteration had.
   */
  public static <T> Figure paired(
      String name,
      List<T> samples,
      ToDoubleFunction<T> value,
      String unit,
      String baseline,
      ToDoubleFunction<T> baselineValue,
      Target target) {
    return paired(
        name,
        samples,
        value,
        unit,
        baseline,
        baselineValue,
        Optional.of(requireNonNull(target, "target is null")));
  }

  /** {@link #paired} without a target. */
  public static <T> Figure pairedWithoutTarget(
      String name,
      List<T> samples,
      ToDoubleFunction<T> value,
      String unit,
      String baseline,
      ToDoubleFunction<T> baselineValue) {
    return paired(name, samples, value, unit, baseline, baselineValue, Optional.empty());
  }

  private static <T> Figure paired(
      String name,
      List<T> samples,
      ToDoubleFunction<T> value,
      String unit,
      String baseline,
      ToDoubleFunction<T> baselineValue,
      Optional<Target> target) {
    return new Figure(
        name,
        Median.of(samples, value),
        unit,
        baseline,
        Median.of(samples, baselineValue),
        Median.ofRatios(samples, value, baselineValue),
        target);
  }
}
