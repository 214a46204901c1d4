package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * The complete check of a decoded vector's values, as strict as Arrow's {@code
 * ValueVectorUtility.validateFull} and an order of magnitude cheaper for the columns batches are
 * made of.
 *
 * <p>Arrow's full validation checks every string's UTF-8 by building a {@code Text} per value and
 * checks offsets through a formatting helper per value; on a batch of 8,192 rows with five string
 * columns that took longer than decoding, appending and fsyncing the batch together. Here the
 * structure is checked by Arrow's cheap {@code validate} (buffer sizes against the value count),
 * and then:
 *
 * <ul>
 *   <li>strings and binaries: the offsets start at or above zero, never go backwards and end inside
 *       the data buffer; every non-null string is well-formed UTF-8 (no overlong form, no
 *       surrogate, nothing above U+10FFFF): a column whose bytes are all ASCII in one pass over its
 *       data eight bytes at a time, any other value by value;
 *   <li>fixed-width scalars (integers, floats, dates, times, timestamps, booleans) need nothing
 *       more: every bit pattern of their buffers is a value;
 *   <li>decimals: every value fits the column's precision (checked here: Arrow's own check refuses
 *       a value that uses every digit);
 *   <li>fixed-size binaries and nested types: Arrow's full validation, which recurses into
 *       children.
 * </ul>
 */
final class ValueChecks {
  private static final long HIGH_BITS = 0x8080808080808080L;

  private ValueChecks() {}

  /**
   * Checks every value of {@code vector}.
   *
   * @throws IllegalArgumentException naming the column, the row and the problem
   */
  static void checkFull(FieldVector vector) {
    requireNonNull(vector, "vector is null");
    if (vector instanceof DecimalVector decimal) {
      ValueVectorUtility.validate(vector);
      checkDecimals(vector, decimal.getPrecision(), decimal::getObject);
    } else if (vector instanceof Decimal256Vector decimal) {
      ValueVectorUtility.validate(vector);
      checkDecimals(vector, decimal.getPrecision(), decimal::getObject);
    } else if (vector instanceof FixedSizeBinaryVector) {
      ValueVectorUtility.validateFull(vector);
    } else if (vector instanceof BaseFixedWidthVector) {
      ValueVectorUtility.validate(vector);
    } else if (vector instanceof BaseVariableWidthVector variable) {
      ValueVectorUtility.validate(variable);
      checkVariableWidth(variable, variable instanceof VarCharVector);
    } else {
      ValueVectorUtility.validateFull(vector);
    }
  }

  private static void checkVariableWidth(BaseVariableWidthVector vector, boolean utf8) {
    int count = vector.getValueCount();
    if (count == 0) {
      return;
    }
    ArrowBuf offsetBuffer = vector.getOffsetBuffer();
    ByteBuffer offsets = offsetBuffer.nioBuffer(0, 4 * (count + 1)).order(ByteOrder.LITTLE_ENDIAN);
    ArrowBuf dataBuffer = vector.getDataBuffer();
    long dataLength = dataBuffer.capacity();
    int previous = offsets.getInt(0);
    if (previous < 0) {
      throw invalid(vector, 0, "starts at offset " + previous);
    }
    for (int i = 1; i <= count; i++) {
      int offset = offsets.getInt(4 * i);
      if (offset < previous) {
        throw invalid(vector, i - 1, "ends at offset " + offset + " before its start " + previous);
      }
      previous = offset;
    }
    if (previous > dataLength) {
      throw invalid(
          vector, count - 1, "ends at offset " + previous + " past the data's " + dataLength);
    }
    if (!utf8 || previous == 0) {
      return;
    }
    ByteBuffer data = dataBuffer.nioBuffer(0, previous).order(ByteOrder.LITTLE_ENDIAN);
    if (isAscii(data, offsets.getInt(0), previous)) {
      // Every value lies inside the bytes checked, and ASCII is well-formed however it is cut.
      return;
    }
    boolean nullable = vector.getNullCount() > 0;
    for (int i = 0; i < count; i++) {
      if (nullable && vector.isNull(i)) {
        continue;
      }
      int start = offsets.getInt(4 * i);
      int end = offsets.getInt(4 * (i + 1));
      int bad = firstInvalidUtf8(data, start, end);
      if (bad >= 0) {
        throw invalid(
            vector, i, "is not UTF-8 (byte " + (bad - start) + " of " + (end - start) + ")");
      }
    }
  }

  /** Whether every byte in {@code [start, end)} of {@code data} is ASCII (below 0x80). */
  static boolean isAscii(ByteBuffer data, int start, int end) {
    int i = start;
    long high = 0;
    for (; end - i >= 8; i += 8) {
      high |= data.getLong(i);
    }
    for (; i < end; i++) {
      high |= data.get(i);
    }
    return (high & HIGH_BITS) == 0;
  }

  /**
   * The index of the first byte in {@code [start, end)} of {@code data} where well-formed UTF-8
   * stops, or -1 if the whole range is well-formed.
   */
  static int firstInvalidUtf8(ByteBuffer data, int start, int end) {
    int i = start;
    while (i < end) {
      if (end - i >= 8 && (data.getLong(i) & HIGH_BITS) == 0) {
        i += 8;
        continue;
      }
      int lead = data.get(i) & 0xFF;
      if (lead < 0x80) {
        i++;
        continue;
      }
      int length;
      int secondLow = 0x80;
      int secondHigh = 0xBF;
      if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
      } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) {
          secondLow = 0xA0; // no overlong three-byte form
        } else if (lead == 0xED) {
          secondHigh = 0x9F; // no UTF-16 surrogate
        }
      } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) {
          secondLow = 0x90; // no overlong four-byte form
        } else if (lead == 0xF4) {
          secondHigh = 0x8F; // nothing above U+10FFFF
        }
      } else {
        return i;
      }
      if (end - i < length) {
        return i;
      }
      int second = data.get(i + 1) & 0xFF;
      if (second < secondLow || second > secondHigh) {
        return i;
      }
      for (int k = 2; k < length; k++) {
        if ((data.get(i + k) & 0xC0) != 0x80) {
          return i;
        }
      }
      i += length;
    }
    return -1;
  }

  /**
   * Checks that every decimal fits its column's precision. Arrow's full validation refuses a value
   * that uses every digit of the precision (its check is {@code precision < p}, not {@code <=}), so
   * that a {@code decimal(5, 3)} could not hold 12.345.
   */
  private static void checkDecimals(
      FieldVector vector, int precision, java.util.function.IntFunction<BigDecimal> values) {
    for (int i = 0; i < vector.getValueCount(); i++) {
      if (vector.isNull(i)) {
        continue;
      }
      BigDecimal value = values.apply(i);
      if (value.precision() > precision) {
        throw invalid(vector, i, "holds " + value + ", which does not fit precision " + precision);
      }
    }
  }

  private static IllegalArgumentException invalid(FieldVector vector, int row, String problem) {
    return new IllegalArgumentException(
        "Column " + vector.getName() + " at row " + row + " " + problem);
  }
}
