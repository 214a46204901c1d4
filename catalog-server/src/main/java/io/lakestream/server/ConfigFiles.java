package io.lakestream.server;

import io.lakestream.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a configuration file into flat {@code key -> value} strings. A {@code .yaml} or {@code
 * .yml} file may nest keys ({@code http: {port: 8181}} is {@code http.port}); any other file is a
 * Java properties file.
 */
final class ConfigFiles {
  private ConfigFiles() {}

  static Map<String, String> read(Path file) {
    String name = file.getFileName().toString();
    try {
      if (name.endsWith(".yaml") || name.endsWith(".yml")) {
        return readYaml(file);
      }
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(file)) {
        properties.load(reader);
      }
      Map<String, String> values = new LinkedHashMap<>();
      properties.stringPropertyNames().forEach(key -> values.put(key, properties.getProperty(key)));
      return values;
    } catch (NoSuchFileException e) {
      throw new ConfigException("Configuration file not found: " + file);
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException("Cannot read configuration file " + file + ": " + e.getMessage());
    }
  }

  private static Map<String, String> readYaml(Path file) throws IOException {
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    Object document;
    try (InputStream in = Files.newInputStream(file)) {
      document = yaml.load(in);
    } catch (YAMLException e) {
      throw new ConfigException(
          "Cannot parse configuration file " + file + ": " + e.getMessage().replace('\n', ' '));
    }
    Map<String, String> values = new LinkedHashMap<>();
    if (document == null) {
      return values;
    }
    if (!(document instanceof Map<?, ?> map)) {
      throw new ConfigException("Configuration file " + file + " is not a map of keys to values");
    }
    flatten("", map, values, file);
    return values;
  }

  private static void flatten(String prefix, Map<?, ?> map, Map<String, String> into, Path file) {
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      String key = prefix + entry.getKey();
      Object value = entry.getValue();
      if (value instanceof Map<?, ?> nested) {
        flatten(key + ".", nested, into, file);
      } else if (value instanceof List<?>) {
        throw new ConfigException("Configuration key " + key + " in " + file + " is a list");
      } else {
        into.put(key, value == null ? "" : String.valueOf(value));
      }
    }
  }
}
