package io.lakestream.client.arrow;

import java.math.BigDecimal;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Computes {@link ColumnStats} of one vector in a single pass over its buffers, without boxing per
 * value except for decimals.
 */
final class ColumnStatsCollector {
  private ColumnStatsCollector() {}

  static ColumnStats collect(FieldVector vector) {
    ArrowType type = vector.getField().getType();
    ColumnStats.Kind kind = ColumnStats.Kind.of(type);
    int valueCount = vector.getValueCount();
    long nullCount = vector.getNullCount();
    if (kind == ColumnStats.Kind.NONE) {
      return ColumnStats.unordered(nullCount);
    }
    if (nullCount == valueCount) {
      return ColumnStats.allNull(kind, nullCount);
    }
    switch (kind) {
      case LONG:
        return longs(vector, type, nullCount);
      case DOUBLE:
        return doubles(vector, type, nullCount);
      case BINARY:
        return binary(vector, nullCount);
      default:
        return decimals(vector, nullCount);
    }
  }

  private static ColumnStats longs(FieldVector vector, ArrowType type, long nullCount) {
    int width = longWidth(type);
    boolean unsigned = type instanceof ArrowType.Int && !((ArrowType.Int) type).getIsSigned();
    ArrowBuf data = vector.getDataBuffer();
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < vector.getValueCount(); i++) {
      if (nullCount > 0 && vector.isNull(i)) {
        continue;
      }
      long value;
      switch (width) {
        case 0:
          value = ((BitVector) vector).get(i);
          break;
        case 1:
          value = unsigned ? data.getByte(i) & 0xFFL : data.getByte(i);
          break;
        case 2:
          value = unsigned ? data.getShort(2L * i) & 0xFFFFL : data.getShort(2L * i);
          break;
        case 4:
          value = unsigned ? data.getInt(4L * i) & 0xFFFFFFFFL : data.getInt(4L * i);
          break;
        default:
          value = data.getLong(8L * i);
          break;
      }
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    return ColumnStats.ofLongs(nullCount, min, max);
  }

  /** Bytes per value of a LONG-kind type, 0 for bit-packed booleans. */
  private static int longWidth(ArrowType type) {
    switch (type.getTypeID()) {
      case Bool:
        return 0;
      case Int:
        return ((ArrowType.Int) type).getBitWidth() / 8;
      case Date:
        return ((ArrowType.Date) type).getUnit() == DateUnit.DAY ? 4 : 8;
      case Time:
        return ((ArrowType.Time) type).getBitWidth() / 8;
      default:
        return 8;
    }
  }

