package io.lakestream.openapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Checks a JSON value against a schema of an OpenAPI 3.1 document, for the subset of JSON Schema
 * the document uses: {@code $ref} to {@code #/components/schemas}, {@code oneOf}, {@code type} (one
 * or a list, with {@code "null"}), {@code enum}, {@code required}, {@code properties}, {@code
 * additionalProperties: false} and {@code items}. A keyword outside the subset fails the check, so
 * the document cannot drift past what is checked.
 */
final class SchemaChecker {
  private static final List<String> KNOWN =
      List.of(
          "$ref",
          "oneOf",
          "type",
          "enum",
          "required",
          "properties",
          "additionalProperties",
          "items",
          "description");

  private final JsonNode document;

  SchemaChecker(JsonNode document) {
    this.document = requireNonNull(document, "document is null");
  }

  /** What is wrong with {@code value}; empty when it matches {@code schema}. */
  List<String> problems(JsonNode schema, JsonNode value) {
    List<String> problems = new ArrayList<>();
    check(schema, value, "$", problems);
    return problems;
  }

  private void check(JsonNode schema, JsonNode value, String where, List<String> problems) {
    for (Iterator<String> names = schema.fieldNames(); names.hasNext(); ) {
      String keyword = names.next();
      if (!KNOWN.contains(keyword)) {
        problems.add(where + ": the checker does not know the keyword " + keyword);
      }
    }
    if (schema.has("$ref")) {
      check(resolve(schema.get("$ref").asText()), value, where, problems);
      return;
    }
    if (schema.has("oneOf")) {
      int matching = 0;
      List<String> all = new ArrayList<>();
      for (JsonNode option : schema.get("oneOf")) {
        List<String> found = new ArrayList<>();
        check(option, value, where, found);
        if (found.isEmpty()) {
          matching++;
        }
        all.addAll(found);
      }
      if (matching != 1) {
        problems.add(where + ": matches " + matching + " of oneOf, not 1: " + all);
      }
      return;
    }
    if (schema.has("type") && !typeMatches(schema.get("type"), value)) {
      problems.add(where + ": expected type " + schema.get("type") + ", got " + value);
      return;
    }
    if (schema.has("enum")) {
      boolean listed = false;
      for (JsonNode allowed : schema.get("enum")) {
        listed |= allowed.equals(value);
      }
      if (!listed) {
        problems.add(where + ": " + value + " is not one of " + schema.get("enum"));
      }
    }
    if (value.isObject()) {
      for (JsonNode required : schema.path("required")) {
        if (!value.has(required.asText())) {
          problems.add(where + ": missing required field " + required.asText());
        }
      }
      JsonNode properties = schema.path("properties");
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        JsonNode property = properties.get(field.getKey());
        if (property != null) {
          check(property, field.getValue(), where + "." + field.getKey(), problems);
        } else if (schema.path("additionalProperties").isBoolean()
            && !schema.get("additionalProperties").asBoolean()) {
          problems.add(where + ": field " + field.getKey() + " is not in the schema");
        }
      }
    }
    if (value.isArray() && schema.has("items")) {
      for (int i = 0; i < value.size(); i++) {
        check(schema.get("items"), value.get(i), where + "[" + i + "]", problems);
      }
    }
  }

  JsonNode resolve(String reference) {
    String prefix = "#/components/schemas/";
    if (!reference.startsWith(prefix)) {
      throw new IllegalArgumentException("Unsupported $ref " + reference);
    }
    JsonNode schema =
        document.path("components").path("schemas").get(reference.substring(prefix.length()));
    if (schema == null) {
      throw new IllegalArgumentException("No schema " + reference);
    }
    return schema;
  }

  private static boolean typeMatches(JsonNode type, JsonNode value) {
    if (type.isArray()) {
      for (JsonNode one : type) {
        if (typeMatches(one, value)) {
          return true;
        }
      }
      return false;
    }
    return switch (type.asText()) {
      case "null" -> value.isNull();
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      case "array" -> value.isArray();
      case "object" -> value.isObject();
      default -> throw new IllegalArgumentException("Unknown type " + type);
    };
  }
}
