package io.lakestream.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * One typed configuration key: a kebab-case dotted name, a default, a parser and a description.
 *
 * <p>Every key has three spellings, derived from its name so that they can never disagree:
 *
 * <ul>
 *   <li>in a configuration file: {@code http.port}
 *   <li>as an environment variable: {@code LAKESTREAM_HTTP_PORT}
 *   <li>as a command-line flag: {@code --http-port}
 * </ul>
 *
 * <p>Keys are immutable and thread safe. A key whose default depends on another key (for example a
 * path under the data directory) has a {@code null} default and documents the derivation in {@link
 * #defaultText()}; the module's config class resolves it.
 *
 * @param <T> the type of the parsed value
 */
public final class ConfigKey<T> {
  private final String name;
  private final T defaultValue;
  private final String defaultText;
  private final String description;
  private final boolean secret;
  private final Function<String, T> parser;

  private ConfigKey(
      String name,
      T defaultValue,
      String defaultText,
      String description,
      boolean secret,
      Function<String, T> parser) {
    this.name = requireNonNull(name, "name is null");
    if (!name.matches("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*")) {
      throw new IllegalArgumentException("Config key is not kebab-case dotted: " + name);
    }
    this.defaultValue = defaultValue;
    this.defaultText = requireNonNull(defaultText, "defaultText is null");
    this.description = requireNonNull(description, "description is null");
    this.secret = secret;
    this.parser = requireNonNull(parser, "parser is null");
  }

  /** A free-form string key. */
  public static ConfigKey<String> string(String name, String defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, String.valueOf(defaultValue), description, false, raw -> raw);
  }

  /** A string key whose default is derived from other keys, as {@code defaultText} explains. */
  public static ConfigKey<String> derivedString(
      String name, String defaultText, String description) {
    return new ConfigKey<>(name, null, defaultText, description, false, raw -> raw);
  }

  /** A string key whose value is never printed: passwords, client secrets, signing keys. */
  public static ConfigKey<String> secret(String name, String description) {
    return new ConfigKey<>(name, null, "(none)", description, true, raw -> raw);
  }

  /** A TCP port; 0 asks the operating system for a free port. */
  public static ConfigKey<Integer> port(String name, int defaultValue, String description) {
    return integer(name, defaultValue, 0, 65535, description);
  }

  /** An integer within {@code [min, max]}. */
  public static ConfigKey<Integer> integer(
      String name, int defaultValue, int min, int max, String description) {
    return new ConfigKey<>(
        name,
        defaultValue,
        Integer.toString(defaultValue),
        description,
        false,
        raw -> {
          int value;
          try {
            value = Integer.parseInt(raw.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                "expected an integer between " + min + " and " + max);
          }
          if (value < min || value > max) {
            throw new IllegalArgumentException(
                "expected an integer between " + min + " and " + max);
          }
          return value;
        });
  }

  /**
   * A size in bytes, written as a number with an optional unit: {@code 512}, {@code 16kb}, {@code
   * 64mb}, {@code 1gb}.
   */
  public static ConfigKey<Long> bytes(String name, long defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, Sizes.format(defaultValue), description, false, Sizes::parse);
  }

  /** A duration such as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
  public static ConfigKey<Duration> duration(
      String name, Duration defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, Durations.format(defaultValue), description, false, Durations::parse);
  }

  /** A boolean: {@code true} or {@code false}. */
  public static ConfigKey<Boolean> bool(String name, boolean defaultValue, String description) {
    return new ConfigKey<>(
        name,
        defaultValue,
        Boolean.toString(defaultValue),
        description,
        false,
        raw -> {
          String value = raw.trim().toLowerCase(Locale.ROOT);
          if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
          }
          throw new IllegalArgumentException("expected true or false");
        });
  }

  /**
   * One of the constants of an enum, written in lower kebab case ({@code LAST_ROW} is {@code
   * last-row}).
   */
  public static <E extends Enum<E>> ConfigKey<E> choice(
      String name, Class<E> type, E defaultValue, String description) {
    return new ConfigKey<>(
        name,
        defaultValue,
        spell(defaultValue),
        description,
        false,
        raw -> {
          for (E constant : type.getEnumConstants()) {
            if (spell(constant).equals(raw.trim().toLowerCase(Locale.ROOT))) {
              return constant;
            }
          }
          StringBuilder allowed = new StringBuilder();
          for (E constant : type.getEnumConstants()) {
            allowed.append(allowed.length() == 0 ? "" : ", ").append(spell(constant));
          }
          throw new IllegalArgumentException("expected one of " + allowed);
        });
  }

  /** How an enum constant is written in configuration. */
  public static String spell(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public String name() {
    return name;
  }

  /** The default value, or {@code null} when the default is derived or absent. */
  public T defaultValue() {
    return defaultValue;
  }

  /** The default as documented in {@code --help}. */
  public String defaultText() {
    return defaultText;
  }

  public String description() {
    return description;
  }

  /** Whether the value must never be printed or logged. */
  public boolean secret() {
    return secret;
  }

  /** The environment variable that sets this key. */
  public String environmentVariable() {
    return "LAKESTREAM_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** The command-line flag that sets this key. */
  public String flag() {
    return "--" + name.replace('.', '-');
  }

  /**
   * Parses a raw value.
   *
   * @param raw the value as written
   * @param origin where the value came from, for the error message (e.g. "flag --http-port")
   * @throws ConfigException naming the key, the value and what was expected
   */
  public T parse(String raw, String origin) {
    try {
      return parser.apply(raw);
    } catch (IllegalArgumentException e) {
      String shown = secret ? "(secret)" : "'" + raw + "'";
      throw new ConfigException(
          "Invalid value " + shown + " for " + name + " (from " + origin + "): " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
