package io.lakestream.client.rpc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A compact encoding of rows of plain values for requests that carry a few rows, such as keys to
 * look up and the rows found: per value a null flag byte, then by the column's Arrow type an int64
 * (64-bit integers, timestamps, times), int32 (32-bit integers, dates as days), int8, a boolean
 * byte, IEEE 754 float or double, length-prefixed UTF-8 or bytes, or for a decimal the
 * length-prefixed two's-complement unscaled value (the scale is the column's).
 */
public final class RowValues {
  private RowValues() {}

  /**
   * Encodes rows as {@code int32 count | values...}.
   *
   * @param rows the rows, each with one value per type, as {@link
   *     io.lakestream.client.AppendWriter#append(Object...)} takes values
   * @param types the columns' Arrow types
   * @param names the columns' names, for error messages
   * @return a new buffer positioned at the encoding's start
   * @throws IllegalArgumentException naming the column when a value does not fit its type, or when
   *     a row has the wrong number of values
   */
  public static ByteBuffer encode(List<Object[]> rows, List<ArrowType> types, List<String> names) {
    List<byte[]> strings = new ArrayList<>();
    int size = 4;
    for (Object[] row : rows) {
      if (row.length != types.size()) {
        throw new IllegalArgumentException(
            "Expected " + types.size() + " values " + names + ", got " + row.length);
      }
      for (int i = 0; i < row.length; i++) {
        size += 1 + size(row[i], types.get(i), names.get(i), strings);
      }
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    buffer.putInt(rows.size());
    int string = 0;
    for (Object[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        Object value = row[i];
        if (value == null) {
          buffer.put((byte) 1);
          continue;
        }
        buffer.put((byte) 0);
        ArrowType type = types.get(i);
        switch (type.getTypeID()) {
          case Int -> {
            int width = ((ArrowType.Int) type).getBitWidth();
            if (width == 64) {
              buffer.putLong(((Number) value).longValue());
            } else if (width == 8) {
              buffer.put(((Number) value).byteValue());
            } else {
              buffer.putInt(((Number) value).intValue());
            }
          }
          case Timestamp, Time -> buffer.putLong(((Number) value).longValue());
          case Date -> buffer.putInt(days(value));
          case Bool -> buffer.put((byte) (((Boolean) value) ? 1 : 0));
          case FloatingPoint -> {
            if (((ArrowType.FloatingPoint) type).getPrecision()
                == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE) {
              buffer.putFloat(((Number) value).floatValue());
            } else {
              buffer.putDouble(((Number) value).doubleValue());
            }
          }
          default -> {
            byte[] bytes = strings.get(string++);
            buffer.putInt(bytes.length).put(bytes);
          }
        }
      }
    }
    return buffer.flip();
  }

  private static int days(Object value) {
    return value instanceof LocalDate date ? (int) date.toEpochDay() : ((Number) value).intValue();
  }

  private static int size(Object value, ArrowType type, String name, List<byte[]> strings) {
    if (value == null) {
      return 0;
    }
    boolean fits;
    int size;
    byte[] bytes = null;
    switch (type.getTypeID()) {
      case Int -> {
        int width = ((ArrowType.Int) type).getBitWidth();
        fits =
            width == 64
                ? value instanceof Long || value instanceof Integer
                : value instanceof Number;
        size = width == 64 ? 8 : width == 8 ? 1 : 4;
      }
      case Timestamp, Time -> {
        fits = value instanceof Long || value instanceof Integer;
        size = 8;
      }
      case Date -> {
        fits = value instanceof LocalDate || value instanceof Integer;
        size = 4;
      }
      case Bool -> {
        fits = value instanceof Boolean;
        size = 1;
      }
      case FloatingPoint -> {
        fits = value instanceof Number;
        size =
            ((ArrowType.FloatingPoint) type).getPrecision()
                    == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE
                ? 4
                : 8;
      }
      case Utf8 -> {
        fits = value instanceof CharSequence;
        bytes = fits ? value.toString().getBytes(StandardCharsets.UTF_8) : null;
        size = fits ? 4 + bytes.length : 0;
      }
      case Binary, FixedSizeBinary -> {
        fits = value instanceof byte[];
        bytes = fits ? (byte[]) value : null;
        size = fits ? 4 + bytes.length : 0;
      }
      case Decimal -> {
        fits =
            value instanceof BigDecimal decimal
                && decimal.scale() == ((ArrowType.Decimal) type).getScale();
        bytes = fits ? ((BigDecimal) value).unscaledValue().toByteArray() : null;
        size = fits ? 4 + bytes.length : 0;
      }
      default ->
          throw new IllegalArgumentException("Column " + name + " has unsupported type " + type);
    }
    if (!fits) {
      throw new IllegalArgumentException(
          "Column "
              + name
              + " of type "
              + type
              + " cannot hold a "
              + value.getClass().getSimpleName());
    }
    if (bytes != null) {
      strings.add(bytes);
    }
    return size;
  }

  /**
   * Decodes rows written by {@link #encode}.
   *
   * @param buffer positioned at the rows; advanced past them
   * @param types the columns' Arrow types, as when encoded
   * @return the rows; a value is a Long (64-bit integers, timestamps, times), Integer (other
   *     integers, dates), Byte (8-bit integers), Boolean, Float, Double, String, BigDecimal or byte
   *     array, or null
   * @throws RpcException {@code INVALID_REQUEST} for a malformed encoding
   */
  public static List<Object[]> decode(ByteBuffer buffer, List<ArrowType> types) {
    int count = buffer.getInt();
    if (count < 0 || count > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid row count " + count);
    }
    List<Object[]> rows = new ArrayList<>(count);
    for (int r = 0; r < count; r++) {
      Object[] row = new Object[types.size()];
      for (int i = 0; i < row.length; i++) {
        if (buffer.get() == 1) {
          continue;
        }
        ArrowType type = types.get(i);
        row[i] =
            switch (type.getTypeID()) {
              case Int -> {
                int width = ((ArrowType.Int) type).getBitWidth();
                yield width == 64
                    ? (Object) buffer.getLong()
                    : width == 8 ? (Object) buffer.get() : (Object) buffer.getInt();
              }
              case Timestamp, Time -> buffer.getLong();
              case Date -> buffer.getInt();
              case Bool -> buffer.get() == 1;
              case FloatingPoint ->
                  ((ArrowType.FloatingPoint) type).getPrecision()
                          == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE
                      ? (Object) buffer.getFloat()
                      : (Object) buffer.getDouble();
              case Utf8 -> new String(bytes(buffer), StandardCharsets.UTF_8);
              case Decimal ->
                  new BigDecimal(
                      new BigInteger(bytes(buffer)), ((ArrowType.Decimal) type).getScale());
              default -> bytes(buffer);
            };
      }
      rows.add(row);
    }
    return rows;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    int length = buffer.getInt();
    if (length < 0 || length > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid value length " + length);
    }
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return bytes;
  }
}
