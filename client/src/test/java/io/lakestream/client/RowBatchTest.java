package io.lakestream.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.junit.jupiter.api.Test;

class RowBatchTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("l", new ArrowType.Int(64, true)),
              Field.nullable("i", new ArrowType.Int(32, true)),
              Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
              Field.nullable("s", ArrowType.Utf8.INSTANCE),
              Field.nullable("bin", ArrowType.Binary.INSTANCE),
              Field.nullable("b", ArrowType.Bool.INSTANCE),
              Field.nullable("dec", new ArrowType.Decimal(10, 2, 128)),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))));

  @Test
  void rowsWithNullsReadBackFromArrowExactlyAsAppended() {
    List<Object[]> rows = randomRows(1000, 7);
    RowBatch batch = new RowBatch(SCHEMA, 1000);
    rows.forEach(batch::add);
    assertThat(batch.isFull()).isTrue();
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(rows));
  }

  @Test
  void nullsOnlyInTheFirstRowsLeaveTheLaterRowsValid() {
    List<Object[]> rows = randomRows(200, 10);
    for (int row = 0; row < rows.size(); row++) {
      Object[] values = rows.get(row);
      for (int column = 0; column < values.length; column++) {
        if (values[column] == null) {
          values[column] = rows.get(0)[column] == null ? rows.get(1)[column] : rows.get(0)[column];
        }
      }
    }
    Arrays.fill(rows.get(3), null);
    RowBatch batch = new RowBatch(SCHEMA, 200);
    rows.forEach(batch::add);
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(rows));
  }

  @Test
  void aRefusedRowLeavesTheBatchAsItWas() {
    RowBatch batch = new RowBatch(SCHEMA, 10);
    Object[] good = randomRows(1, 1).get(0);
    batch.add(good);
    Object[] bad = randomRows(1, 2).get(0);
    bad[0] = null; // a null before the bad value must not stick either
    bad[6] = "not a boolean";
    assertThatThrownBy(() -> batch.add(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column b");
    Object[] next = randomRows(1, 3).get(0);
    batch.add(next);
    assertThat(batch.rowCount()).isEqualTo(2);
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(List.of(good, next)));
  }

  @Test
  void valuesOfTheWrongKindAreRefusedNamingTheColumn() {
    RowBatch batch = new RowBatch(SCHEMA, 10);
    Object[] row = randomRows(1, 4).get(0);
    row[4] = 42L;
    assertThatThrownBy(() -> batch.add(row)).hasMessageContaining("Column s");
    Object[] decimal = randomRows(1, 5).get(0);
    decimal[7] = new BigDecimal("1.234"); // scale 3 in a scale-2 column
    assertThatThrownBy(() -> batch.add(decimal)).hasMessageContaining("Column dec");
    Object[] day = randomRows(1, 6).get(0);
    day[8] = 19_000L; // days are a LocalDate or an Integer
    assertThatThrownBy(() -> batch.add(day)).hasMessageContaining("Column day");
    assertThat(batch.rowCount()).isZero();
    day[8] = 19_000;
    batch.add(day);
    assertThat(batch.rowCount()).isOne();
  }

  @Test
  void timeColumnsTakeMicrosecondsOrLocalTimes() {
    Schema schema =
        new Schema(List.of(Field.nullable("clock", new ArrowType.Time(TimeUnit.MICROSECOND, 64))));
    RowBatch batch = new RowBatch(schema, 3);
    batch.add(new Object[] {47_655_000_016L});
    batch.add(new Object[] {java.time.LocalTime.of(13, 14, 15, 16_000)});
    batch.add(new Object[] {null});
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      batch.writeTo(root);
      org.apache.arrow.vector.TimeMicroVector clock =
          (org.apache.arrow.vector.TimeMicroVector) root.getVector("clock");
      assertThat(root.getRowCount()).isEqualTo(3);
      assertThat(clock.get(0)).isEqualTo(47_655_000_016L);
      assertThat(clock.get(1)).isEqualTo(((13 * 60 + 14) * 60 + 15) * 1_000_000L + 16);
      assertThat(clock.isNull(2)).isTrue();
    }
    assertThatThrownBy(() -> new RowBatch(schema, 1).add(new Object[] {"13:14"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clock");
  }

  @Test
  void aResetBatchIsReusedWithoutLeftovers() {
    RowBatch batch = new RowBatch(SCHEMA, 300);
    randomRows(300, 8).forEach(batch::add);
    readBack(batch);
    batch.reset();
    List<Object[]> second = randomRows(120, 9);
    second.forEach(batch::add);
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(second));
  }

  @Test
  void rowsFromAnAccessorReadBackExactlyAsTheirValues() {
    List<Object[]> rows = randomRows(1000, 11);
    RowBatch batch = new RowBatch(SCHEMA, 1000);
    ArrayAccessor accessor = new ArrayAccessor();
    rows.forEach(row -> batch.add(accessor.of(row)));
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(rows));
  }

  @Test
  void accessorRowsAndValueRowsMixInOneBatch() {
    List<Object[]> rows = randomRows(300, 12);
    RowBatch batch = new RowBatch(SCHEMA, 300);
    ArrayAccessor accessor = new ArrayAccessor();
    for (int row = 0; row < rows.size(); row++) {
      if (row % 3 == 0) {
        batch.add(rows.get(row));
      } else {
        batch.add(accessor.of(rows.get(row)));
      }
    }
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(rows));
  }

  @Test
  void anAccessorRowRefusedAfterItsStringsLeavesTheBatchAsItWas() {
    RowBatch batch = new RowBatch(SCHEMA, 10);
    ArrayAccessor accessor = new ArrayAccessor();
    Object[] good = randomRows(1, 13).get(0);
    good[4] = "first row";
    batch.add(accessor.of(good));
    Object[] bad = randomRows(1, 14).get(0);
    bad[4] = "a string written before the refused value";
    bad[5] = new byte[] {1, 2, 3};
    bad[6] = "not a boolean";
    assertThatThrownBy(() -> batch.add(accessor.of(bad)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column b");
    Object[] next = randomRows(1, 15).get(0);
    next[4] = "second row";
    batch.add(accessor.of(next));
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(List.of(good, next)));
  }

  @Test
  void aResetBatchTakesAccessorRowsWithoutLeftovers() {
    RowBatch batch = new RowBatch(SCHEMA, 300);
    ArrayAccessor accessor = new ArrayAccessor();
    randomRows(300, 16).forEach(row -> batch.add(accessor.of(row)));
    readBack(batch);
    batch.reset();
    List<Object[]> second = randomRows(120, 17);
    second.forEach(row -> batch.add(accessor.of(row)));
    assertThat(readBack(batch)).containsExactlyElementsOf(expected(second));
  }

  /**
   * A row of {@link #SCHEMA} held as the values {@code add(Object[])} takes, read as a writer reads
   * an engine's row; strings and binary values in two pieces.
   */
  private static final class ArrayAccessor implements RowAccessor {
    private Object[] row;

    ArrayAccessor of(Object[] values) {
      this.row = values;
      return this;
    }

    @Override
    public int columnCount() {
      return row.length;
    }

    @Override
    public boolean isNullAt(int column) {
      return row[column] == null;
    }

    @Override
    public long getLong(int column) {
      return (Long) row[column];
    }

    @Override
    public int getInt(int column) {
      return row[column] instanceof LocalDate date
          ? (int) date.toEpochDay()
          : (Integer) row[column];
    }

    @Override
    public double getDouble(int column) {
      return (Double) row[column];
    }

    @Override
    public void writeBytes(int column, ByteTarget target) {
      byte[] bytes =
          row[column] instanceof byte[] raw
              ? raw
              : ((String) row[column]).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      int half = bytes.length / 2;
      target.write(bytes, 0, half);
      target.write(bytes, half, bytes.length - half);
    }

    @Override
    public Object getObject(int column) {
      return row[column];
    }
  }

  private static List<List<Object>> readBack(RowBatch batch) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      batch.writeTo(root);
      List<List<Object>> rows = new ArrayList<>();
      for (FieldVector vector : root.getFieldVectors()) {
        ValueVectorUtility.validateFull(vector);
      }
      for (int row = 0; row < root.getRowCount(); row++) {
        List<Object> values = new ArrayList<>();
        for (FieldVector vector : root.getFieldVectors()) {
          Object value = vector.getObject(row);
          values.add(normalise(value));
        }
        rows.add(values);
      }
      return rows;
    }
  }

  /** What Arrow's getObject gives for each appended value. */
  private static List<List<Object>> expected(List<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      List<Object> values = new ArrayList<>();
      for (int column = 0; column < row.length; column++) {
        Object value = row[column];
        if (value instanceof LocalDate date) {
          value = (int) date.toEpochDay();
        }
        values.add(normalise(value));
      }
      out.add(values);
    }
    return out;
  }

  private static Object normalise(Object value) {
    if (value instanceof byte[] bytes) {
      return Arrays.toString(bytes);
    }
    if (value instanceof org.apache.arrow.vector.util.Text text) {
      return text.toString();
    }
    if (value instanceof java.time.LocalDateTime) {
      return value.toString();
    }
    return value;
  }

  private static List<Object[]> randomRows(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      Object[] row =
          new Object[] {
            random.nextLong(),
            random.nextInt(),
            random.nextDouble(),
            (float) random.nextDouble(),
            "text-" + random.nextInt(1000) + (random.nextBoolean() ? "ü" : ""),
            new byte[] {(byte) random.nextInt(), (byte) random.nextInt()},
            random.nextBoolean(),
            BigDecimal.valueOf(random.nextInt(1_000_000), 2),
            LocalDate.ofEpochDay(random.nextInt(30_000)),
            random.nextLong(0, 4_000_000_000_000_000L)
          };
      for (int c = 0; c < row.length; c++) {
        if (random.nextInt(5) == 0) {
          row[c] = null;
        }
      }
      rows.add(row);
    }
    return rows;
  }
}
