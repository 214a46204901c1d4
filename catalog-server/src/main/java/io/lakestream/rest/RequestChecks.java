package io.lakestream.rest;

import java.util.Collection;
import java.util.Map;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * Checks of request content that Iceberg's request parsers let through: JSON nulls inside lists and
 * maps, which the catalog cannot store and a client never means.
 */
final class RequestChecks {
  private RequestChecks() {}

  /**
   * @throws BadRequestException if the list holds a null
   */
  static void requireNoNulls(String field, Collection<String> values) {
    if (values != null && values.stream().anyMatch(value -> value == null)) {
      throw new BadRequestException("Invalid %s: null is not a property name", field);
    }
  }

  /**
   * @throws BadRequestException if the map has a null key or value
   */
  static void requireNoNulls(String field, Map<String, String> properties) {
    if (properties == null) {
      return;
    }
    for (Map.Entry<String, String> property : properties.entrySet()) {
      if (property.getKey() == null || property.getValue() == null) {
        throw new BadRequestException(
            "Invalid %s: property '%s' has no value (null)", field, property.getKey());
      }
    }
  }
}
