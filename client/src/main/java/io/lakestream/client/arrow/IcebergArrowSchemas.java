package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Arrow schema of a streaming table's batches, derived from the table's Iceberg schema. Each
 * top-level Iceberg column becomes one Arrow field with the same name, nullable unless the column
 * is required, and the Iceberg field id as field metadata under {@link #FIELD_ID_KEY} (the key
 * PyArrow and PyIceberg use).
 *
 * <table>
 *   <caption>Type mapping</caption>
 *   <tr><th>Iceberg</th><th>Arrow</th></tr>
 *   <tr><td>boolean</td><td>Bool</td></tr>
 *   <tr><td>int</td><td>Int(32, signed)</td></tr>
 *   <tr><td>long</td><td>Int(64, signed)</td></tr>
 *   <tr><td>float</td><td>FloatingPoint(SINGLE)</td></tr>
 *   <tr><td>double</td><td>FloatingPoint(DOUBLE)</td></tr>
 *   <tr><td>decimal(P, S)</td><td>Decimal(P, S, 128)</td></tr>
 *   <tr><td>date</td><td>Date(DAY)</td></tr>
 *   <tr><td>time</td><td>Time(MICROSECOND, 64)</td></tr>
 *   <tr><td>timestamp</td><td>Timestamp(MICROSECOND, no zone)</td></tr>
 *   <tr><td>timestamptz</td><td>Timestamp(MICROSECOND, "UTC")</td></tr>
 *   <tr><td>timestamp_ns / timestamptz_ns</td><td>Timestamp(NANOSECOND, no zone / "UTC")</td></tr>
 *   <tr><td>string</td><td>Utf8</td></tr>
 *   <tr><td>uuid</td><td>FixedSizeBinary(16)</td></tr>
 *   <tr><td>fixed(L)</td><td>FixedSizeBinary(L)</td></tr>
 *   <tr><td>binary</td><td>Binary</td></tr>
 * </table>
 *
 * Nested types (struct, list, map) and the v3 types variant, geometry, geography and unknown are
 * not supported yet and fail with {@link IllegalArgumentException} naming the column. The mapping
 * is stateless and thread-safe.
 */
public final class IcebergArrowSchemas {
  /** Arrow field metadata key that holds the Iceberg field id, as a decimal string. */
  public static final String FIELD_ID_KEY = "PARQUET:field_id";

  private IcebergArrowSchemas() {}

  /**
   * The Arrow schema of a table's batches.
   *
   * @param schema the table's Iceberg schema
   * @return one Arrow field per top-level column, in the schema's order
   * @throws IllegalArgumentException if a column has a type outside the mapping
   */
  public static Schema toArrowSchema(org.apache.iceberg.Schema schema) {
    requireNonNull(schema, "schema is null");
    List<Field> fields = new ArrayList<>(schema.columns().size());
    for (Types.NestedField column : schema.columns()) {
      fields.add(toArrowField(column));
    }
    return new Schema(fields);
  }

  /**
   * The Arrow field of one top-level column.
   *
   * @param column the Iceberg column
   * @return the field, with the column's field id as metadata
   * @throws IllegalArgumentException if the column has a type outside the mapping
   */
  public static Field toArrowField(Types.NestedField column) {
    requireNonNull(column, "column is null");
    FieldType fieldType =
        new FieldType(
            column.isOptional(),
            toArrowType(column),
            null,
            Map.of(FIELD_ID_KEY, Integer.toString(column.fieldId())));
    return new Field(column.name(), fieldType, List.of());
  }

  /**
   * The Iceberg field id stored in the field's metadata, if any.
   *
   * @param field an Arrow field
   * @return the id under {@link #FIELD_ID_KEY}, or empty when there is none
   * @throws IllegalArgumentException if the metadata value is not an integer
   */
  public static OptionalInt fieldId(Field field) {
    requireNonNull(field, "field is null");
    String value = field.getMetadata().get(FIELD_ID_KEY);
    if (value == null) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Field " + field.getName() + " has field id metadata '" + value + "', not an integer", e);
    }
  }

  private static ArrowType toArrowType(Types.NestedField column) {
    Type type = column.type();
    switch (type.typeId()) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case INTEGER:
        return new ArrowType.Int(32, true);
      case LONG:
        return new ArrowType.Int(64, true);
      case FLOAT:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME:
        return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP:
        return new ArrowType.Timestamp(
            TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
      case TIMESTAMP_NANO:
        return new ArrowType.Timestamp(
            TimeUnit.NANOSECOND,
            ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? "UTC" : null);
      case STRING:
        return ArrowType.Utf8.INSTANCE;
      case UUID:
        return new ArrowType.FixedSizeBinary(16);
      case FIXED:
        return new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
      case BINARY:
        return ArrowType.Binary.INSTANCE;
      default:
        throw new IllegalArgumentException(
            "Cannot map column "
                + column.name()
                + " (id "
                + column.fieldId()
                + ") of Iceberg type "
                + type
                + " to Arrow: streaming tables support boolean, int, long, float, double,"
                + " decimal, date, time, timestamp, timestamptz, timestamp_ns, timestamptz_ns,"
                + " string, uuid, fixed and binary columns");
    }
  }
}
