package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Thread-safe.
 */
public final class RowCodec {
  private final KvSchema schema;
  private final Map<Integer, int[]> projections = new ConcurrentHashMap<>();

  public RowCodec(KvSchema schema) {
    this.schema = requireNonNull(schema, "schema is null");
  }

  /** The value of a canonical full row of the current schema. */
  public byte[] encode(Object[] row) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    int schemaId = schema.schemaId();
    out.write(schemaId >>> 24);
    out.write(schemaId >>> 16);
    out.write(schemaId >>> 8);
    out.write(schemaId);
    byte[] nulls = new byte[(row.length + 7) / 8];
    for (int i = 0; i < row.length; i++) {
      if (row[i] == null) {
        nulls[i / 8] |= (byte) (1 << (i % 8));
      }
    }
    out.writeBytes(nulls);
    for (int i = 0; i < row.length; i++) {
      if (row[i] != null) {
        write(out, schema.column(i).type(), row[i]);
      }
    }
    return out.toByteArray();
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

  private static void write(ByteArrayOutputStream out, Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN -> out.write((Boolean) value ? 1 : 0);
      case INTEGER, DATE -> writeInt(out, (Integer) value);
      case LONG, TIMESTAMP -> writeLong(out, (Long) value);
      case FLOAT -> writeInt(out, Float.floatToRawIntBits((Float) value));
      case DOUBLE -> writeLong(out, Double.doubleToRawLongBits((Double) value));
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

  private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
    int length = bytes.length;
    while ((length & ~0x7F) != 0) {
      out.write((length & 0x7F) | 0x80);
      length >>>= 7;
    }
    out.write(length);
    out.writeBytes(bytes);
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

  private static void writeInt(ByteArrayOutputStream out, int value) {
    out.write(value >>> 24);
    out.write(value >>> 16);
    out.write(value >>> 8);
    out.write(value);
  }

  private static void writeLong(ByteArrayOutputStream out, long value) {
    writeInt(out, (int) (value >>> 32));
    writeInt(out, (int) value);
  }
}