  private static ColumnStats doubles(FieldVector vector, ArrowType type, long nullCount) {
    boolean single =
        ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.SINGLE;
    ArrowBuf data = vector.getDataBuffer();
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    boolean sawNumber = false;
    boolean sawNaN = false;
    for (int i = 0; i < vector.getValueCount(); i++) {
      if (nullCount > 0 && vector.isNull(i)) {
        continue;
      }
      double value = single ? data.getFloat(4L * i) : data.getDouble(8L * i);
      if (Double.isNaN(value)) {
        sawNaN = true;
        continue;
      }
      sawNumber = true;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    if (!sawNumber) {
      return ColumnStats.ofDoubles(nullCount, Double.NaN, Double.NaN);
    }
    return ColumnStats.ofDoubles(nullCount, min, sawNaN ? Double.NaN : max);
  }

  private static ColumnStats binary(FieldVector vector, long nullCount) {
    if (vector instanceof BaseVariableWidthVector variable) {
      return variableWidth(variable, nullCount);
    }
    ArrowBuf data = vector.getDataBuffer();
    int minIndex = -1;
    int maxIndex = -1;
    for (int i = 0; i < vector.getValueCount(); i++) {
      if (nullCount > 0 && vector.isNull(i)) {
        continue;
      }
      if (minIndex < 0) {
        minIndex = i;
        maxIndex = i;
        continue;
      }
      if (compare(vector, data, i, minIndex) < 0) {
        minIndex = i;
      } else if (compare(vector, data, i, maxIndex) > 0) {
        maxIndex = i;
      }
    }
    return ColumnStats.ofBinary(
        nullCount,
        lowerBound(bytes(vector, data, minIndex)),
        upperBound(bytes(vector, data, maxIndex)));
  }

  /**
   * Strings and binaries: the values and offsets are copied to the heap once, where comparisons run
   * on the JDK's vectorised array comparison instead of byte-by-byte checked reads.
   */
  private static ColumnStats variableWidth(BaseVariableWidthVector vector, long nullCount) {
    int count = vector.getValueCount();
    int[] offsets = new int[count + 1];
    vector
        .getOffsetBuffer()
        .nioBuffer(0, 4 * (count + 1))
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .asIntBuffer()
        .get(offsets);
    byte[] data = new byte[offsets[count]];
    vector.getDataBuffer().getBytes(0, data);
    int minIndex = -1;
    int maxIndex = -1;
    for (int i = 0; i < count; i++) {
      if (nullCount > 0 && vector.isNull(i)) {
        continue;
      }
      if (minIndex < 0) {
        minIndex = i;
        maxIndex = i;
        continue;
      }
      if (Arrays.compareUnsigned(
              data, offsets[i], offsets[i + 1], data, offsets[minIndex], offsets[minIndex + 1])
          < 0) {
        minIndex = i;
      } else if (Arrays.compareUnsigned(
              data, offsets[i], offsets[i + 1], data, offsets[maxIndex], offsets[maxIndex + 1])
          > 0) {
        maxIndex = i;
      }
    }
    return ColumnStats.ofBinary(
        nullCount,
        lowerBound(Arrays.copyOfRange(data, offsets[minIndex], offsets[minIndex + 1])),
        upperBound(Arrays.copyOfRange(data, offsets[maxIndex], offsets[maxIndex + 1])));
  }

  private static int compare(FieldVector vector, ArrowBuf data, int left, int right) {
    return ByteFunctionHelpers.compare(
        data,
        start(vector, left),
        end(vector, left),
        data,
        start(vector, right),
        end(vector, right));
  }

  private static byte[] bytes(FieldVector vector, ArrowBuf data, int index) {
    long start = start(vector, index);
    byte[] value = new byte[(int) (end(vector, index) - start)];
    data.getBytes(start, value);
    return value;
  }

  private static long start(FieldVector vector, int index) {
    if (vector instanceof BaseVariableWidthVector) {
      return vector.getOffsetBuffer().getInt(4L * index);
    }
    if (vector instanceof BaseLargeVariableWidthVector) {
      return vector.getOffsetBuffer().getLong(8L * index);
    }
    return (long) index * ((FixedSizeBinaryVector) vector).getByteWidth();
  }

  private static long end(FieldVector vector, int index) {
    if (vector instanceof FixedSizeBinaryVector) {
      return start(vector, index) + ((FixedSizeBinaryVector) vector).getByteWidth();
    }
    return start(vector, index + 1);
  }

  static byte[] lowerBound(byte[] min) {
    return min.length <= ColumnStats.MAX_BINARY_BOUND_LENGTH
        ? min
        : Arrays.copyOf(min, ColumnStats.MAX_BINARY_BOUND_LENGTH);
  }

  static byte[] upperBound(byte[] max) {
    if (max.length <= ColumnStats.MAX_BINARY_BOUND_LENGTH) {
      return max;
    }
    for (int i = ColumnStats.MAX_BINARY_BOUND_LENGTH - 1; i >= 0; i--) {
      if (max[i] != (byte) 0xFF) {
        byte[] bound = Arrays.copyOf(max, i + 1);
        bound[i]++;
        return bound;
      }
    }
    // A prefix of 0xFF bytes cannot be rounded up; keep the exact value.
    return max;
  }

  private static ColumnStats decimals(FieldVector vector, long nullCount) {
    BigDecimal min = null;
    BigDecimal max = null;
    for (int i = 0; i < vector.getValueCount(); i++) {
      BigDecimal value = (BigDecimal) vector.getObject(i);
      if (value == null) {
        continue;
      }
      if (min == null || value.compareTo(min) < 0) {
        min = value;
      }
      if (max == null || value.compareTo(max) > 0) {
        max = value;
      }
    }
    return ColumnStats.ofDecimals(nullCount, min, max);
  }
}
