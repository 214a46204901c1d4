package io.lakestream.flink.source;

import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Copies rows of a log batch (the client's Arrow vectors) into Flink's internal row format, in the
 * order of the source's produced columns. A column the batch lacks (it was written before the
 * column was added) reads as null. Values are copied out, so the batch may be closed right after.
 */
final class ArrowRows {
  private final List<String> columns;
  private final LogicalType[] types;

  ArrowRows(List<String> columns, List<LogicalType> types) {
    this.columns = List.copyOf(columns);
    this.types = types.toArray(LogicalType[]::new);
  }

  /** A reader of the given batch's rows. */
  Reader reader(VectorSchemaRoot root) {
    Column[] readers = new Column[columns.size()];
    for (int i = 0; i < readers.length; i++) {
      FieldVector vector = root.getVector(columns.get(i));
      readers[i] = vector == null ? row -> null : column(vector, types[i]);
    }
    return new Reader(readers);
  }

  /** The rows of one batch. */
  static final class Reader {
    private final Column[] columns;

    private Reader(Column[] columns) {
      this.columns = columns;
    }

    /** A new row with the values of row {@code index}, of insert kind. */
    GenericRowData read(int index) {
      GenericRowData row = new GenericRowData(columns.length);
      for (int i = 0; i < columns.length; i++) {
        row.setField(i, columns[i].value(index));
      }
      return row;
    }
  }

  @FunctionalInterface
  private interface Column {
    Object value(int row);
  }

  private static Column column(FieldVector vector, LogicalType type) {
    if (vector instanceof BigIntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof IntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof Float8Vector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof Float4Vector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof BitVector v) {
      return row -> v.isNull(row) ? null : v.get(row) != 0;
    }
    if (vector instanceof VarCharVector v) {
      return row -> v.isNull(row) ? null : StringData.fromBytes(v.get(row));
    }
    if (vector instanceof VarBinaryVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof FixedSizeBinaryVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof DateDayVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof TimeMicroVector v) {
      // Flink's TIME values are milliseconds of the day.
      return row -> v.isNull(row) ? null : (int) (v.get(row) / 1000);
    }
    if (vector instanceof TimeStampMicroVector v) {
      return row -> v.isNull(row) ? null : micros(v.get(row));
    }
    if (vector instanceof TimeStampMicroTZVector v) {
      return row -> v.isNull(row) ? null : micros(v.get(row));
    }
    if (vector instanceof TimeStampNanoVector v) {
      return row -> v.isNull(row) ? null : nanos(v.get(row));
    }
    if (vector instanceof TimeStampNanoTZVector v) {
      return row -> v.isNull(row) ? null : nanos(v.get(row));
    }
    if (vector instanceof DecimalVector v && type instanceof DecimalType decimal) {
      int precision = decimal.getPrecision();
      int scale = decimal.getScale();
      return row -> {
        if (v.isNull(row)) {
          return null;
        }
        BigDecimal value = v.getObject(row);
        return DecimalData.fromBigDecimal(value, precision, scale);
      };
    }
    throw new IllegalArgumentException(
        "Column "
            + vector.getName()
            + " of Arrow type "
            + vector.getField().getType()
            + " cannot be read as Flink type "
            + type);
  }

  private static TimestampData micros(long micros) {
    return TimestampData.fromEpochMillis(
        Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
  }

  private static TimestampData nanos(long nanos) {
    return TimestampData.fromEpochMillis(
        Math.floorDiv(nanos, 1_000_000), (int) Math.floorMod(nanos, 1_000_000));
  }
}
