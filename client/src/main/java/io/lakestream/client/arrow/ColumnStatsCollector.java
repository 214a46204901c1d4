package io.lakestream.client.arrow;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
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
    int count = vector.getValueCount();
    if (nullCount == 0 && !unsigned && (width == 8 || width == 4)) {
      // Without nulls, the values are read through a buffer view, without a checked read and a
      // width dispatch per value (a third of a batch's statistics time before).
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      if (width == 8) {
        LongBuffer values =
            data.nioBuffer(0, 8 * count).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
        for (int i = 0; i < count; i++) {
          long value = values.get(i);
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
      } else {
        IntBuffer values =
            data.nioBuffer(0, 4 * count).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
        int intMin = Integer.MAX_VALUE;
        int intMax = Integer.MIN_VALUE;
        for (int i = 0; i < count; i++) {
          int value = values.get(i);
          intMin = Math.min(intMin, value);
          intMax = Math.max(intMax, value);
        }
        min = intMin;
        max = intMax;
      }
      return ColumnStats.ofLongs(nullCount, min, max);
    }
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
    int count = vector.getValueCount();
    // As longs: without nulls, read through a buffer view without a checked read per value.
    DoubleBuffer plain =
        nullCount == 0 && !single
            ? data.nioBuffer(0, 8 * count).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer()
            : null;
    for (int i = 0; i < count; i++) {
      double value;
      if (plain != null) {
        value = plain.get(i);
      } else if (nullCount > 0 && vector.isNull(i)) {
        continue;
      } else {
        value = single ? data.getFloat(4L * i) : data.getDouble(8L * i);
      }
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
    long minPrefix = 0;
    long maxPrefix = 0;
    // Whether the last new bound was a max: the next value is then compared with the max first.
    boolean rising = false;
    for (int i = 0; i < count; i++) {
      if (nullCount > 0 && vector.isNull(i)) {
        continue;
      }
      long prefix = prefix(data, offsets[i], offsets[i + 1]);
      if (minIndex < 0) {
        minIndex = i;
        maxIndex = i;
        minPrefix = prefix;
        maxPrefix = prefix;
        continue;
      }
      // A value above the max is not below the min: in a batch whose values mostly rise (ids,
      // times as text) one comparison per value instead of two.
      if (rising) {
        if (compare(data, offsets, i, prefix, maxIndex, maxPrefix) > 0) {
          maxIndex = i;
          maxPrefix = prefix;
        } else if (compare(data, offsets, i, prefix, minIndex, minPrefix) < 0) {
          minIndex = i;
          minPrefix = prefix;
          rising = false;
        }
      } else if (compare(data, offsets, i, prefix, minIndex, minPrefix) < 0) {
        minIndex = i;
        minPrefix = prefix;
      } else if (compare(data, offsets, i, prefix, maxIndex, maxPrefix) > 0) {
        maxIndex = i;
        maxPrefix = prefix;
        rising = true;
      }
    }
    return ColumnStats.ofBinary(
        nullCount,
        lowerBound(Arrays.copyOfRange(data, offsets[minIndex], offsets[minIndex + 1])),
        upperBound(Arrays.copyOfRange(data, offsets[maxIndex], offsets[maxIndex + 1])));
  }

  /**
   * The first 8 bytes of {@code data[start, end)} as an unsigned big-endian number, padded with
   * zero bytes: values whose prefixes differ compare as their prefixes do (a zero byte pads only
   * past a value's end, where a shorter value sorts first anyway), so most comparisons of a batch's
   * values need no more than this.
   */
  private static long prefix(byte[] data, int start, int end) {
    if (end - start >= Long.BYTES) {
      return (long) BIG_ENDIAN_LONGS.get(data, start);
    }
    long prefix = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      prefix = (prefix << 8) | (start + i < end ? data[start + i] & 0xFFL : 0);
    }
    return prefix;
  }

  /** Compares values {@code left} and {@code right} of {@code data}, by prefix first. */
  private static int compare(
      byte[] data, int[] offsets, int left, long leftPrefix, int right, long rightPrefix) {
    if (leftPrefix != rightPrefix) {
      return Long.compareUnsigned(leftPrefix, rightPrefix);
    }
    return Arrays.compareUnsigned(
        data, offsets[left], offsets[left + 1], data, offsets[right], offsets[right + 1]);
  }

  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

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
