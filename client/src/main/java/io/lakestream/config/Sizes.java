package io.lakestream.config;

import java.util.Locale;

/** Parses and prints byte sizes in configuration ({@code 16mb}). */
final class Sizes {
  private static final String[] UNITS = {"b", "kb", "mb", "gb", "tb"};

  private Sizes() {}

  static long parse(String raw) {
    String value = raw.trim().toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < value.length() && Character.isDigit(value.charAt(split))) {
      split++;
    }
    if (split == 0) {
      throw new IllegalArgumentException("expected a size such as 512, 64kb, 16mb or 1gb");
    }
    long number;
    try {
      number = Long.parseLong(value.substring(0, split));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("size is too large");
    }
    String unit = value.substring(split).trim();
    if (unit.isEmpty()) {
      return number;
    }
    for (int i = 0; i < UNITS.length; i++) {
      if (UNITS[i].equals(unit)) {
        long factor = 1L << (10 * i);
        if (number > Long.MAX_VALUE / factor) {
          throw new IllegalArgumentException("size is too large");
        }
        return number * factor;
      }
    }
    throw new IllegalArgumentException(
        "unknown size unit '" + unit + "' (use b, kb, mb, gb or tb)");
  }

  static String format(long bytes) {
    for (int i = UNITS.length - 1; i > 0; i--) {
      long factor = 1L << (10 * i);
      if (bytes != 0 && bytes % factor == 0) {
        return bytes / factor + UNITS[i];
      }
    }
    return Long.toString(bytes);
  }
}
