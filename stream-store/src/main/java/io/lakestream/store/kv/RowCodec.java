package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Encodes whole rows as RocksDB values, and decodes values written under any known schema into rows
 * of the current one.
 *
 * <p>A value is:
 *
 * <pre>
 * int32      schema id the value was written under
 * bytes      null bitmap, one bit per column of that schema (bit i of byte i/8 set: column i is null)
 * fields     the non-null columns in schema order:
 *              boolean 1 byte; int, date 4; long, timestamp 8; float 4; double 8 (big-endian)
 *              decimal: 1 byte length + unscaled two's complement (the scale is the column's)
 *              string (UTF-8), binary: varint length + bytes;  fixed: the bytes
 * </pre>
 *
 * The value holds the key columns too, so a scan needs no key decoding. A value written under an
 * older schema decodes by field id: columns added since are null, dropped columns are skipped, and
 * Iceberg's type promotions (int to long, float to double, wider decimal) are applied.
 *
 * <p>The encoding of a row under the current schema is canonical: two rows are equal (element by
 * element with {@code equals}) exactly when their values are equal byte for byte (NaNs are written
 * in their canonical form). Strings are compared as their UTF-8 bytes.
 *
 * <p>Thread-safe.
 */
public final class RowCodec {
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final KvSchema schema;
  private final Map<Integer, int[]> projections = new ConcurrentHashMap<>();

  public RowCodec(KvSchema schema) {
    this.schema = requireNonNull(schema, "schema is null");
  }

  /** The value of a canonical full row of the current schema. */
  public byte[] encode(Object[] row) {
    int nullBytes = (row.length + 7) / 8;
    Out out = new Out(Integer.BYTES + nullBytes + 8 * row.length);
    out.writeInt(schema.schemaId());
    out.position += nullBytes;
    for (int i = 0; i < row.length; i++) {
      if (row[i] == null) {
        out.bytes[Integer.BYTES + i / 8] |= (byte) (1 << (i % 8));
      } else {
        write(out, schema.column(i).type(), row[i]);
      }
    }
    return Arrays.copyOf(out.bytes, out.position);
  }

