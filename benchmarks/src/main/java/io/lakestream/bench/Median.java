package io.lakestream.bench;

import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** Medians of per-iteration measurements. */
public final class Median {
  private Median() {}

  /** The median of one measurement over the samples; the mean of the middle two for even counts. */
  public static <T> double of(List<T> samples, ToDoubleFunction<T> measurement) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("Cannot take the median of no samples");
    }
    double[] values = samples.stream().mapToDouble(measurement).sorted().toArray();
    int middle = values.length / 2;
    return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  /** A value and the baseline measured beside it in the same iteration. */
  public record Pair(double value, double baseline) {
    public double ratio() {
      return value / baseline;
    }
  }

  /**
   * The iteration whose ratio of {@code value} to {@code baseline} is the median of the iterations'
   * ratios, as its two measurements (the mean of the middle two iterations' for even counts). Where
   * the machine's speed drifts between iterations, the medians of the two measurements taken apart
   * can come from iterations of different speeds, and their ratio be one that no iteration had;
   * each iteration's baseline ran minutes, not an iteration, from its value.
   */
  public static <T> Pair pairOf(
      List<T> samples, ToDoubleFunction<T> value, ToDoubleFunction<T> baseline) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("Cannot take the median of no samples");
    }
    List<Pair> pairs =
        samples.stream()
            .map(sample -> new Pair(value.applyAsDouble(sample), baseline.applyAsDouble(sample)))
            .sorted(Comparator.comparingDouble(Pair::ratio))
            .toList();
    int middle = pairs.size() / 2;
    if (pairs.size() % 2 == 1) {
      return pairs.get(middle);
    }
    Pair low = pairs.get(middle - 1);
    Pair high = pairs.get(middle);
    return new Pair((low.value() + high.value()) / 2, (low.baseline() + high.baseline()) / 2);
  }
}
