package io.lakestream.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * Rows copied out of Arrow batches are byte for byte the rows Flink's own {@link BinaryRowWriter}
 * writes for the same values (so they compare, hash and serialize alike), nulls, short and long
 * strings, wide decimals and microsecond timestamps included.
 */
class ArrowRowsTest {
  private static final List<String> COLUMNS =
      List.of("b", "i", "d", "flag", "s", "bytes", "ts3", "ts6", "dec10", "dec30", "missing");
  private static final List<LogicalType> TYPES =
      List.of(
          new BigIntType(),
          new IntType(),
          new DoubleType(),
          new BooleanType(),
          new VarCharType(VarCharType.MAX_LENGTH),
          new VarBinaryType(VarBinaryType.MAX_LENGTH),
          new TimestampType(3),
          new TimestampType(6),
          new DecimalType(10, 2),
          new DecimalType(30, 4),
          new TimestampType(6));

  // Per row: b, i, d, flag, s, bytes, micros (both timestamps), dec10, dec30; null where null.
  private static final Object[][] VALUES = {
    {
      1L,
      -7,
      0.5,
      true,
      "short",
      new byte[] {1, 2},
      1_733_395_200_123_456L,
      new BigDecimal("12345678.91"),
      new BigDecimal("-12345678901234567890123456.7891")
    },
    {null, null, null, null, null, null, null, null, null},
    {
      Long.MIN_VALUE,
      Integer.MAX_VALUE,
      -1e300,
      false,
      "a string longer than seven bytes, ünïcode",
      new byte[] {9, 8, 7, 6, 5, 4, 3, 2, 1},
      -1_234_567L,
      new BigDecimal("-0.01"),
      new BigDecimal("0.0001")
    },
    {42L, 0, 0.0, true, "", new byte[0], 0L, new BigDecimal("0.00"), new BigDecimal("1.0000")},
    {5L, 5, 5.0, false, "seven!!", new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 999L, null, null},
  };

