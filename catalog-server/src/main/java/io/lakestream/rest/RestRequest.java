package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import io.lakestream.auth.Principal;
import java.util.Map;
import java.util.Optional;

/**
 * One REST call after routing: which route, the path parameters decoded, query parameters, headers
 * (names in lower case) and the raw body.
 *
 * @param principal who the request acts for
 * @param route the matched route
 * @param warehouse the warehouse named by the path prefix, or null for the default warehouse
 * @param pathParameters decoded {@code namespace}, {@code table} and {@code view} segments
 */
public record RestRequest(
    Principal principal,
    Route route,
    String warehouse,
    Map<String, String> pathParameters,
    Map<String, String> query,
    Map<String, String> headers,
    byte[] body) {
  public RestRequest {
    requireNonNull(principal, "principal is null");
    requireNonNull(route, "route is null");
    pathParameters = Map.copyOf(pathParameters);
    query = Map.copyOf(query);
    headers = Map.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }

  public String pathParameter(String name) {
    return pathParameters.get(name);
  }

  public Optional<String> queryParameter(String name) {
    return Optional.ofNullable(query.get(name));
  }

  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT)));
  }
}
