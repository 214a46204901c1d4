package io.lakestream.flink;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The column types of a Lakestream table in Flink and back: the table's schema is an Iceberg
 * schema, so this is the Iceberg type system as Flink sees it. Iceberg keeps time and timestamps in
 * microseconds, hence {@code TIME(6)}, {@code TIMESTAMP(6)} and {@code TIMESTAMP_LTZ(6)}.
 *
 * <p>A streaming table takes flat columns only; {@link #toIceberg} refuses nested Flink types and
 * the types Iceberg has no equivalent for, naming the column and the type.
 *
 * <p>Public for the DataStream builders ({@code LakestreamSourceBuilder} reads a table's columns).
 */
public final class FlinkTypes {
  /** The precision of Iceberg's time and timestamp types (microseconds). */
  static final int MICROS = 6;

  /** The precision of Iceberg's nanosecond timestamps (plain Iceberg tables only). */
  static final int NANOS = 9;

  private FlinkTypes() {}

  /**
   * The Flink type of an Iceberg type; {@code NOT NULL} for a required field is the caller's.
   *
   * @throws UnsupportedTypeException for a type Flink cannot represent
   */
  static DataType toFlink(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> DataTypes.BOOLEAN();
      case INTEGER -> DataTypes.INT();
      case LONG -> DataTypes.BIGINT();
      case FLOAT -> DataTypes.FLOAT();
      case DOUBLE -> DataTypes.DOUBLE();
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield DataTypes.DECIMAL(decimal.precision(), decimal.scale());
      }
      case DATE -> DataTypes.DATE();
      case TIME -> DataTypes.TIME(MICROS);
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC()
              ? DataTypes.TIMESTAMP_LTZ(MICROS)
              : DataTypes.TIMESTAMP(MICROS);
      case TIMESTAMP_NANO ->
          ((Types.TimestampNanoType) type).shouldAdjustToUTC()
              ? DataTypes.TIMESTAMP_LTZ(NANOS)
              : DataTypes.TIMESTAMP(NANOS);
      case STRING -> DataTypes.STRING();
      case UUID -> DataTypes.BINARY(16);
      case FIXED -> DataTypes.BINARY(((Types.FixedType) type).length());
      case BINARY -> DataTypes.BYTES();
      case STRUCT -> {
        List<DataTypes.Field> fields = new ArrayList<>();
        for (Types.NestedField field : type.asStructType().fields()) {
          DataType fieldType = nullable(toFlink(field.type()), field.isOptional());
          fields.add(
              field.doc() == null
                  ? DataTypes.FIELD(field.name(), fieldType)
                  : DataTypes.FIELD(field.name(), fieldType, field.doc()));
        }
        yield DataTypes.ROW(fields);
      }
      case LIST -> {
        Types.ListType list = type.asListType();
        yield DataTypes.ARRAY(nullable(toFlink(list.elementType()), list.isElementOptional()));
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        yield DataTypes.MAP(
            toFlink(map.keyType()).notNull(),
            nullable(toFlink(map.valueType()), map.isValueOptional()));
      }
      default -> throw new UnsupportedTypeException("Iceberg type " + type + " has no Flink type");
    };
  }

  /** The Flink type of a field, {@code NOT NULL} when it is required. */
  public static DataType toFlink(Types.NestedField field) {
    return nullable(toFlink(field.type()), field.isOptional());
  }

  private static DataType nullable(DataType type, boolean optional) {
    return optional ? type.nullable() : type.notNull();
  }

  /**
   * The Iceberg type a column of a streaming table created from Flink gets. {@code TINYINT} and
   * {@code SMALLINT} widen to {@code int} and {@code CHAR}/{@code VARCHAR} to {@code string}, as
   * Iceberg's own Flink connector does.
   *
   * @throws UnsupportedTypeException naming the column and the type for a type a streaming table
   *     cannot take
   */
  static Type toIceberg(String column, LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> Types.BooleanType.get();
      case TINYINT, SMALLINT, INTEGER -> Types.IntegerType.get();
      case BIGINT -> Types.LongType.get();
      case FLOAT -> Types.FloatType.get();
      case DOUBLE -> Types.DoubleType.get();
      case DECIMAL -> {
        DecimalType decimal = (DecimalType) type;
        yield Types.DecimalType.of(decimal.getPrecision(), decimal.getScale());
      }
      case DATE -> Types.DateType.get();
      case TIME_WITHOUT_TIME_ZONE -> Types.TimeType.get();
      case TIMESTAMP_WITHOUT_TIME_ZONE -> {
        checkPrecision(column, type, ((TimestampType) type).getPrecision());
        yield Types.TimestampType.withoutZone();
      }
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
        checkPrecision(column, type, ((LocalZonedTimestampType) type).getPrecision());
        yield Types.TimestampType.withZone();
      }
      case CHAR, VARCHAR -> Types.StringType.get();
      case BINARY, VARBINARY -> Types.BinaryType.get();
      default ->
          throw new UnsupportedTypeException(
              "Column "
                  + column
                  + " has type "
                  + type.asSummaryString()
                  + ", which a Lakestream table cannot take (flat columns of BOOLEAN, INT, BIGINT,"
                  + " FLOAT, DOUBLE, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, STRING or"
                  + " BYTES)");
    };
  }

  private static void checkPrecision(String column, LogicalType type, int precision) {
    if (precision > MICROS) {
      throw new UnsupportedTypeException(
          "Column "
              + column
              + " has type "
              + type.asSummaryString()
              + ": Lakestream keeps timestamps in microseconds, use a precision of at most "
              + MICROS);
    }
  }

  /** A type that has no counterpart on the other side; the message names the column and type. */
  static final class UnsupportedTypeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UnsupportedTypeException(String message) {
      super(message);
    }
  }
}
