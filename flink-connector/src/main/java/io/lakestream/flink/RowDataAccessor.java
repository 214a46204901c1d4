package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.RowAccessor;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * A Flink {@link RowData} as the client's writers read it ({@link RowAccessor}): numbers without
 * boxing, strings as the UTF-8 bytes Flink already holds (copied once, into the writer's batch),
 * and the other types as {@link RowValues} converts them. One accessor per sink writer, pointed at
 * each row in turn with {@link #of(RowData)}; not thread safe.
 */
final class RowDataAccessor implements RowAccessor {
  private static final byte BIGINT = 0;
  private static final byte INT = 1;
  private static final byte SMALLINT = 2;
  private static final byte TINYINT = 3;
  private static final byte DATE = 4;
  private static final byte TIME = 5;
  private static final byte TIMESTAMP = 6;
  private static final byte DOUBLE = 7;
  private static final byte STRING = 8;
  private static final byte BINARY = 9;
  private static final byte OTHER = 10;

  private final RowValues values;
  private final LogicalType[] types;
  private final byte[] kinds;
  private final int[] precisions;
  private RowData row;

  RowDataAccessor(RowValues values, LogicalType[] types) {
    this.values = requireNonNull(values, "values is null");
    this.types = types.clone();
    this.kinds = new byte[types.length];
    this.precisions = new int[types.length];
    for (int i = 0; i < types.length; i++) {
      kinds[i] = kindOf(types[i]);
      if (types[i] instanceof TimestampType timestamp) {
        precisions[i] = timestamp.getPrecision();
      } else if (types[i] instanceof LocalZonedTimestampType timestamp) {
        precisions[i] = timestamp.getPrecision();
      }
    }
  }

  private static byte kindOf(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BIGINT -> BIGINT;
      case INTEGER -> INT;
      case SMALLINT -> SMALLINT;
      case TINYINT -> TINYINT;
      case DATE -> DATE;
      case TIME_WITHOUT_TIME_ZONE -> TIME;
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> TIMESTAMP;
      case DOUBLE -> DOUBLE;
      case CHAR, VARCHAR -> STRING;
      case BINARY, VARBINARY -> BINARY;
      default -> OTHER;
    };
  }

  /** Points the accessor at {@code row}, whose fields are of the accessor's types. */
  RowDataAccessor of(RowData row) {
    this.row = row;
    return this;
  }

  @Override
  public int columnCount() {
    return kinds.length;
  }

  @Override
  public boolean isNullAt(int column) {
    return row.isNullAt(column);
  }

  @Override
  public long getLong(int column) {
    return switch (kinds[column]) {
      case BIGINT -> row.getLong(column);
      case TIME -> row.getInt(column) * 1000L;
      case TIMESTAMP -> {
        TimestampData timestamp = row.getTimestamp(column, precisions[column]);
        yield Math.addExact(
            Math.multiplyExact(timestamp.getMillisecond(), 1000L),
            timestamp.getNanoOfMillisecond() / 1000);
      }
      default -> throw mismatch(column, "a 64-bit integer, time or timestamp");
    };
  }

  @Override
  public int getInt(int column) {
    return switch (kinds[column]) {
      case INT, DATE -> row.getInt(column);
      case SMALLINT -> row.getShort(column);
      case TINYINT -> row.getByte(column);
      default -> throw mismatch(column, "a 32-bit integer or date");
    };
  }

  @Override
  public double getDouble(int column) {
    if (kinds[column] != DOUBLE) {
      throw mismatch(column, "a double");
    }
    return row.getDouble(column);
  }

  @Override
  public void writeBytes(int column, ByteTarget target) {
    switch (kinds[column]) {
      case STRING -> writeString(row.getString(column), target);
      case BINARY -> {
        byte[] bytes = row.getBinary(column);
        target.write(bytes, 0, bytes.length);
      }
      default -> throw mismatch(column, "a string or binary value");
    }
  }

  /** Hands over the UTF-8 bytes Flink holds; encodes only a string that has none yet. */
  private static void writeString(StringData string, ByteTarget target) {
    if (string instanceof BinaryStringData binary && binary.getBinarySection() != null) {
      MemorySegment[] segments = binary.getSegments();
      int size = binary.getSizeInBytes();
      if (segments.length == 1 && !segments[0].isOffHeap()) {
        target.write(segments[0].getArray(), binary.getOffset(), size);
      } else {
        byte[] bytes = binary.toBytes();
        target.write(bytes, 0, bytes.length);
      }
      return;
    }
    byte[] bytes = string.toString().getBytes(StandardCharsets.UTF_8);
    target.write(bytes, 0, bytes.length);
  }

  @Override
  public Object getObject(int column) {
    return values.value(row, column);
  }

  private IllegalArgumentException mismatch(int column, String expected) {
    return new IllegalArgumentException(
        "Column "
            + column
            + " of the Flink rows is "
            + types[column]
            + ", but the table's column takes "
            + expected);
  }
}
