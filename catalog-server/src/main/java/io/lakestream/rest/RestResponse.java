package io.lakestream.rest;

import java.util.Map;

/**
 * What a handler answers: a status, an optional body (an Iceberg REST response object, or any value
 * Jackson can write) and extra headers.
 */
public record RestResponse(int status, Object body, Map<String, String> headers) {
  public RestResponse {
    headers = Map.copyOf(headers);
  }

  public static RestResponse ok(Object body) {
    return new RestResponse(200, body, Map.of());
  }

  public static RestResponse noContent() {
    return new RestResponse(204, null, Map.of());
  }

  public RestResponse withHeader(String name, String value) {
    java.util.Map<String, String> copy = new java.util.HashMap<>(headers);
    copy.put(name, value);
    return new RestResponse(status, body, copy);
  }
}
