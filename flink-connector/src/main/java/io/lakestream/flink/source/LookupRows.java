package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Turns the rows a {@code Lookuper} answers with (the client's plain values in the table's column
 * order: Long, Integer, Float, Double, Boolean, BigDecimal, String, byte[], Integer days for dates,
 * Long microseconds for times and timestamps) into Flink's internal rows of the lookup's produced
 * columns. Serializable, so that a lookup function carries it to its tasks.
 */
final class LookupRows implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int[] positions;
  private final LogicalType[] types;

  /**
   * @param positions for each produced column, its position in the looked-up rows
   * @param types the produced columns' Flink types
   */
  LookupRows(int[] positions, List<LogicalType> types) {
    requireNonNull(positions, "positions is null");
    requireNonNull(types, "types is null");
    if (positions.length != types.size()) {
      throw new IllegalArgumentException(
          positions.length + " positions for " + types.size() + " produced columns");
    }
    this.positions = positions.clone();
    this.types = types.toArray(LogicalType[]::new);
  }

  /** The produced row of a looked-up row, of insert kind. */
  GenericRowData of(Object[] values) {
    GenericRowData row = new GenericRowData(positions.length);
    for (int i = 0; i < positions.length; i++) {
      int position = positions[i];
      // A row of a newer schema (a column added since the job started) has more values.
      Object value = position < values.length ? values[position] : null;
      row.setField(i, value == null ? null : convert(types[i], value));
    }
    return row;
  }

  static Object convert(LogicalType type, Object value) {
    return switch (type.getTypeRoot()) {
      case CHAR, VARCHAR -> StringData.fromString((String) value);
      case DECIMAL -> {
        DecimalType decimal = (DecimalType) type;
        yield DecimalData.fromBigDecimal(
            (BigDecimal) value, decimal.getPrecision(), decimal.getScale());
      }
      case TINYINT -> ((Number) value).byteValue();
      case SMALLINT -> ((Number) value).shortValue();
      case INTEGER, DATE -> ((Number) value).intValue();
      case BIGINT -> ((Number) value).longValue();
      // Flink's TIME values are milliseconds of the day.
      case TIME_WITHOUT_TIME_ZONE -> (int) (((Long) value) / 1000);
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> micros((Long) value);
      case BOOLEAN, FLOAT, DOUBLE, BINARY, VARBINARY -> value;
      default ->
          throw new IllegalArgumentException(
              "Cannot read a looked-up " + value.getClass().getSimpleName() + " as Flink " + type);
    };
  }

  private static TimestampData micros(long micros) {
    return TimestampData.fromEpochMillis(
        Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
  }
}
