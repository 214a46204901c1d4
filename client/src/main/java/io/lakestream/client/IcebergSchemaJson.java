package io.lakestream.client;

import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Writes an Iceberg schema in the JSON format of Iceberg's table metadata ({@code SchemaParser}
 * lives in iceberg-core, which the client does not depend on to stay small). The server parses the
 * result with iceberg-core; {@code AdminTest} checks that both agree.
 */
final class IcebergSchemaJson {
  private IcebergSchemaJson() {}

  /**
   * @throws IllegalArgumentException for a field with a default value (pass the schema as JSON
   *     instead)
   */
  static String toJson(Schema schema) {
    StringBuilder json = new StringBuilder();
    json.append("{\"type\":\"struct\",\"schema-id\":").append(schema.schemaId());
    Set<Integer> identifiers = schema.identifierFieldIds();
    if (!identifiers.isEmpty()) {
      json.append(",\"identifier-field-ids\":[");
      String separator = "";
      for (int id : identifiers) {
        json.append(separator).append(id);
        separator = ",";
      }
      json.append(']');
    }
    appendFields(json, schema.asStruct());
    return json.append('}').toString();
  }

  private static void appendType(StringBuilder json, Type type) {
    if (type instanceof Types.StructType struct) {
      json.append("{\"type\":\"struct\"");
      appendFields(json, struct);
      json.append('}');
    } else if (type instanceof Types.ListType list) {
      json.append("{\"type\":\"list\",\"element-id\":").append(list.elementId());
      json.append(",\"element\":");
      appendType(json, list.elementType());
      json.append(",\"element-required\":").append(list.isElementRequired()).append('}');
    } else if (type instanceof Types.MapType map) {
      json.append("{\"type\":\"map\",\"key-id\":").append(map.keyId()).append(",\"key\":");
      appendType(json, map.keyType());
      json.append(",\"value-id\":").append(map.valueId()).append(",\"value\":");
      appendType(json, map.valueType());
      json.append(",\"value-required\":").append(map.isValueRequired()).append('}');
    } else {
      appendString(json, type.toString());
    }
  }

  private static void appendFields(StringBuilder json, Types.StructType struct) {
    json.append(",\"fields\":[");
    String separator = "";
    for (Types.NestedField field : struct.fields()) {
      if (field.initialDefault() != null || field.writeDefault() != null) {
        throw new IllegalArgumentException(
            "Field "
                + field.name()
                + " has a default value; pass the schema as Iceberg JSON (SchemaParser.toJson)");
      }
      json.append(separator).append("{\"id\":").append(field.fieldId()).append(",\"name\":");
      appendString(json, field.name());
      json.append(",\"required\":").append(field.isRequired()).append(",\"type\":");
      appendType(json, field.type());
      if (field.doc() != null) {
        json.append(",\"doc\":");
        appendString(json, field.doc());
      }
      json.append('}');
      separator = ",";
    }
    json.append(']');
  }

  private static void appendString(StringBuilder json, String value) {
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format("\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    json.append('"');
  }
}
