package io.lakestream.bench;

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

  /**
   * The median of the samples' ratios of {@code value} to {@code baseline}, each sample's two
   * measured in the same iteration. Where the machine's speed drifts between iterations, the
   * medians of the two measurements taken apart can come from iterations of different speeds, and
   * their ratio be one that no iteration had.
   */
  public static <T> double ofRatios(
      List<T> samples, ToDoubleFunction<T> value, ToDoubleFunction<T> baseline) {
    return of(samples, sample -> value.applyAsDouble(sample) / baseline.applyAsDouble(sample));
  }
}