  @Test
  void rowsEqualFlinksOwnBinaryRows() {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = batch(allocator)) {
      ArrowRows rows = new ArrowRows(COLUMNS, TYPES);
      BinaryRowData[] all = rows.read(root, 0, VALUES.length);
      assertThat(all).hasSize(VALUES.length);
      for (int r = 0; r < VALUES.length; r++) {
        assertThat(all[r]).as("row %s", r).isEqualTo(expected(VALUES[r]));
        assertThat(all[r].hashCode()).isEqualTo(expected(VALUES[r]).hashCode());
      }
      BinaryRowData[] tail = rows.read(root, 2, 4);
      assertThat(tail).containsExactly(expected(VALUES[2]), expected(VALUES[3]));
      assertThat(tail[0].getString(4).toString())
          .isEqualTo("a string longer than seven bytes, ünïcode");
      assertThat(tail[0].getTimestamp(7, 6))
          .isEqualTo(TimestampData.fromEpochMillis(-1_235, 433_000));
      assertThat(rows.read(root, 3, 3)).isEmpty();
    }
  }

  /**
   * A batch of many blocks of rows, read from its second row: each row has its own values, nulls
   * where the batch has them, also across the blocks' boundaries.
   */
  @Test
  void aLargeBatchsRowsAreAllWritten() {
    int count = 5_000;
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector b = new BigIntVector("b", allocator);
        VarCharVector s = new VarCharVector("s", allocator);
        IntVector i = new IntVector("i", allocator)) {
      for (int r = 0; r < count; r++) {
        if (r % 11 == 5) {
          b.setNull(r);
          s.setNull(r);
        } else {
          b.setSafe(r, r * 3L);
          s.setSafe(r, "x".repeat(r % 60).getBytes(StandardCharsets.UTF_8));
        }
        if (r % 13 == 0) {
          i.setNull(r);
        } else {
          i.setSafe(r, -r);
        }
      }
      b.setValueCount(count);
      s.setValueCount(count);
      i.setValueCount(count);
      VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(b, s, i));
      BinaryRowData[] rows =
          new ArrowRows(
                  List.of("s", "b", "i"),
                  List.of(new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new IntType()))
              .read(root, 1, count);
      assertThat(rows).hasSize(count - 1);
      for (int r = 1; r < count; r++) {
        BinaryRowData expected = new BinaryRowData(3);
        BinaryRowWriter writer = new BinaryRowWriter(expected);
        if (r % 11 == 5) {
          writer.setNullAt(0);
          writer.setNullAt(1);
        } else {
          writer.writeString(0, StringData.fromString("x".repeat(r % 60)));
          writer.writeLong(1, r * 3L);
        }
        if (r % 13 == 0) {
          writer.setNullAt(2);
        } else {
          writer.writeInt(2, -r);
        }
        writer.complete();
        assertThat(rows[r - 1]).as("row %s", r).isEqualTo(expected);
      }
    }
  }

  /**
   * Random batches of up to a few thousand rows (several blocks), read from a random first row to a
   * random end by one reader: each row equals the row Flink's own writer makes of the same values.
   * Strings and byte arrays of 0 to 40 bytes (inline, exactly a word, a word and a few bytes),
   * nulls in every column.
   */
  @Test
  void randomBatchesEqualFlinksOwnRows() {
    List<String> columns = List.of("b", "i", "d", "s", "bytes", "ts6");
    List<LogicalType> types =
        List.of(
            new BigIntType(),
            new IntType(),
            new DoubleType(),
            new VarCharType(VarCharType.MAX_LENGTH),
            new VarBinaryType(VarBinaryType.MAX_LENGTH),
            new TimestampType(6));
    ArrowRows reader = new ArrowRows(columns, types);
    for (long seed = 0; seed < 30; seed++) {
      Random random = new Random(seed);
      int count = 1 + random.nextInt(3_000);
      Object[][] values = new Object[count][];
      for (int r = 0; r < count; r++) {
        values[r] =
            new Object[] {
              random.nextInt(9) == 0 ? null : random.nextLong(),
              random.nextInt(9) == 0 ? null : random.nextInt(),
              random.nextInt(9) == 0 ? null : random.nextGaussian(),
              random.nextInt(9) == 0 ? null : randomString(random),
              random.nextInt(9) == 0 ? null : randomBytes(random),
              random.nextInt(9) == 0 ? null : random.nextLong(-1L << 50, 1L << 50)
            };
      }
      try (BufferAllocator allocator = new RootAllocator();
          VectorSchemaRoot root = randomBatch(allocator, values)) {
        int first = random.nextInt(count + 1);
        int end = first + random.nextInt(count - first + 1);
        BinaryRowData[] rows = reader.read(root, first, end);
        assertThat(rows).as("seed %s", seed).hasSize(end - first);
        for (int r = first; r < end; r++) {
          assertThat(rows[r - first])
              .as("seed %s, row %s of %s", seed, r, count)
              .isEqualTo(flinkRow(values[r]));
        }
      }
    }
  }

  private static String randomString(Random random) {
    StringBuilder text = new StringBuilder();
    int length = random.nextInt(30);
    for (int c = 0; c < length; c++) {
      // Mostly ASCII, some two- and three-byte UTF-8 characters.
      int kind = random.nextInt(10);
      text.append(kind < 8 ? (char) ('a' + random.nextInt(26)) : kind == 8 ? 'ü' : '€');
    }
    return text.toString();
  }

  private static byte[] randomBytes(Random random) {
    byte[] bytes = new byte[random.nextInt(41)];
    random.nextBytes(bytes);
    return bytes;
  }

  private static VectorSchemaRoot randomBatch(BufferAllocator allocator, Object[][] values) {
    BigIntVector b = new BigIntVector("b", allocator);
    IntVector i = new IntVector("i", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    VarBinaryVector bytes = new VarBinaryVector("bytes", allocator);
    TimeStampMicroVector ts6 = new TimeStampMicroVector("ts6", allocator);
    List<FieldVector> vectors = List.of(b, i, d, s, bytes, ts6);
    vectors.forEach(FieldVector::allocateNew);
    for (int r = 0; r < values.length; r++) {
      Object[] row = values[r];
      if (row[0] == null) {
        setNull(b, r);
      } else {
        b.setSafe(r, (long) row[0]);
      }
      if (row[1] == null) {
        setNull(i, r);
      } else {
        i.setSafe(r, (int) row[1]);
      }
      if (row[2] == null) {
        setNull(d, r);
      } else {
        d.setSafe(r, (double) row[2]);
      }
      if (row[3] == null) {
        setNull(s, r);
      } else {
        s.setSafe(r, ((String) row[3]).getBytes(StandardCharsets.UTF_8));
      }
      if (row[4] == null) {
        setNull(bytes, r);
      } else {
        bytes.setSafe(r, (byte[]) row[4]);
      }
      if (row[5] == null) {
        setNull(ts6, r);
      } else {
        ts6.setSafe(r, (long) row[5]);
      }
    }
    vectors.forEach(vector -> vector.setValueCount(values.length));
    return new VectorSchemaRoot(vectors);
  }

  /** The row Flink's writer makes of one random row's values. */
  private static BinaryRowData flinkRow(Object[] values) {
    BinaryRowData row = new BinaryRowData(values.length);
    BinaryRowWriter writer = new BinaryRowWriter(row);
    if (values[0] == null) {
      writer.setNullAt(0);
    } else {
      writer.writeLong(0, (long) values[0]);
    }
    if (values[1] == null) {
      writer.setNullAt(1);
    } else {
      writer.writeInt(1, (int) values[1]);
    }
    if (values[2] == null) {
      writer.setNullAt(2);
    } else {
      writer.writeDouble(2, (double) values[2]);
    }
    if (values[3] == null) {
      writer.setNullAt(3);
    } else {
      writer.writeString(3, StringData.fromString((String) values[3]));
    }
    if (values[4] == null) {
      writer.setNullAt(4);
    } else {
      writer.writeBinary(4, (byte[]) values[4]);
    }
    if (values[5] == null) {
      writer.writeTimestamp(5, null, 6);
    } else {
      long micros = (long) values[5];
      writer.writeTimestamp(
          5,
          TimestampData.fromEpochMillis(
              Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000),
          6);
    }
    writer.complete();
    return row;
  }

  /**
   * One reader's batches one after another, each larger, then a small one again: every batch's
   * strings are its own, whatever the batches before it held.
   */
  @Test
  void batchesReadInTurnKeepTheirOwnStrings() {
    ArrowRows reader =
        new ArrowRows(List.of("s"), List.of(new VarCharType(VarCharType.MAX_LENGTH)));
    for (int count : new int[] {3, 200, 2}) {
      try (BufferAllocator allocator = new RootAllocator();
          VarCharVector s = new VarCharVector("s", allocator)) {
        for (int r = 0; r < count; r++) {
          if (r % 7 == 3) {
            s.setNull(r);
          } else {
            s.setSafe(r, (count + "-row-" + "y".repeat(r % 13)).getBytes(StandardCharsets.UTF_8));
          }
        }
        s.setValueCount(count);
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(s));
        BinaryRowData[] rows = reader.read(root, 0, count);
        assertThat(rows).hasSize(count);
        for (int r = 0; r < count; r++) {
          if (r % 7 == 3) {
            assertThat(rows[r].isNullAt(0)).as("batch of %s, row %s", count, r).isTrue();
          } else {
            assertThat(rows[r].getString(0).toString())
                .as("batch of %s, row %s", count, r)
                .isEqualTo(count + "-row-" + "y".repeat(r % 13));
          }
        }
      }
    }
  }

  private static VectorSchemaRoot batch(BufferAllocator allocator) {
    BigIntVector b = new BigIntVector("b", allocator);
    IntVector i = new IntVector("i", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    BitVector flag = new BitVector("flag", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    VarBinaryVector bytes = new VarBinaryVector("bytes", allocator);
    TimeStampMicroVector ts3 = new TimeStampMicroVector("ts3", allocator);
    TimeStampMicroVector ts6 = new TimeStampMicroVector("ts6", allocator);
    DecimalVector dec10 = new DecimalVector("dec10", allocator, 10, 2);
    DecimalVector dec30 = new DecimalVector("dec30", allocator, 30, 4);
    List<FieldVector> vectors = List.of(b, i, d, flag, s, bytes, ts3, ts6, dec10, dec30);
    vectors.forEach(FieldVector::allocateNew);
    for (int r = 0; r < VALUES.length; r++) {
      Object[] row = VALUES[r];
      if (row[0] == null) {
        for (FieldVector vector : vectors) {
          setNull(vector, r);
        }
        continue;
      }
      b.setSafe(r, (long) row[0]);
      i.setSafe(r, (int) row[1]);
      d.setSafe(r, (double) row[2]);
      flag.setSafe(r, (boolean) row[3] ? 1 : 0);
      s.setSafe(r, ((String) row[4]).getBytes(StandardCharsets.UTF_8));
      bytes.setSafe(r, (byte[]) row[5]);
      ts3.setSafe(r, (long) row[6]);
      ts6.setSafe(r, (long) row[6]);
      setDecimal(dec10, r, (BigDecimal) row[7]);
      setDecimal(dec30, r, (BigDecimal) row[8]);
    }
    vectors.forEach(vector -> vector.setValueCount(VALUES.length));
    return new VectorSchemaRoot(vectors);
  }

  private static void setDecimal(DecimalVector vector, int index, BigDecimal value) {
    if (value == null) {
      vector.setNull(index);
    } else {
      vector.setSafe(index, value.setScale(vector.getScale()));
    }
  }

  private static void setNull(FieldVector vector, int index) {
    if (vector instanceof BaseVariableWidthVector v) {
      v.setNull(index);
    } else {
      ((BaseFixedWidthVector) vector).setNull(index);
    }
  }

  /** The row as Flink's writer lays it out for these values. */
  private static BinaryRowData expected(Object[] values) {
    BinaryRowData row = new BinaryRowData(COLUMNS.size());
    BinaryRowWriter writer = new BinaryRowWriter(row);
    if (values[0] == null) {
      for (int p = 0; p < 6; p++) {
        writer.setNullAt(p);
      }
      writer.setNullAt(6);
      writer.writeTimestamp(7, null, 6);
      writer.setNullAt(8);
      writer.writeDecimal(9, null, 30);
    } else {
      writer.writeLong(0, (long) values[0]);
      writer.writeInt(1, (int) values[1]);
      writer.writeDouble(2, (double) values[2]);
      writer.writeBoolean(3, (boolean) values[3]);
      writer.writeString(4, StringData.fromString((String) values[4]));
      writer.writeBinary(5, (byte[]) values[5]);
      long micros = (long) values[6];
      TimestampData timestamp =
          TimestampData.fromEpochMillis(
              Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
      writer.writeTimestamp(6, TimestampData.fromEpochMillis(timestamp.getMillisecond()), 3);
      writer.writeTimestamp(7, timestamp, 6);
      writeDecimal(writer, 8, (BigDecimal) values[7], 10, 2);
      writeDecimal(writer, 9, (BigDecimal) values[8], 30, 4);
    }
    writer.writeTimestamp(10, null, 6);
    writer.complete();
    return row;
  }

  private static void writeDecimal(
      BinaryRowWriter writer, int position, BigDecimal value, int precision, int scale) {
    if (value == null && DecimalData.isCompact(precision)) {
      writer.setNullAt(position);
    } else {
      writer.writeDecimal(
          position,
          value == null ? null : DecimalData.fromBigDecimal(value, precision, scale),
          precision);
    }
  }
}
