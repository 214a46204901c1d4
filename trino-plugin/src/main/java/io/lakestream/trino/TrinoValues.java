package io.lakestream.trino;

import static io.trino.spi.type.TimeZoneKey.UTC_KEY;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RealType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * Converts between Trino's values (in blocks) and the plain Java values the stream client writes
 * and reads rows with ({@link io.lakestream.client.arrow.ArrowValues}): Long, Integer, Float,
 * Double, Boolean, BigDecimal, String, byte[] (also a uuid's 16 bytes), Integer days for dates,
 * Long microseconds for times and timestamps (of UTC for {@code timestamp with time zone}).
 *
 * <p>The types are those Trino's Iceberg connector maps a streaming table's columns to; a streaming
 * table has no nested columns. Stateless.
 */
public final class TrinoValues {
  private static final long PICOS_PER_MICRO = 1_000_000L;
  private static final int MICROS_PER_MILLI = 1_000;

  private TrinoValues() {}

  /** Appends a client value (null for a null) to a block of {@code type}. */
  public static void write(Type type, BlockBuilder builder, Object value) {
    if (value == null) {
      builder.appendNull();
      return;
    }
    if (type instanceof BigintType) {
      type.writeLong(builder, (Long) value);
    } else if (type instanceof IntegerType || type instanceof DateType) {
      type.writeLong(builder, (Integer) value);
    } else if (type instanceof DoubleType) {
      type.writeDouble(builder, (Double) value);
    } else if (type instanceof RealType) {
      type.writeLong(builder, Float.floatToRawIntBits((Float) value));
    } else if (type instanceof BooleanType) {
      type.writeBoolean(builder, (Boolean) value);
    } else if (type instanceof VarcharType) {
      type.writeSlice(builder, Slices.utf8Slice((String) value));
    } else if (type instanceof VarbinaryType || type instanceof UuidType) {
      type.writeSlice(builder, Slices.wrappedBuffer((byte[]) value));
    } else if (type instanceof DecimalType decimal) {
      BigDecimal number = ((BigDecimal) value).setScale(decimal.getScale());
      if (decimal.isShort()) {
        type.writeLong(builder, number.unscaledValue().longValueExact());
      } else {
        type.writeObject(builder, Int128.valueOf(number.unscaledValue()));
      }
    } else if (type instanceof TimeType) {
      type.writeLong(builder, (Long) value * PICOS_PER_MICRO);
    } else if (type instanceof TimestampType timestamp) {
      long micros = (Long) value;
      if (timestamp.isShort()) {
        type.writeLong(builder, micros);
      } else {
        type.writeObject(builder, new LongTimestamp(micros, 0));
      }
    } else if (type instanceof TimestampWithTimeZoneType) {
      long micros = (Long) value;
      type.writeObject(
          builder,
          LongTimestampWithTimeZone.fromEpochMillisAndFraction(
              Math.floorDiv(micros, MICROS_PER_MILLI),
              (int) (Math.floorMod(micros, MICROS_PER_MILLI) * PICOS_PER_MICRO),
              UTC_KEY));
    } else {
      throw new TrinoException(
          LakestreamErrorCode.UNSUPPORTED_TYPE, "Streaming tables have no columns of type " + type);
    }
  }

  /** The client value of position {@code position} of a block of {@code type}; null for a null. */
  public static Object read(Type type, Block block, int position) {
    if (block.isNull(position)) {
      return null;
    }
    if (type instanceof BigintType) {
      return type.getLong(block, position);
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return (int) type.getLong(block, position);
    } else if (type instanceof DoubleType) {
      return type.getDouble(block, position);
    } else if (type instanceof RealType) {
      return Float.intBitsToFloat((int) type.getLong(block, position));
    } else if (type instanceof BooleanType) {
      return type.getBoolean(block, position);
    } else if (type instanceof VarcharType) {
      return type.getSlice(block, position).toString(StandardCharsets.UTF_8);
    } else if (type instanceof VarbinaryType || type instanceof UuidType) {
      Slice slice = type.getSlice(block, position);
      return slice.getBytes();
    } else if (type instanceof DecimalType decimal) {
      BigInteger unscaled =
          decimal.isShort()
              ? BigInteger.valueOf(type.getLong(block, position))
              : ((Int128) type.getObject(block, position)).toBigInteger();
      return new BigDecimal(unscaled, decimal.getScale());
    } else if (type instanceof TimeType) {
      return type.getLong(block, position) / PICOS_PER_MICRO;
    } else if (type instanceof TimestampType timestamp) {
      if (timestamp.isShort()) {
        return type.getLong(block, position);
      }
      return ((LongTimestamp) type.getObject(block, position)).getEpochMicros();
    } else if (type instanceof TimestampWithTimeZoneType) {
      LongTimestampWithTimeZone value = (LongTimestampWithTimeZone) type.getObject(block, position);
      return value.getEpochMillis() * MICROS_PER_MILLI + value.getPicosOfMilli() / PICOS_PER_MICRO;
    }
    throw new TrinoException(
        LakestreamErrorCode.UNSUPPORTED_TYPE, "Streaming tables have no columns of type " + type);
  }

  /** Whether streaming tables can hold columns of this Trino type. */
  public static boolean isSupported(Type type) {
    return type instanceof BigintType
        || type instanceof IntegerType
        || type instanceof DateType
        || type instanceof DoubleType
        || type instanceof RealType
        || type instanceof BooleanType
        || type instanceof VarcharType
        || type instanceof VarbinaryType
        || type instanceof UuidType
        || type instanceof DecimalType
        || type instanceof TimeType
        || type instanceof TimestampType
        || type instanceof TimestampWithTimeZoneType;
  }
}
