package io.lakestream.trino.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.trino.TrinoValues;
import io.trino.spi.block.Block;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every column type of a streaming table, read from an Arrow vector with nulls into a Trino block
 * for a row range that does not start at 0, must give back the values the vector was filled with.
 */
class ArrowBlocksTest {
  private static final int ROWS = 70; // more than one 64-bit validity word
  private static final int FIRST = 3;
  private static final int END = 69;

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void fixedWidthTypesKeepValuesAndNulls() {
    check(BigintType.BIGINT, new BigIntVector("v", allocator), row -> row * 1_000_000_007L - 5);
    check(IntegerType.INTEGER, new IntVector("v", allocator), row -> row * 31 - 700);
    check(DateType.DATE, new DateDayVector("v", allocator), row -> 19_000 + row);
    check(DoubleType.DOUBLE, new Float8Vector("v", allocator), row -> row / 3.0 - 7);
    check(RealType.REAL, new Float4Vector("v", allocator), row -> row / 4.0f);
    check(BooleanType.BOOLEAN, new BitVector("v", allocator), row -> row % 3 == 0);
    check(
        TimestampType.TIMESTAMP_MICROS,
        new TimeStampMicroVector("v", allocator),
        row -> 1_733_000_000_000_000L + row * 1_234_567L);
  }

  @Test
  void variableWidthAndObjectTypesKeepValuesAndNulls() {
    check(VarcharType.VARCHAR, new VarCharVector("v", allocator), row -> "row-" + row + "-é");
    check(
        VarbinaryType.VARBINARY,
        new VarBinaryVector("v", allocator),
        row -> ("b" + row).getBytes(StandardCharsets.UTF_8));
    check(
        DecimalType.createDecimalType(12, 2),
        new DecimalVector("v", allocator, 12, 2),
        row -> new BigDecimal(row * 1013 - 50_000).movePointLeft(2));
    check(
        DecimalType.createDecimalType(30, 4),
        new DecimalVector("v", allocator, 30, 4),
        row -> new BigDecimal("12345678901234567890" + row).movePointLeft(4));
    check(TimeType.TIME_MICROS, new TimeMicroVector("v", allocator), row -> row * 60_000_001L);
    check(
        TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS,
        new TimeStampMicroTZVector("v", allocator, "UTC"),
        row -> -1_000_000_123L + row * 987_654_321L);
    check(
        UuidType.UUID,
        new FixedSizeBinaryVector("v", allocator, 16),
        row -> {
          byte[] bytes = new byte[16];
          Arrays.fill(bytes, (byte) row);
          bytes[0] = (byte) 0xF0;
          return bytes;
        });
  }

  private interface Values {
    Object at(int row);
  }

  private static void check(Type type, FieldVector vector, Values values) {
    try (vector) {
      vector.allocateNew();
      List<Object> expected = new ArrayList<>();
      for (int row = 0; row < ROWS; row++) {
        Object value = row % 5 == 2 ? null : values.at(row);
        set(vector, row, value);
        expected.add(value);
      }
      vector.setValueCount(ROWS);

      Block block = ArrowBlocks.block(type, vector, FIRST, END);

      assertThat(block.getPositionCount()).isEqualTo(END - FIRST);
      for (int position = 0; position < END - FIRST; position++) {
        Object want = expected.get(FIRST + position);
        Object got = TrinoValues.read(type, block, position);
        if (want instanceof byte[] bytes) {
          assertThat((byte[]) got).as("%s row %d", type, FIRST + position).isEqualTo(bytes);
        } else {
          assertThat(got).as("%s row %d", type, FIRST + position).isEqualTo(want);
        }
      }
    }
  }

  private static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
      return;
    }
    switch (vector) {
      case BigIntVector v -> v.setSafe(row, (Long) value);
      case IntVector v -> v.setSafe(row, (Integer) value);
      case DateDayVector v -> v.setSafe(row, (Integer) value);
      case Float8Vector v -> v.setSafe(row, (Double) value);
      case Float4Vector v -> v.setSafe(row, (Float) value);
      case BitVector v -> v.setSafe(row, (Boolean) value ? 1 : 0);
      case TimeStampMicroTZVector v -> v.setSafe(row, (Long) value);
      case TimeStampMicroVector v -> v.setSafe(row, (Long) value);
      case TimeMicroVector v -> v.setSafe(row, (Long) value);
      case VarCharVector v -> v.setSafe(row, ((String) value).getBytes(StandardCharsets.UTF_8));
      case VarBinaryVector v -> v.setSafe(row, (byte[]) value);
      case DecimalVector v -> v.setSafe(row, (BigDecimal) value);
      case FixedSizeBinaryVector v -> v.setSafe(row, (byte[]) value);
      default -> throw new IllegalArgumentException("No setter for " + vector);
    }
  }
}
