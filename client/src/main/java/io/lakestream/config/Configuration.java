package io.lakestream.config;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Resolved configuration: every known key with its parsed value, where each value came from, and
 * nothing else.
 *
 * <p>Values are layered: defaults, then each {@link Builder#layer layer} in the order added, each
 * overriding the one before (the server adds its file, then {@code LAKESTREAM_*} environment
 * variables, then command-line flags). Every value is parsed when its layer is added, so a bad
 * value fails at start-up with a {@link ConfigException} naming the key, the value and its origin,
 * never later at first use. Instances are immutable and thread safe.
 */
public final class Configuration {
  private final Map<String, ConfigKey<?>> keys;
  private final Map<String, Object> values;
  private final Map<String, String> origins;

  private Configuration(
      Map<String, ConfigKey<?>> keys, Map<String, Object> values, Map<String, String> origins) {
    this.keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    this.origins = Collections.unmodifiableMap(new LinkedHashMap<>(origins));
  }

  /**
   * Starts a configuration over the given keys; no other key is accepted.
   *
   * @param keys every key of the configuration
   * @return a builder holding the keys' defaults
   * @throws IllegalArgumentException if two keys share a name or a command-line flag
   */
  public static Builder builder(Collection<ConfigKey<?>> keys) {
    return new Builder(keys);
  }

  /**
   * The value of a key: the last layer that set it, else its default (which may be null).
   *
   * @param <T> the type of the key's value
   * @param key a key of this configuration
   * @return the value, or {@code null} when no layer set it and it has no default
   * @throws IllegalArgumentException if the key is not part of this configuration
   */
  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    requireKnown(key);
    return (T) values.get(key.name());
  }

  /**
   * The value of a key if any layer set it.
   *
   * @param <T> the type of the key's value
   * @param key a key of this configuration
   * @return the value, or empty when the key keeps its default
   * @throws IllegalArgumentException if the key is not part of this configuration
   */
  public <T> Optional<T> getIfSet(ConfigKey<T> key) {
    return isSet(key) ? Optional.ofNullable(get(key)) : Optional.empty();
  }

  /**
   * Whether a layer set the key (as opposed to it keeping its default).
   *
   * @param key a key of this configuration
   * @return {@code true} if a layer set it
   * @throws IllegalArgumentException if the key is not part of this configuration
   */
  public boolean isSet(ConfigKey<?> key) {
    requireKnown(key);
    return origins.containsKey(key.name());
  }

  /**
   * Every key with its value and origin, sorted by name, secrets masked: safe to log.
   *
   * @return key name to {@code "value [origin]"}, the origin being {@code default} for unset keys
   */
  public Map<String, String> describe() {
    Map<String, String> described = new TreeMap<>();
    for (ConfigKey<?> key : keys.values()) {
      Object value = values.get(key.name());
      String shown;
      if (key.secret()) {
        shown = value == null ? "(not set)" : "(secret)";
      } else {
        shown = value == null ? key.defaultText() : String.valueOf(value);
      }
      described.put(key.name(), shown + " [" + origins.getOrDefault(key.name(), "default") + "]");
    }
    return described;
  }

  private void requireKnown(ConfigKey<?> key) {
    if (keys.get(key.name()) != key) {
      throw new IllegalArgumentException("Key is not part of this configuration: " + key.name());
    }
  }

  /** Adds layers of raw string values over the defaults. Not thread safe. */
  public static final class Builder {
    private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();
    private final Map<String, Object> values = new LinkedHashMap<>();
    private final Map<String, String> origins = new LinkedHashMap<>();

    private Builder(Collection<ConfigKey<?>> keys) {
      Map<String, String> flags = new LinkedHashMap<>();
      for (ConfigKey<?> key : keys) {
        if (this.keys.put(key.name(), key) != null) {
          throw new IllegalArgumentException("Duplicate config key: " + key.name());
        }
        String clash = flags.put(key.flag(), key.name());
        if (clash != null) {
          throw new IllegalArgumentException(
              "Config keys " + clash + " and " + key.name() + " share the flag " + key.flag());
        }
        values.put(key.name(), key.defaultValue());
      }
    }

    /**
     * Adds a layer keyed by configuration names ({@code http.port}).
     *
     * @param origin where the values come from, for messages ("file /etc/lakestream.yaml")
     * @param raw configuration names to raw values
     * @return this builder
     * @throws ConfigException on an unknown key or a value that does not parse
     */
    public Builder layer(String origin, Map<String, String> raw) {
      requireNonNull(origin, "origin is null");
      for (Map.Entry<String, String> entry : raw.entrySet()) {
        ConfigKey<?> key = keys.get(entry.getKey());
        if (key == null) {
          throw new ConfigException(
              "Unknown configuration key '" + entry.getKey() + "' in " + origin);
        }
        set(key, entry.getValue(), origin);
      }
      return this;
    }

    /**
     * Adds the layer of environment variables: {@code LAKESTREAM_HTTP_PORT} sets {@code http.port}.
     * Variables that name no key are left alone, since the environment is shared with the launcher
     * and other programs.
     *
     * @param environment the environment, usually {@link System#getenv()}
     * @return this builder
     * @throws ConfigException on a value that does not parse
     */
    public Builder environment(Map<String, String> environment) {
      for (ConfigKey<?> key : keys.values()) {
        String value = environment.get(key.environmentVariable());
        if (value != null) {
          set(key, value, "environment variable " + key.environmentVariable());
        }
      }
      return this;
    }

    /**
     * The key that a command-line flag sets, if any.
     *
     * @param flag the flag, such as {@code --http-port}
     * @return the key, or empty when no key has that flag
     */
    public Optional<ConfigKey<?>> keyForFlag(String flag) {
      for (ConfigKey<?> key : keys.values()) {
        if (key.flag().equals(flag)) {
          return Optional.of(key);
        }
      }
      return Optional.empty();
    }

    /**
     * Sets one key from a command-line flag.
     *
     * @param key the key the flag sets (see {@link #keyForFlag})
     * @param value the flag's raw value
     * @return this builder
     * @throws ConfigException if the value is missing ({@code null}) or does not parse
     */
    public Builder flag(ConfigKey<?> key, String value) {
      return set(key, value, "flag " + key.flag());
    }

    private Builder set(ConfigKey<?> key, String raw, String origin) {
      if (raw == null) {
        throw new ConfigException("Missing value for " + key.name() + " in " + origin);
      }
      values.put(key.name(), key.parse(raw, origin));
      origins.put(key.name(), origin);
      return this;
    }

    /**
     * Resolves the configuration from the defaults and the layers added so far.
     *
     * @return an immutable configuration; the builder may go on being used
     */
    public Configuration build() {
      return new Configuration(keys, values, origins);
    }
  }
}
