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
}
