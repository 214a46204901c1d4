package io.lakestream.bench;

/** Percentiles of one iteration's samples. */
public final class Percentile {
  private Percentile() {}

  /** Nearest-rank percentile of sorted, non-empty values; {@code fraction} in (0, 1]. */
  public static double of(double[] sorted, double fraction) {
    int rank = (int) Math.ceil(fraction * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
