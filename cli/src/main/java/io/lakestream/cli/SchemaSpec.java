package io.lakestream.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The {@code create} command's column list, {@code "id bigint not null, name string"}, as an
 * Iceberg schema, and its {@code --partition-by} list as a partition spec. Column types (SQL and
 * Iceberg names): boolean, int/integer, bigint/long, float/real, double, string/varchar/text,
 * binary/varbinary, date, time, timestamp, timestamptz, decimal(P,S).
 */
final class SchemaSpec {
  private static final Pattern COLUMN =
      Pattern.compile(
          "([A-Za-z_][A-Za-z0-9_]*)\\s+([A-Za-z]+(?:\\s*\\(\\s*\\d+\\s*(?:,\\s*\\d+\\s*)?\\))?)"
              + "(\\s+not\\s+null)?",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)", Pattern.CASE_INSENSITIVE);
  private static final Pattern TRANSFORM =
      Pattern.compile("(year|month|day|hour)\\s*\\(\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)");

  private SchemaSpec() {}

  /**
   * Parses a column list; field ids are 1, 2, ... in order.
   *
   * @throws UsageError naming the column that does not parse
   */
  static Schema parse(String columns) {
    List<Types.NestedField> fields = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int id = 1;
    for (String column : splitTopLevel(columns)) {
      String trimmed = column.trim();
      Matcher matcher = COLUMN.matcher(trimmed);
      if (!matcher.matches()) {
        throw new UsageError(
            "Invalid column '" + trimmed + "' in --schema: expected 'name type [not null]'");
      }
      String name = matcher.group(1);
      if (!names.add(name)) {
        throw new UsageError("Column '" + name + "' appears twice in --schema");
      }
      Type type = type(matcher.group(2), name);
      fields.add(
          matcher.group(3) != null
              ? Types.NestedField.required(id++, name, type)
              : Types.NestedField.optional(id++, name, type));
    }
    if (fields.isEmpty()) {
      throw new UsageError("--schema has no columns");
    }
    return new Schema(fields);
  }

  private static Type type(String text, String column) {
    Matcher decimal = DECIMAL.matcher(text);
    if (decimal.matches()) {
      int precision = Integer.parseInt(decimal.group(1));
      int scale = Integer.parseInt(decimal.group(2));
      if (precision < 1 || precision > 38 || scale > precision) {
        throw new UsageError(
            "Invalid type " + text + " of column '" + column + "': expected decimal(1..38, <=P)");
      }
      return Types.DecimalType.of(precision, scale);
    }
    switch (text.toLowerCase(Locale.ROOT)) {
      case "boolean":
      case "bool":
        return Types.BooleanType.get();
      case "int":
      case "integer":
        return Types.IntegerType.get();
      case "bigint":
      case "long":
        return Types.LongType.get();
      case "float":
      case "real":
        return Types.FloatType.get();
      case "double":
        return Types.DoubleType.get();
      case "string":
      case "varchar":
      case "text":
        return Types.StringType.get();
      case "binary":
      case "varbinary":
        return Types.BinaryType.get();
      case "date":
        return Types.DateType.get();
      case "time":
        return Types.TimeType.get();
      case "timestamp":
        return Types.TimestampType.withoutZone();
      case "timestamptz":
        return Types.TimestampType.withZone();
      default:
        throw new UsageError(
            "Unknown type '"
                + text
                + "' of column '"
                + column
                + "': expected boolean, int, bigint, float, double, string, binary, date, time,"
                + " timestamp, timestamptz or decimal(P,S)");
    }
  }

  /**
   * A partition spec from a comma-separated list of columns (identity) and {@code year(col)}/{@code
   * month(col)}/{@code day(col)}/{@code hour(col)}.
   */
  static PartitionSpec partitionSpec(Schema schema, String partitionBy) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (String part : splitTopLevel(partitionBy)) {
      String field = part.trim();
      Matcher transform = TRANSFORM.matcher(field.toLowerCase(Locale.ROOT));
      String column = transform.matches() ? transform.group(2) : field;
      if (schema.findField(column) == null) {
        throw new UsageError("--partition-by names column '" + column + "', which --schema lacks");
      }
      try {
        if (!transform.matches()) {
          builder.identity(column);
        } else {
          switch (transform.group(1)) {
            case "year" -> builder.year(column);
            case "month" -> builder.month(column);
            case "day" -> builder.day(column);
            default -> builder.hour(column);
          }
        }
      } catch (IllegalArgumentException e) {
        throw new UsageError("Invalid --partition-by '" + field + "': " + e.getMessage());
      }
    }
    return builder.build();
  }

  /** Splits on commas outside parentheses. */
  static List<String> splitTopLevel(String text) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    String last = text.substring(start);
    if (!last.isBlank() || !parts.isEmpty()) {
      parts.add(last);
    }
    return parts;
  }
}
