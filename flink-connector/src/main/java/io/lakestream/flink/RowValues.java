package io.lakestream.flink;

import java.io.Serializable;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Flink's internal row values as the client's writers take them ({@code AppendWriter#append}):
 * {@code StringData} as String, {@code DecimalData} as BigDecimal, dates as days (Integer), times
 * as microseconds of the day and timestamps as microseconds since the epoch (Long). Serializable,
 * so that a sink carries it to its tasks.
 */
public final class RowValues implements Serializable {
  private static final long serialVersionUID = 1L;

  private final RowData.FieldGetter[] getters;
  private final LogicalType[] types;

  public RowValues(LogicalType[] types) {
    this.types = types.clone();
    this.getters = new RowData.FieldGetter[types.length];
    for (int i = 0; i < types.length; i++) {
      getters[i] = RowData.createFieldGetter(types[i], i);
    }
  }

  /** The values of a row, one per column. */
  Object[] of(RowData row) {
    Object[] values = new Object[getters.length];
    for (int i = 0; i < getters.length; i++) {
      values[i] = convert(types[i], getters[i].getFieldOrNull(row));
    }
    return values;
  }

  /** The values of some columns of a row (a primary key's, in schema order). */
  public Object[] of(RowData row, int[] columns) {
    Object[] values = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      int column = columns[i];
      values[i] = convert(types[column], getters[column].getFieldOrNull(row));
    }
    return values;
  }

  /** The value of one column of a row. */
  Object value(RowData row, int column) {
    return convert(types[column], getters[column].getFieldOrNull(row));
  }

  /**
   * An accessor that hands rows of these types to the client's writers column by column (one per
   * writer: it is not thread safe).
   */
  RowDataAccessor accessor() {
    return new RowDataAccessor(this, types);
  }

  private static Object convert(LogicalType type, Object value) {
    if (value == null) {
      return null;
    }
    return switch (type.getTypeRoot()) {
      case CHAR, VARCHAR -> ((StringData) value).toString();
      case DECIMAL -> ((DecimalData) value).toBigDecimal();
      case TIME_WITHOUT_TIME_ZONE -> ((Integer) value) * 1000L;
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
        TimestampData timestamp = (TimestampData) value;
        yield Math.addExact(
            Math.multiplyExact(timestamp.getMillisecond(), 1000L),
            timestamp.getNanoOfMillisecond() / 1000);
      }
      case TINYINT -> ((Byte) value).intValue();
      case SMALLINT -> ((Short) value).intValue();
      default -> value;
    };
  }
}