  /**
   * The values of the first {@code rows} rows of Arrow vectors of the current schema's Arrow types
   * (one per column, in column order), read without going through Java values, for schemas {@link
   * #writesArrow} accepts: each column's buffers are copied out in bulk, then each row is encoded.
   * The same bytes {@link #encode(Object[])} gives for the rows' values (strings that are not valid
   * UTF-8 get the same replacement characters). The caller checks that key columns are not null.
   */
  public byte[][] encode(List<FieldVector> vectors, int rows) {
    if (rows == 0) {
      return new byte[0][];
    }
    int columns = schema.columnCount();
    Type.TypeID[] types = new Type.TypeID[columns];
    byte[][] validity = new byte[columns][];
    byte[][] data = new byte[columns][];
    int[][] offsets = new int[columns][];
    // Strings of a column that is all ASCII need no per-value check for malformed UTF-8.
    boolean[] ascii = new boolean[columns];
    int bitmapBytes = (rows + 7) / 8;
    for (int i = 0; i < columns; i++) {
      types[i] = schema.column(i).type().typeId();
      FieldVector vector = vectors.get(i);
      validity[i] = new byte[bitmapBytes];
      vector.getValidityBuffer().getBytes(0, validity[i], 0, bitmapBytes);
      switch (types[i]) {
        case BOOLEAN -> {
          data[i] = new byte[bitmapBytes];
          vector.getDataBuffer().getBytes(0, data[i], 0, bitmapBytes);
        }
        case INTEGER, DATE, FLOAT, LONG, TIMESTAMP, DOUBLE -> {
          data[i] = new byte[rows * fixedWidth(types[i])];
          vector.getDataBuffer().getBytes(0, data[i], 0, data[i].length);
        }
        case STRING, BINARY -> {
          offsets[i] = new int[rows + 1];
          vector
              .getOffsetBuffer()
              .nioBuffer(0, (rows + 1) * 4)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asIntBuffer()
              .get(offsets[i]);
          data[i] = new byte[offsets[i][rows]];
          vector.getDataBuffer().getBytes(0, data[i], 0, data[i].length);
          ascii[i] = isAscii(data[i], 0, data[i].length);
        }
        default ->
            throw new IllegalStateException(
                "Unsupported type " + schema.column(i).type() + " for direct Arrow reads");
      }
    }
    int nullBytes = (columns + 7) / 8;
    byte[][] values = new byte[rows][];
    Out out = new Out(Integer.BYTES + nullBytes + 16 * columns);
    for (int row = 0; row < rows; row++) {
      out.position = 0;
      out.writeInt(schema.schemaId());
      Arrays.fill(out.bytes, Integer.BYTES, Integer.BYTES + nullBytes, (byte) 0);
      out.position += nullBytes;
      int index = row >>> 3;
      int bit = 1 << (row & 7);
      for (int i = 0; i < columns; i++) {
        if ((validity[i][index] & bit) == 0) {
          out.bytes[Integer.BYTES + i / 8] |= (byte) (1 << (i % 8));
          continue;
        }
        byte[] column = data[i];
        switch (types[i]) {
          case BOOLEAN -> out.write((column[index] & bit) != 0 ? 1 : 0);
          case INTEGER, DATE -> out.writeInt((int) LE_INT.get(column, row * 4));
          case LONG, TIMESTAMP -> out.writeLong((long) LE_LONG.get(column, row * 8));
          case FLOAT ->
              out.writeInt(
                  Float.floatToIntBits(Float.intBitsToFloat((int) LE_INT.get(column, row * 4))));
          case DOUBLE ->
              out.writeLong(
                  Double.doubleToLongBits(
                      Double.longBitsToDouble((long) LE_LONG.get(column, row * 8))));
          default -> {
            int start = offsets[i][row];
            int length = offsets[i][row + 1] - start;
            if (types[i] == Type.TypeID.STRING && !ascii[i] && !isAscii(column, start, length)) {
              // As a String round trip does: malformed UTF-8 becomes replacement characters.
              writeBytes(
                  out,
                  new String(column, start, length, StandardCharsets.UTF_8)
                      .getBytes(StandardCharsets.UTF_8));
            } else {
              writeLength(out, length);
              out.ensure(length);
              System.arraycopy(column, start, out.bytes, out.position, length);
              out.position += length;
            }
          }
        }
      }
      values[row] = Arrays.copyOf(out.bytes, out.position);
    }
    return values;
  }

