package io.lakestream.bench;

/**
 * The goal a figure is judged against: the figure should stay strictly below {@code upperBound}, in
 * the figure's own unit. A missed target is reported, never thrown.
 */
public record Target(double upperBound) {
  public Target {
    if (!Double.isFinite(upperBound) || upperBound <= 0) {
      throw new IllegalArgumentException("upperBound must be positive and finite: " + upperBound);
    }
  }

  public static Target below(double upperBound) {
    return new Target(upperBound);
  }

  public boolean isMetBy(double value) {
    return value < upperBound;
  }
}
