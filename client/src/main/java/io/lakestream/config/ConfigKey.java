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

  /**
   * A free-form string key.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the value when no layer sets the key; may be {@code null}
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<String> string(String name, String defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, String.valueOf(defaultValue), description, false, raw -> raw);
  }

  /**
   * A string key whose default is derived from other keys, as {@code defaultText} explains. Its
   * {@link #defaultValue()} is {@code null}; the module's config class resolves it.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultText how the default is derived, as shown in {@code --help}
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<String> derivedString(
      String name, String defaultText, String description) {
    return new ConfigKey<>(name, null, defaultText, description, false, raw -> raw);
  }

  /**
   * A string key whose value is never printed: passwords, client secrets, signing keys. It has no
   * default.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<String> secret(String name, String description) {
    return new ConfigKey<>(name, null, "(none)", description, true, raw -> raw);
  }

  /**
   * A TCP port; 0 asks the operating system for a free port.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the port when no layer sets the key, within {@code [0, 65535]}
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<Integer> port(String name, int defaultValue, String description) {
    return integer(name, defaultValue, 0, 65535, description);
  }

  /**
   * An integer within {@code [min, max]}; a value outside the range fails to parse.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the value when no layer sets the key
   * @param min the smallest accepted value
   * @param max the largest accepted value
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
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
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the size in bytes when no layer sets the key
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<Long> bytes(String name, long defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, Sizes.format(defaultValue), description, false, Sizes::parse);
  }

  /**
   * A duration such as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the duration when no layer sets the key
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
  public static ConfigKey<Duration> duration(
      String name, Duration defaultValue, String description) {
    return new ConfigKey<>(
        name, defaultValue, Durations.format(defaultValue), description, false, Durations::parse);
  }

  /**
   * A boolean: {@code true} or {@code false}, in any case.
   *
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param defaultValue the value when no layer sets the key
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
   */
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
   *
   * @param <E> the enum type
   * @param name the kebab-case dotted name, such as {@code http.port}
   * @param type the enum class, whose constants are the accepted values
   * @param defaultValue the constant when no layer sets the key
   * @param description one sentence for {@code --help} and the configuration reference
   * @return the key
   * @throws IllegalArgumentException if the name is not kebab-case dotted
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

  /**
   * How an enum constant is written in configuration: lower case, underscores as dashes.
   *
   * @param constant the enum constant
   * @return its spelling, such as {@code last-row} for {@code LAST_ROW}
   */
  public static String spell(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The key's name in a configuration file.
   *
   * @return the kebab-case dotted name, such as {@code http.port}
   */
  public String name() {
    return name;
  }

  /**
   * The default value, or {@code null} when the default is derived or absent.
   *
   * @return the parsed default, or {@code null}
   */
  public T defaultValue() {
    return defaultValue;
  }

  /**
   * The default as documented in {@code --help}.
   *
   * @return the default in its configuration spelling, or how it is derived
   */
  public String defaultText() {
    return defaultText;
  }

  /**
   * What the key controls, as shown in {@code --help}.
   *
   * @return the description
   */
  public String description() {
    return description;
  }

  /**
   * Whether the value must never be printed or logged.
   *
   * @return {@code true} for secrets
   */
  public boolean secret() {
    return secret;
  }

  /**
   * The environment variable that sets this key.
   *
   * @return the name, such as {@code LAKESTREAM_HTTP_PORT} for {@code http.port}
   */
  public String environmentVariable() {
    return "LAKESTREAM_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * The command-line flag that sets this key.
   *
   * @return the flag, such as {@code --http-port} for {@code http.port}
   */
  public String flag() {
    return "--" + name.replace('.', '-');
  }

  /**
   * Parses a raw value.
   *
   * @param raw the value as written
   * @param origin where the value came from, for the error message (e.g. "flag --http-port")
   * @return the parsed value
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
