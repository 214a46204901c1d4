package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Encodes primary keys into RocksDB keys whose unsigned byte order is the order of the key values,
 * column by column, bucket-key columns first ({@link KvSchema}).
 *
 * <p>Per column (key columns are never null):
 *
 * <ul>
 *   <li>boolean: one byte, 0 or 1
 *   <li>int, date: 4 bytes big-endian with the sign bit flipped; long, timestamp: the same in 8
 *   <li>decimal: the unscaled value (scale fixed by the column) as 8 bytes like a long for
 *       precision up to 18, else as 16 bytes two's complement with the sign bit flipped
 *   <li>string (UTF-8), binary: the bytes with {@code 0x00} escaped as {@code 0x00 0xFF}, then the
 *       terminator {@code 0x00 0x01}, so no encoded value is a prefix of another
 *   <li>fixed: the bytes as they are (all of one length)
 * </ul>
 *
 * Iceberg does not allow float or double identifier fields, so they have no key encoding. Every
 * column's encoding is self-delimiting and order-preserving, so the concatenation is too, and the
 * encoding of the bucket-key values alone is a byte prefix of every key in that bucket-key group: a
 * prefix lookup is a RocksDB seek plus a prefix check. No key encodes to zero bytes; the empty key
 * is free for the tablet's own metadata.
 *
 * <p>Thread-safe.
 */
public final class KeyCodec {
  private final KvSchema schema;
  private final int[] encodingOrder;
  private final int[] primaryKey;
  private final int[] bucketKey;

  public KeyCodec(KvSchema schema) {
    this.schema = requireNonNull(schema, "schema is null");
    this.encodingOrder = schema.keyEncodingOrder();
    this.primaryKey = schema.primaryKey();
    this.bucketKey = schema.bucketKey();
  }

  /** The key of a canonical full row. */
  public byte[] encodeRow(Object[] row) {
    ByteArrayOutputStream out = new Bytes(32);
    for (int position : encodingOrder) {
      write(out, schema.column(position).type(), row[position]);
    }
    return out.toByteArray();
  }

  /**
   * The key of primary-key values given in primary-key (schema) order.
   *
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public byte[] encodeKey(Object[] keyValues) {
    Object[] canonical = schema.canonicalKey(keyValues, primaryKey, "Primary key");
    Object[] row = new Object[schema.columnCount()];
    for (int i = 0; i < primaryKey.length; i++) {
      row[primaryKey[i]] = canonical[i];
    }
    return encodeRow(row);
  }

  /**
   * The prefix shared by every key with these bucket-key values (in bucket-key order).
   *
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public byte[] encodeBucketKeyPrefix(Object[] bucketKeyValues) {
    Object[] canonical = schema.canonicalKey(bucketKeyValues, bucketKey, "Bucket key");
    ByteArrayOutputStream out = new Bytes(32);
    for (int i = 0; i < bucketKey.length; i++) {
      write(out, schema.column(bucketKey[i]).type(), canonical[i]);
    }
    return out.toByteArray();
  }

  /** A stream whose single-byte writes are not synchronized (keys are built a byte at a time). */
  private static final class Bytes extends ByteArrayOutputStream {
    Bytes(int size) {
      super(size);
    }

    @Override
    public void write(int b) {
      if (count == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2 + 1);
      }
      buf[count++] = (byte) b;
    }
  }

  private static void write(ByteArrayOutputStream out, Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN -> out.write((Boolean) value ? 1 : 0);
      case INTEGER, DATE -> writeInt(out, (Integer) value ^ Integer.MIN_VALUE);
      case LONG, TIMESTAMP -> writeLong(out, (Long) value ^ Long.MIN_VALUE);
      case DECIMAL -> writeDecimal(out, (Types.DecimalType) type, (BigDecimal) value);
      case STRING -> writeEscaped(out, ((String) value).getBytes(StandardCharsets.UTF_8));
      case BINARY -> writeEscaped(out, (byte[]) value);
      case FIXED -> out.writeBytes((byte[]) value);
      default -> throw new IllegalStateException("Unsupported key type " + type);
    }
  }

  private static void writeDecimal(
      ByteArrayOutputStream out, Types.DecimalType type, BigDecimal value) {
    BigInteger unscaled = value.unscaledValue();
    if (type.precision() <= 18) {
      writeLong(out, unscaled.longValueExact() ^ Long.MIN_VALUE);
      return;
    }
    byte[] minimal = unscaled.toByteArray();
    byte[] wide = new byte[16];
    byte fill = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
    int padding = wide.length - minimal.length;
    for (int i = 0; i < padding; i++) {
      wide[i] = fill;
    }
    System.arraycopy(minimal, 0, wide, padding, minimal.length);
    wide[0] ^= (byte) 0x80;
    out.writeBytes(wide);
  }

  private static void writeEscaped(ByteArrayOutputStream out, byte[] bytes) {
    for (byte b : bytes) {
      out.write(b);
      if (b == 0) {
        out.write(0xFF);
      }
    }
    out.write(0);
    out.write(1);
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
