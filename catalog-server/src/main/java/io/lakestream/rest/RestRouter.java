package io.lakestream.rest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * Matches a method and a raw request path to a {@link Route}.
 *
 * <p>Paths look like {@code /v1/[prefix/]namespaces/{namespace}/tables/{table}}. The prefix is the
 * warehouse name and is optional: a path whose first segment after {@code /v1/} is one of the route
 * roots ({@code config}, {@code namespaces}, {@code tables}, {@code views}, {@code transactions})
 * has no prefix, which is why warehouses may not take those names. Segments are percent-decoded
 * after splitting, so an encoded {@code %2F} stays inside its segment and an encoded namespace
 * separator ({@code %1F}) separates namespace levels; a {@code +} is a space.
 */
public final class RestRouter {
  /** First path segments that begin a route; a warehouse may not use these names. */
  public static final Set<String> ROOTS =
      Set.of("config", "namespaces", "tables", "views", "transactions", "oauth");

  private static final Route[] ROUTES = Route.values();

  /** A matched route with its warehouse (null when the path has no prefix) and parameters. */
  public record Match(Route route, String warehouse, Map<String, String> parameters) {}

  /**
   * Finds the route for a request.
   *
   * @param rawPath the path as sent, still percent-encoded, starting with {@code /v1/}
   * @return the match, or empty if no route has this path (for any method)
   * @throws MethodNotAllowedException if a route has this path but not this method
   * @throws BadRequestException if a segment is not valid percent-encoding
   */
  public Optional<Match> match(String method, String rawPath) {
    if (!rawPath.startsWith("/v1/")) {
      return Optional.empty();
    }
    String[] segments = rawPath.substring(4).split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      segments[i] = decode(segments[i]);
    }
    if (segments.length == 0 || segments[0].isEmpty()) {
      return Optional.empty();
    }
    String warehouse = null;
    int start = 0;
    if (!ROOTS.contains(segments[0])) {
      warehouse = segments[0];
      start = 1;
    }
    boolean pathKnown = false;
    for (Route route : ROUTES) {
      if (route == Route.CONFIG && warehouse != null) {
        continue;
      }
      Map<String, String> parameters = matchSegments(route.segments(), segments, start);
      if (parameters != null) {
        pathKnown = true;
        if (route.method().equals(method)) {
          return Optional.of(new Match(route, warehouse, parameters));
        }
      }
    }
    if (pathKnown) {
      throw new MethodNotAllowedException(method + " is not allowed on " + rawPath);
    }
    return Optional.empty();
  }

  private static Map<String, String> matchSegments(
      List<String> template, String[] segments, int start) {
    if (segments.length - start != template.size()) {
      return null;
    }
    for (int i = 0; i < template.size(); i++) {
      String expected = template.get(i);
      String actual = segments[start + i];
      if (expected.startsWith("{") ? actual.isEmpty() : !expected.equals(actual)) {
        return null;
      }
    }
    Map<String, String> parameters = new HashMap<>();
    for (int i = 0; i < template.size(); i++) {
      String expected = template.get(i);
      if (expected.startsWith("{")) {
        parameters.put(expected.substring(1, expected.length() - 1), segments[start + i]);
      }
    }
    return parameters;
  }

  /**
   * Decodes a path segment as Iceberg's REST clients encode it. Iceberg's Java client (and so
   * Spark, Trino and Flink) form-encodes segments, writing a space as {@code +} and a plus as
   * {@code %2B}; PyIceberg and iceberg-rust write {@code %20} and {@code %2B}. Reading {@code +} as
   * a space, as Iceberg's own server does, gives every one of them the same name.
   */
  private static String decode(String segment) {
    if (segment.indexOf('%') < 0 && segment.indexOf('+') < 0) {
      return segment;
    }
    try {
      return URLDecoder.decode(segment, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Malformed percent-encoding in path segment: %s", segment);
    }
  }

  /** A path that exists with another method. */
  public static final class MethodNotAllowedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MethodNotAllowedException(String message) {
      super(message);
    }
  }
}
