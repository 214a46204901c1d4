package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;

/**
 * A table's name in the catalog.
 *
 * @param warehouse the warehouse, or null for the server's default warehouse
 * @param namespace the namespace levels, outermost first; at least one
 * @param name the table's name within the namespace
 */
public record TablePath(String warehouse, List<String> namespace, String name) {
  /**
   * Checks the path and copies the namespace into an immutable list.
   *
   * @throws IllegalArgumentException if the namespace is empty
   * @throws NullPointerException if the namespace, a level or the name is null
   */
  public TablePath {
    namespace = List.copyOf(namespace);
    requireNonNull(name, "name is null");
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("A table path needs a namespace: " + name);
    }
  }

  /**
   * Parses {@code namespace.table} or {@code level.level.table} in the default warehouse. The last
   * dot-separated part is the name; names containing dots need the constructor.
   *
   * @param dotted the dotted path, such as {@code analytics.clicks}
   * @return the path, with a null warehouse
   * @throws IllegalArgumentException if there is no dot
   */
  public static TablePath of(String dotted) {
    String[] parts = dotted.split("\\.");
    if (parts.length < 2) {
      throw new IllegalArgumentException("Expected namespace.table, got '" + dotted + "'");
    }
    return new TablePath(
        null, Arrays.asList(parts).subList(0, parts.length - 1), parts[parts.length - 1]);
  }

  @Override
  public String toString() {
    return (warehouse == null ? "" : warehouse + ".") + String.join(".", namespace) + "." + name;
  }
}
