package io.lakestream.rest;

/**
 * A route's behaviour as a function: request in, response out. Exceptions are Iceberg exceptions
 * (or other runtime exceptions) that the HTTP layer maps with {@link RestErrors}. Implementations
 * are thread safe.
 */
@FunctionalInterface
public interface RestHandler {
  RestResponse handle(RestRequest request);
}
