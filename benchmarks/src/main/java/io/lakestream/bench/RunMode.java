package io.lakestream.bench;

import java.util.Locale;

/**
 * How long a benchmark runs. {@link #FULL} reports medians of {@link #measuredIterations()} after
 * {@link #warmupIterations()} discarded ones, and its figures are the ones judged. {@link #QUICK}
 * runs once without warm-up so the test suite can check in seconds that a benchmark still works;
 * its figures are never judged.
 */
public enum RunMode {
  QUICK(0, 1),
  FULL(1, 5);

  private final int warmupIterations;
  private final int measuredIterations;

  RunMode(int warmupIterations, int measuredIterations) {
    this.warmupIterations = warmupIterations;
    this.measuredIterations = measuredIterations;
  }

  /** Iterations run first and discarded. */
  public int warmupIterations() {
    return warmupIterations;
  }

  /** Iterations whose median is reported. */
  public int measuredIterations() {
    return measuredIterations;
  }

  /** The name used in reports: {@code quick} or {@code full}. */
  public String displayName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
