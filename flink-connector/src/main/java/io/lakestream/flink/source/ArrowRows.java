package io.lakestream.flink.source;

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
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Copies rows of a log batch (the client's Arrow vectors) into Flink's binary row format, in the
 * order of the source's produced columns: one contiguous buffer per row, no boxed values, so Flink
 * copies a row between operators with one array copy. A column the batch lacks (it was written
 * before the column was added) reads as null. Values are copied out, so the batch may be closed
 * right after.
 */
final class ArrowRows {
  // Room for the variable-length part of a row before its buffer grows.
  private static final int VARIABLE_BYTES_PER_COLUMN = 24;

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
      readers[i] = vector == null ? nullColumn(types[i]) : column(vector, types[i]);
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
    BinaryRowData read(int index) {
      BinaryRowData row = new BinaryRowData(columns.length);
      BinaryRowWriter writer = new BinaryRowWriter(row, columns.length * VARIABLE_BYTES_PER_COLUMN);
      for (int i = 0; i < columns.length; i++) {
        columns[i].write(writer, i, index);
      }
      writer.complete();
      return row;
    }
  }

  /** Writes one column's value of a row at a position of a row being written. */
  @FunctionalInterface
  private interface Column {
    void write(BinaryRowWriter writer, int position, int row);
  }

  /**
   * How a null of the type is written: decimals and timestamps too wide for the fixed part keep
   * their room in the variable part, as Flink's own writers do.
   */
  private static Column nullColumn(LogicalType type) {
    if (type instanceof DecimalType decimal && !DecimalData.isCompact(decimal.getPrecision())) {
      int precision = decimal.getPrecision();
      return (writer, position, row) -> writer.writeDecimal(position, null, precision);
    }
    int timestampPrecision = timestampPrecision(type);
    if (timestampPrecision >= 0 && !TimestampData.isCompact(timestampPrecision)) {
      return (writer, position, row) -> writer.writeTimestamp(position, null, timestampPrecision);
    }
    return (writer, position, row) -> writer.setNullAt(position);
  }

  private static int timestampPrecision(LogicalType type) {
    if (type instanceof TimestampType timestamp) {
      return timestamp.getPrecision();
    }
    if (type instanceof LocalZonedTimestampType timestamp) {
      return timestamp.getPrecision();
    }
    return -1;
  }

  private static Column column(FieldVector vector, LogicalType type) {
    Column value = value(vector, type);
    Column nulls = nullColumn(type);
    return (writer, position, row) -> {
      if (vector.isNull(row)) {
        nulls.write(writer, position, row);
      } else {
        value.write(writer, position, row);
      }
    };
  }

  private static Column value(FieldVector vector, LogicalType type) {
    if (vector instanceof BigIntVector v) {
      return (writer, position, row) -> writer.writeLong(position, v.get(row));
    }
    if (vector instanceof IntVector v) {
      return (writer, position, row) -> writer.writeInt(position, v.get(row));
    }
    if (vector instanceof Float8Vector v) {
      return (writer, position, row) -> writer.writeDouble(position, v.get(row));
    }
    if (vector instanceof Float4Vector v) {
      return (writer, position, row) -> writer.writeFloat(position, v.get(row));
    }
    if (vector instanceof BitVector v) {
      return (writer, position, row) -> writer.writeBoolean(position, v.get(row) != 0);
    }
    if (vector instanceof VarCharVector v) {
      return (writer, position, row) ->
          writer.writeString(position, BinaryStringData.fromBytes(v.get(row)));
    }
    if (vector instanceof VarBinaryVector v) {
      return (writer, position, row) -> writer.writeBinary(position, v.get(row));
    }
    if (vector instanceof FixedSizeBinaryVector v) {
      return (writer, position, row) -> writer.writeBinary(position, v.get(row));
    }
    if (vector instanceof DateDayVector v) {
      return (writer, position, row) -> writer.writeInt(position, v.get(row));
    }
    if (vector instanceof TimeMicroVector v) {
      // Flink's TIME values are milliseconds of the day.
      return (writer, position, row) -> writer.writeInt(position, (int) (v.get(row) / 1000));
    }
    int precision = timestampPrecision(type);
    if (precision >= 0) {
      if (vector instanceof TimeStampMicroVector v) {
        return (writer, position, row) ->
            writer.writeTimestamp(position, micros(v.get(row)), precision);
      }
      if (vector instanceof TimeStampMicroTZVector v) {
        return (writer, position, row) ->
            writer.writeTimestamp(position, micros(v.get(row)), precision);
      }
      if (vector instanceof TimeStampNanoVector v) {
        return (writer, position, row) ->
            writer.writeTimestamp(position, nanos(v.get(row)), precision);
      }
      if (vector instanceof TimeStampNanoTZVector v) {
        return (writer, position, row) ->
            writer.writeTimestamp(position, nanos(v.get(row)), precision);
      }
    }
    if (vector instanceof DecimalVector v && type instanceof DecimalType decimal) {
      int decimalPrecision = decimal.getPrecision();
      int scale = decimal.getScale();
      return (writer, position, row) ->
          writer.writeDecimal(
              position,
              DecimalData.fromBigDecimal(v.getObject(row), decimalPrecision, scale),
              decimalPrecision);
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
