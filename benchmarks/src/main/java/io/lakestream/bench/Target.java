package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.util.Locale;

/**
 * The goal a figure is judged against. A missed target is reported, never thrown.
 *
 * <p>Four kinds: {@link #below} bounds the figure's value from above, in the figure's own unit (a
 * time, a size, a count of faults); {@link #atLeast} bounds it from below (a throughput with an
 * absolute goal); {@link #ratioAtLeast} asks that the figure's ratio to its baseline reach a bound
 * (a throughput that should be some multiple of the baseline's); {@link #ratioAtMost} bounds the
 * ratio from above (a time that may cost at most some multiple of the baseline's).
 *
 * @param kind what is compared and how
 * @param bound the bound, positive and finite
 */
public record Target(Kind kind, double bound) {
  public Target {
    requireNonNull(kind, "kind is null");
    if (!Double.isFinite(bound) || bound <= 0) {
      throw new IllegalArgumentException("bound must be positive and finite: " + bound);
    }
  }

  /** The figure's value should stay strictly below {@code upperBound}. */
  public static Target below(double upperBound) {
    return new Target(Kind.VALUE_BELOW, upperBound);
  }

  /** The figure's value should be at least {@code lowerBound}. */
  public static Target atLeast(double lowerBound) {
    return new Target(Kind.VALUE_AT_LEAST, lowerBound);
  }

  /** The figure's ratio to its baseline should be at least {@code lowerBound}. */
  public static Target ratioAtLeast(double lowerBound) {
    return new Target(Kind.RATIO_AT_LEAST, lowerBound);
  }

  /** The figure's ratio to its baseline should be at most {@code upperBound}. */
  public static Target ratioAtMost(double upperBound) {
    return new Target(Kind.RATIO_AT_MOST, upperBound);
  }

  public boolean isMetBy(Figure figure) {
    return switch (kind) {
      case VALUE_BELOW -> figure.value() < bound;
      case VALUE_AT_LEAST -> figure.value() >= bound;
      case RATIO_AT_LEAST -> figure.ratio() >= bound;
      case RATIO_AT_MOST -> figure.ratio() <= bound;
    };
  }

  /** The target as the report shows it, e.g. {@code < 3000 ms} or {@code ratio >= 10}. */
  public String describe(String unit) {
    return switch (kind) {
      case VALUE_BELOW -> "< " + plain(bound) + " " + unit;
      case VALUE_AT_LEAST -> ">= " + plain(bound) + " " + unit;
      case RATIO_AT_LEAST -> "ratio >= " + plain(bound);
      case RATIO_AT_MOST -> "ratio <= " + plain(bound);
    };
  }

  private static String plain(double number) {
    return number == Math.rint(number)
        ? Long.toString((long) number)
        : String.format(Locale.ROOT, "%s", number);
  }

  /** What a target compares, and how; the name is the target's key in the JSON report. */
  public enum Kind {
    VALUE_BELOW("below"),
    VALUE_AT_LEAST("atLeast"),
    RATIO_AT_LEAST("ratioAtLeast"),
    RATIO_AT_MOST("ratioAtMost");

    private final String jsonKey;

    Kind(String jsonKey) {
      this.jsonKey = jsonKey;
    }

    public String jsonKey() {
      return jsonKey;
    }
  }
}
