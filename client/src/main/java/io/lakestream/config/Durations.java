package io.lakestream.config;

import java.time.Duration;
import java.util.Locale;

/**
 * Parses and prints durations in configuration ({@code 500ms}, {@code 30s}, {@code 5m}, {@code
 * 1h}).
 */
final class Durations {
  private Durations() {}

  static Duration parse(String raw) {
    String value = raw.trim().toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < value.length() && Character.isDigit(value.charAt(split))) {
      split++;
    }
    if (split == 0 || split > 12) {
      throw new IllegalArgumentException("expected a duration such as 500ms, 30s, 5m or 1h");
    }
    long number = Long.parseLong(value.substring(0, split));
    return switch (value.substring(split).trim()) {
      case "ms" -> Duration.ofMillis(number);
      case "s" -> Duration.ofSeconds(number);
      case "m" -> Duration.ofMinutes(number);
      case "h" -> Duration.ofHours(number);
      case "d" -> Duration.ofDays(number);
      default ->
          throw new IllegalArgumentException("expected a duration such as 500ms, 30s, 5m or 1h");
    };
  }

  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 86_400_000L == 0 && millis != 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis % 3_600_000L == 0 && millis != 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0 && millis != 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1000L == 0) {
      return millis / 1000L + "s";
    }
    return millis + "ms";
  }
}
