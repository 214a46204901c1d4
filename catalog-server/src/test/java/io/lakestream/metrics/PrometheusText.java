package io.lakestream.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), written for the tests
 * from the format's specification rather than taken from the library that writes it: every sample
 * must belong to a family announced by {@code # HELP} and {@code # TYPE} before it, names and label
 * names must be valid, label values may use only the escapes {@code \\}, {@code \"} and {@code \n},
 * a series may not repeat, and a histogram's buckets must be cumulative and end in {@code +Inf}
 * equal to its {@code _count}.
 */
final class PrometheusText {
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> TYPES =
      Set.of("counter", "gauge", "histogram", "summary", "untyped");

  /** A metric family: its name as announced, type, help text and samples. */
  record Family(String name, String type, String help, List<Sample> samples) {}

  /** One sample line: its full name (with any suffix), labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private PrometheusText() {}

  /**
   * Parses a whole scrape.
   *
   * @throws IllegalArgumentException naming the line for anything the format does not allow
   */
  static Map<String, Family> parse(String text) {
    Map<String, Family> families = new LinkedHashMap<>();
    Map<String, String> helps = new LinkedHashMap<>();
    Set<String> series = new HashSet<>();
    String[] lines = text.split("\n", -1);
    if (!text.endsWith("\n")) {
      throw new IllegalArgumentException("The exposition does not end with a line feed");
    }
    Family current = null;
    for (int number = 1; number <= lines.length - 1; number++) {
      String line = lines[number - 1];
      try {
        if (line.isEmpty()) {
          continue;
        }
        if (line.startsWith("# HELP ")) {
          String[] parts = line.substring(7).split(" ", 2);
          requireName(parts[0]);
          if (helps.containsKey(parts[0])) {
            throw new IllegalArgumentException("a second HELP for " + parts[0]);
          }
          String help = parts.length == 2 ? unescapeHelp(parts[1]) : "";
          helps.put(parts[0], help);
          continue;
        }
        if (line.startsWith("# TYPE ")) {
          String[] parts = line.substring(7).split(" ");
          if (parts.length != 2 || !TYPES.contains(parts[1])) {
            throw new IllegalArgumentException("malformed TYPE line");
          }
          requireName(parts[0]);
          if (families.containsKey(parts[0])) {
            throw new IllegalArgumentException("a second TYPE for " + parts[0]);
          }
          if (!helps.containsKey(parts[0])) {
            throw new IllegalArgumentException("TYPE of " + parts[0] + " without a HELP before");
          }
          current = new Family(parts[0], parts[1], helps.get(parts[0]), new ArrayList<>());
          families.put(parts[0], current);
          continue;
        }
        if (line.startsWith("#")) {
          continue; // a comment
        }
        Sample sample = sample(line);
        if (current == null || !belongsTo(sample.name(), current)) {
          throw new IllegalArgumentException(
              "sample " + sample.name() + " outside its family's block");
        }
        if (!series.add(sample.name() + sample.labels())) {
          throw new IllegalArgumentException("repeated series " + sample.name() + sample.labels());
        }
        current.samples().add(sample);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "Line " + number + " '" + line + "': " + e.getMessage(), e);
      }
    }
    for (Family family : families.values()) {
      if (family.type().equals("histogram")) {
        checkHistogram(family);
      }
    }
    return families;
  }

  private static boolean belongsTo(String sample, Family family) {
    String name = family.name();
    return switch (family.type()) {
      case "histogram" ->
          sample.equals(name + "_bucket")
              || sample.equals(name + "_sum")
              || sample.equals(name + "_count")
              || sample.equals(name + "_created");
      case "summary" ->
          sample.equals(name)
              || sample.equals(name + "_sum")
              || sample.equals(name + "_count")
              || sample.equals(name + "_created");
      case "counter" ->
          sample.equals(name)
              || (name.endsWith("_total")
                  && sample.equals(name.substring(0, name.length() - 6) + "_created"));
      default -> sample.equals(name);
    };
  }

  private static void requireName(String name) {
    if (!METRIC_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid metric name " + name);
    }
  }

  private static String unescapeHelp(String help) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < help.length(); i++) {
      char c = help.charAt(i);
      if (c == '\\') {
        char next = help.charAt(++i);
        out.append(
            switch (next) {
              case '\\' -> '\\';
              case 'n' -> '\n';
              default ->
                  throw new IllegalArgumentException("invalid escape \\" + next + " in HELP");
            });
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static Sample sample(String line) {
    int position = 0;
    while (position < line.length()
        && line.charAt(position) != '{'
        && line.charAt(position) != ' ') {
      position++;
    }
    String name = line.substring(0, position);
    requireName(name);
    Map<String, String> labels = new LinkedHashMap<>();
    if (position < line.length() && line.charAt(position) == '{') {
      position++;
      while (line.charAt(position) != '}') {
        int equals = line.indexOf('=', position);
        String label = line.substring(position, equals);
        if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
          throw new IllegalArgumentException("invalid label name " + label);
        }
        if (line.charAt(equals + 1) != '"') {
          throw new IllegalArgumentException("unquoted value of label " + label);
        }
        StringBuilder value = new StringBuilder();
        position = equals + 2;
        while (line.charAt(position) != '"') {
          char c = line.charAt(position);
          if (c == '\\') {
            char next = line.charAt(position + 1);
            value.append(
                switch (next) {
                  case '\\' -> '\\';
                  case '"' -> '"';
                  case 'n' -> '\n';
                  default ->
                      throw new IllegalArgumentException(
                          "invalid escape \\" + next + " in label " + label);
                });
            position += 2;
          } else {
            value.append(c);
            position++;
          }
        }
        if (labels.put(label, value.toString()) != null) {
          throw new IllegalArgumentException("label " + label + " twice");
        }
        position++;
        if (line.charAt(position) == ',') {
          position++;
        } else if (line.charAt(position) != '}') {
          throw new IllegalArgumentException("expected , or } after label " + label);
        }
      }
      position++;
    }
    if (position >= line.length() || line.charAt(position) != ' ') {
      throw new IllegalArgumentException("no value");
    }
    String[] rest = line.substring(position + 1).split(" ");
    if (rest.length > 2) {
      throw new IllegalArgumentException("trailing text after the value");
    }
    if (rest.length == 2) {
      Long.parseLong(rest[1]); // a timestamp in milliseconds
    }
    return new Sample(name, labels, value(rest[0]));
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        if (!text.matches("[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?")) {
          throw new IllegalArgumentException("invalid value " + text);
        }
        yield Double.parseDouble(text);
      }
    };
  }

  /** Buckets cumulative, ending in {@code +Inf} equal to {@code _count}, for every series. */
  private static void checkHistogram(Family family) {
    Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
    Map<Map<String, String>, Double> counts = new LinkedHashMap<>();
    for (Sample sample : family.samples()) {
      if (sample.name().endsWith("_bucket")) {
        Map<String, String> series = new LinkedHashMap<>(sample.labels());
        if (series.remove("le") == null) {
          throw new IllegalArgumentException(sample.name() + " without le");
        }
        buckets.computeIfAbsent(series, ignored -> new ArrayList<>()).add(sample);
      } else if (sample.name().endsWith("_count")) {
        counts.put(sample.labels(), sample.value());
      }
    }
    if (!buckets.keySet().equals(counts.keySet())) {
      throw new IllegalArgumentException(
          family.name() + ": series with buckets " + buckets.keySet() + ", with counts " + counts);
    }
    buckets.forEach(
        (series, samples) -> {
          double bound = Double.NEGATIVE_INFINITY;
          double cumulative = 0;
          for (Sample bucket : samples) {
            double le = value(bucket.labels().get("le"));
            if (le <= bound || bucket.value() < cumulative) {
              throw new IllegalArgumentException(
                  family.name() + series + ": buckets not in order or not cumulative at le=" + le);
            }
            bound = le;
            cumulative = bucket.value();
          }
          if (bound != Double.POSITIVE_INFINITY || cumulative != counts.get(series)) {
            throw new IllegalArgumentException(
                family.name() + series + ": the +Inf bucket is missing or differs from _count");
          }
        });
  }
}