  private static boolean isAscii(byte[] bytes, int start, int length) {
    int i = start;
    int end = start + length;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      if (((long) LONG.get(bytes, i) & 0x8080808080808080L) != 0) {
        return false;
      }
    }
    for (; i < end; i++) {
      if (bytes[i] < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Rows given as values of the current schema in the client's {@code RowValues} encoding (a row
   * count, then per value a null flag byte and the value: fixed widths big-endian, strings and
   * binaries as an int32 length and the bytes), translated without going through Java values; only
   * for schemas {@link #writesArrow} accepts. The same bytes {@code RowValues.encode} gives for the
   * decoded rows.
   *
   * @throws IllegalArgumentException if a value is of another schema
   */
  public ByteBuffer toRowValues(List<byte[]> values) {
    int columns = schema.columnCount();
    int nulls = Integer.BYTES;
    int firstField = nulls + (columns + 7) / 8;
    int size = Integer.BYTES;
    for (byte[] value : values) {
      if (!isCurrent(value)) {
        throw new IllegalArgumentException(
            "Value of schema " + schemaIdOf(value) + ", not the current " + schema.schemaId());
      }
      // Each value's fields take at most 3 more bytes than here (a varint length becomes an int).
      size += value.length - firstField + columns * 4;
    }
    Out out = new Out(size);
    out.writeInt(values.size());
    for (byte[] value : values) {
      int position = firstField;
      for (int i = 0; i < columns; i++) {
        if ((value[nulls + i / 8] & (1 << (i % 8))) != 0) {
          out.write(1);
          continue;
        }
        out.write(0);
        switch (schema.column(i).type().typeId()) {
          case BOOLEAN -> out.write(value[position++]);
          case INTEGER, DATE, FLOAT -> {
            out.writeInt((int) INT.get(value, position));
            position += Integer.BYTES;
          }
          case LONG, TIMESTAMP, DOUBLE -> {
            out.writeLong((long) LONG.get(value, position));
            position += Long.BYTES;
          }
          case STRING, BINARY -> {
            int length = 0;
            int shift = 0;
            byte b;
            do {
              b = value[position++];
              length |= (b & 0x7F) << shift;
              shift += 7;
            } while (b < 0);
            out.writeInt(length);
            out.ensure(length);
            System.arraycopy(value, position, out.bytes, out.position, length);
            out.position += length;
            position += length;
          }
          default ->
              throw new IllegalStateException(
                  "Unsupported type " + schema.column(i).type() + " for direct row values");
        }
      }
    }
    return ByteBuffer.wrap(Arrays.copyOf(out.bytes, out.position));
  }

  /** A growable byte array; cheaper than a stream, whose writes are synchronized. */
  private static final class Out {
    byte[] bytes;
    int position;

    Out(int capacity) {
      bytes = new byte[capacity];
    }

    void ensure(int more) {
      if (position + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(position + more, bytes.length * 2));
      }
    }

    void write(int b) {
      ensure(1);
      bytes[position++] = (byte) b;
    }

    void writeInt(int value) {
      ensure(Integer.BYTES);
      INT.set(bytes, position, value);
      position += Integer.BYTES;
    }

    void writeLong(long value) {
      ensure(Long.BYTES);
      LONG.set(bytes, position, value);
      position += Long.BYTES;
    }

    void writeBytes(byte[] value) {
      ensure(value.length);
      System.arraycopy(value, 0, bytes, position, value.length);
      position += value.length;
    }
  }

  /**
   * A row of the current schema from a value.
   *
   * @throws IllegalStateException if the value names a schema id that is not known
   */
  public Object[] decode(byte[] value) {
    ByteBuffer in = ByteBuffer.wrap(value);
    int writerId = in.getInt();
    Schema writer = schema.schemas().get(writerId);
    if (writer == null) {
      throw new IllegalStateException("Value written under unknown schema id " + writerId);
    }
    List<Types.NestedField> columns = writer.columns();
    int[] projection = projections.computeIfAbsent(writerId, id -> project(columns));
    byte[] nulls = new byte[(columns.size() + 7) / 8];
    in.get(nulls);
    Object[] row = new Object[schema.columnCount()];
    boolean current = writerId == schema.schemaId();
    for (int i = 0; i < columns.size(); i++) {
      if ((nulls[i / 8] & (1 << (i % 8))) != 0) {
        continue;
      }
      Object field = read(in, columns.get(i).type());
      int target = projection[i];
      if (target >= 0) {
        row[target] = current ? field : promote(schema.column(target).type(), field);
      }
    }
    return row;
  }

  /** The schema id a value was written under. */
  public static int schemaIdOf(byte[] value) {
    return (int) INT.get(value, 0);
  }

  /** Whether a value was written under the current schema, so that it is canonical for it. */
  public boolean isCurrent(byte[] value) {
    return schemaIdOf(value) == schema.schemaId();
  }

  /**
   * Whether {@link #writeTo} handles every column of the current schema: booleans, ints, dates,
   * longs, timestamps (microseconds), floats, doubles, strings and binaries.
   */
  public boolean writesArrow() {
    for (int i = 0; i < schema.columnCount(); i++) {
      switch (schema.column(i).type().typeId()) {
        case BOOLEAN, INTEGER, DATE, LONG, TIMESTAMP, FLOAT, DOUBLE, STRING, BINARY -> {}
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Fills Arrow vectors of the schema's Arrow types (one per column, in column order, empty) with
   * values of the current schema, one row per value, copying strings and binaries as bytes, and
   * sets their value counts; only for schemas {@link #writesArrow} accepts. Each column is gathered
   * in plain arrays and copied into its vector in bulk.
   *
   * @throws IllegalArgumentException if a value is of another schema
   */
  public void writeTo(List<byte[]> values, List<FieldVector> vectors) {
    int columns = schema.columnCount();
    int count = values.size();
    int bitmapBytes = (count + 7) / 8;
    Type.TypeID[] types = new Type.TypeID[columns];
    byte[][] validity = new byte[columns][bitmapBytes];
    byte[][] bits = new byte[columns][];
    // Fixed-width values gather in heap arrays and go to the vectors in one copy per column: a put
    // per value into the vector's direct memory costs several times more.
    byte[][] fixed = new byte[columns][];
    int[][] offsets = new int[columns][];
    byte[][] data = new byte[columns][];
    int[] sizes = new int[columns];
    for (int i = 0; i < columns; i++) {
      types[i] = schema.column(i).type().typeId();
      FieldVector vector = vectors.get(i);
      switch (types[i]) {
        case BOOLEAN -> bits[i] = new byte[bitmapBytes];
        case INTEGER, DATE, FLOAT, LONG, TIMESTAMP, DOUBLE ->
            fixed[i] = new byte[count * fixedWidth(types[i])];
        case STRING, BINARY -> {
          offsets[i] = new int[count + 1];
          data[i] = new byte[Math.max(64, count * 16)];
        }
        default ->
            throw new IllegalStateException(
                "Unsupported type " + schema.column(i).type() + " for direct Arrow writes");
      }
    }
    int nulls = Integer.BYTES;
    for (int row = 0; row < count; row++) {
      byte[] value = values.get(row);
      if (!isCurrent(value)) {
        throw new IllegalArgumentException(
            "Value of schema " + schemaIdOf(value) + ", not the current " + schema.schemaId());
      }
      int position = nulls + (columns + 7) / 8;
      int bit = 1 << (row & 7);
      int index = row >>> 3;
      for (int i = 0; i < columns; i++) {
        if ((value[nulls + i / 8] & (1 << (i % 8))) != 0) {
          if (offsets[i] != null) {
            offsets[i][row + 1] = sizes[i];
          }
          continue;
        }
        validity[i][index] |= (byte) bit;
        switch (types[i]) {
          case BOOLEAN -> {
            if (value[position] != 0) {
              bits[i][index] |= (byte) bit;
            }
            position += 1;
          }
          case INTEGER, DATE, FLOAT -> {
            LE_INT.set(fixed[i], row * Integer.BYTES, (int) INT.get(value, position));
            position += Integer.BYTES;
          }
          case LONG, TIMESTAMP, DOUBLE -> {
            LE_LONG.set(fixed[i], row * Long.BYTES, (long) LONG.get(value, position));
            position += Long.BYTES;
          }
          default -> {
            int length = 0;
            int shift = 0;
            byte b;
            do {
              b = value[position++];
              length |= (b & 0x7F) << shift;
              shift += 7;
            } while (b < 0);
            int size = sizes[i];
            if (size + length > data[i].length) {
              data[i] = Arrays.copyOf(data[i], Math.max(size + length, data[i].length * 2));
            }
            System.arraycopy(value, position, data[i], size, length);
            position += length;
            sizes[i] = size + length;
            offsets[i][row + 1] = sizes[i];
          }
        }
      }
    }
    for (int i = 0; i < columns; i++) {
      FieldVector vector = vectors.get(i);
      switch (types[i]) {
        case BOOLEAN -> {
          ((BitVector) vector).allocateNew(count);
          vector.getDataBuffer().setBytes(0, bits[i], 0, bitmapBytes);
        }
        case INTEGER, DATE, FLOAT, LONG, TIMESTAMP, DOUBLE -> {
          ((BaseFixedWidthVector) vector).allocateNew(count);
          vector.getDataBuffer().setBytes(0, fixed[i], 0, fixed[i].length);
        }
        case STRING, BINARY -> {
          BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
          variable.allocateNew(Math.max(sizes[i], 1), count);
          variable
              .getOffsetBuffer()
              .nioBuffer(0, (count + 1) * 4)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asIntBuffer()
              .put(offsets[i], 0, count + 1);
          variable.getDataBuffer().setBytes(0, data[i], 0, sizes[i]);
          variable.setLastSet(count - 1);
        }
        default -> {}
      }
      vector.getValidityBuffer().setBytes(0, validity[i], 0, bitmapBytes);
      vector.setValueCount(count);
    }
  }

  private static int fixedWidth(Type.TypeID type) {
    return switch (type) {
      case LONG, TIMESTAMP, DOUBLE -> Long.BYTES;
      default -> Integer.BYTES;
    };
  }

  private int[] project(List<Types.NestedField> writerColumns) {
    int[] projection = new int[writerColumns.size()];
    for (int i = 0; i < projection.length; i++) {
      projection[i] = -1;
      for (int target = 0; target < schema.columnCount(); target++) {
        if (schema.column(target).fieldId() == writerColumns.get(i).fieldId()) {
          projection[i] = target;
        }
      }
    }
    return projection;
  }

  private static Object promote(Type type, Object value) {
    return switch (type.typeId()) {
      case LONG -> value instanceof Integer small ? Long.valueOf(small) : value;
      case DOUBLE -> value instanceof Float small ? Double.valueOf(small) : value;
      default -> value;
    };
  }

  private static void write(Out out, Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN -> out.write((Boolean) value ? 1 : 0);
      case INTEGER, DATE -> out.writeInt((Integer) value);
      case LONG, TIMESTAMP -> out.writeLong((Long) value);
      // NaN in its canonical form, so that equal rows (by Float/Double.equals) encode equally.
      case FLOAT -> out.writeInt(Float.floatToIntBits((Float) value));
      case DOUBLE -> out.writeLong(Double.doubleToLongBits((Double) value));
      case DECIMAL -> {
        byte[] unscaled = ((BigDecimal) value).unscaledValue().toByteArray();
        out.write(unscaled.length);
        out.writeBytes(unscaled);
      }
      case STRING -> writeBytes(out, ((String) value).getBytes(StandardCharsets.UTF_8));
      case BINARY -> writeBytes(out, (byte[]) value);
      case FIXED -> out.writeBytes((byte[]) value);
      default -> throw new IllegalStateException("Unsupported type " + type);
    }
  }

  private static Object read(ByteBuffer in, Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> in.get() != 0;
      case INTEGER, DATE -> in.getInt();
      case LONG, TIMESTAMP -> in.getLong();
      case FLOAT -> Float.intBitsToFloat(in.getInt());
      case DOUBLE -> Double.longBitsToDouble(in.getLong());
      case DECIMAL -> {
        byte[] unscaled = new byte[in.get()];
        in.get(unscaled);
        yield new BigDecimal(new BigInteger(unscaled), ((Types.DecimalType) type).scale());
      }
      case STRING -> new String(readBytes(in), StandardCharsets.UTF_8);
      case BINARY -> readBytes(in);
      case FIXED -> {
        byte[] bytes = new byte[((Types.FixedType) type).length()];
        in.get(bytes);
        yield bytes;
      }
      default -> throw new IllegalStateException("Unsupported type " + type);
    };
  }

  private static void writeBytes(Out out, byte[] bytes) {
    writeLength(out, bytes.length);
    out.writeBytes(bytes);
  }

  private static void writeLength(Out out, int length) {
    while ((length & ~0x7F) != 0) {
      out.write((length & 0x7F) | 0x80);
      length >>>= 7;
    }
    out.write(length);
  }

  private static byte[] readBytes(ByteBuffer in) {
    int length = 0;
    int shift = 0;
    byte b;
    do {
      b = in.get();
      length |= (b & 0x7F) << shift;
      shift += 7;
    } while (b < 0);
    byte[] bytes = new byte[length];
    in.get(bytes);
    return bytes;
  }
}
