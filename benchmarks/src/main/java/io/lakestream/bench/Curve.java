package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How figures change as the work grows: a named curve of the {@code scaling} benchmark, with one
 * series per measured quantity over the same sizes (tables, buckets, seconds of a soak). The first
 * size is every series' baseline, so each point becomes a {@link Figure} beside the same quantity
 * at the smallest size.
 *
 * @param name snake_case name, the prefix of the curve's figures and the chart file's suffix
 * @param title the chart's title
 * @param sizeLabel what the sizes count, plural, e.g. {@code tables}; the x axis label
 * @param logarithmicSizes whether sizes grow by factors (a logarithmic x axis) or by steps
 * @param series the measured quantities, at least one, each with a value for every size
 */
record Curve(
    String name, String title, String sizeLabel, boolean logarithmicSizes, List<Series> series) {
  Curve {
    requireNonNull(name, "name is null");
    requireNonNull(title, "title is null");
    requireNonNull(sizeLabel, "sizeLabel is null");
    series = List.copyOf(requireNonNull(series, "series is null"));
    if (series.isEmpty()) {
      throw new IllegalArgumentException("Curve " + name + " has no series");
    }
  }

  /**
   * One measured quantity of a curve.
   *
   * @param name snake_case, ending in its unit, e.g. {@code load_p99_ms}
   * @param unit the unit of the values
   * @param sizes the sizes in increasing order, at least one
   * @param values the value at each size, finite and not negative
   */
  record Series(String name, String unit, List<Double> sizes, List<Double> values) {
    Series {
      requireNonNull(name, "name is null");
      requireNonNull(unit, "unit is null");
      sizes = List.copyOf(requireNonNull(sizes, "sizes is null"));
      values = List.copyOf(requireNonNull(values, "values is null"));
      if (sizes.isEmpty() || sizes.size() != values.size()) {
        throw new IllegalArgumentException(
            "Series " + name + " has " + sizes.size() + " sizes and " + values.size() + " values");
      }
    }
  }

  /** Collects a curve's series point by point, in the order sizes are measured. */
  static final class Builder {
    private final String name;
    private final String title;
    private final String sizeLabel;
    private final boolean logarithmicSizes;
    private final List<String> seriesNames = new ArrayList<>();
    private final List<String> units = new ArrayList<>();
    private final List<List<Double>> sizes = new ArrayList<>();
    private final List<List<Double>> values = new ArrayList<>();

    Builder(String name, String title, String sizeLabel, boolean logarithmicSizes) {
      this.name = requireNonNull(name, "name is null");
      this.title = requireNonNull(title, "title is null");
      this.sizeLabel = requireNonNull(sizeLabel, "sizeLabel is null");
      this.logarithmicSizes = logarithmicSizes;
    }

    /** Adds the value of {@code series} (in {@code unit}) at {@code size}. */
    Builder add(String series, String unit, double size, double value) {
      int index = seriesNames.indexOf(series);
      if (index < 0) {
        seriesNames.add(series);
        units.add(unit);
        sizes.add(new ArrayList<>());
        values.add(new ArrayList<>());
        index = seriesNames.size() - 1;
      }
      sizes.get(index).add(size);
      values.get(index).add(value);
      return this;
    }

    Curve build() {
      List<Series> series = new ArrayList<>();
      for (int i = 0; i < seriesNames.size(); i++) {
        series.add(new Series(seriesNames.get(i), units.get(i), sizes.get(i), values.get(i)));
      }
      return new Curve(name, title, sizeLabel, logarithmicSizes, series);
    }
  }

  /**
   * The curve's figures: for every series and size, {@code <curve>_<size>_<sizeLabel>_<series>}
   * beside the same series at the first size. A zero first value cannot be a baseline; such a
   * series is reported beside 1 of its unit instead, and its baseline says so.
   */
  List<Figure> figures() {
    List<Figure> figures = new ArrayList<>();
    for (Series one : series) {
      double first = one.values().getFirst();
      String baseline =
          first > 0
              ? String.format(
                  Locale.ROOT, "same at %s %s", plain(one.sizes().getFirst()), sizeLabel)
              : "1 " + one.unit() + " (the value at the first size was 0)";
      double baselineValue = first > 0 ? first : 1;
      for (int i = 0; i < one.sizes().size(); i++) {
        figures.add(
            Figure.withoutTarget(
                name + "_" + plain(one.sizes().get(i)) + "_" + sizeLabel + "_" + one.name(),
                one.values().get(i),
                one.unit(),
                baseline,
                baselineValue));
      }
    }
    return figures;
  }

  static String plain(double number) {
    return number == Math.rint(number)
        ? Long.toString((long) number)
        : String.format(Locale.ROOT, "%s", number);
  }
}
