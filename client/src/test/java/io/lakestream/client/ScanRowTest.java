package io.lakestream.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.Compression;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The typed row view over Arrow roots built here value by value: every column type the client
 * writes, nulls, wrong-type and null reads, the cursor, change types, and columns a batch lacks.
 */
class ScanRowTest {
  private static final long BASE_OFFSET = 1000;

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("l", new ArrowType.Int(64, true)),
              Field.nullable("i", new ArrowType.Int(32, true)),
              Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
              Field.nullable("b", ArrowType.Bool.INSTANCE),
              Field.nullable("s", ArrowType.Utf8.INSTANCE),
              Field.nullable("bin", ArrowType.Binary.INSTANCE),
              Field.nullable("fix", new ArrowType.FixedSizeBinary(16)),
              Field.nullable("dec", new ArrowType.Decimal(10, 2, 128)),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              Field.nullable("tstz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
              Field.nullable("t", new ArrowType.Time(TimeUnit.MICROSECOND, 64))));

  private static final byte[] FIXED_0 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  private static final byte[] FIXED_2 = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2
  };

  private final BufferAllocator allocator = new RootAllocator();
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable closeable : opened) {
      closeable.close();
    }
    allocator.close();
  }

  /** Three rows: every type set, every column null, every type set to other values. */
  private VectorSchemaRoot everyType() {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    opened.add(root);
    root.allocateNew();
    ((BigIntVector) root.getVector("l")).setSafe(0, 42L);
    ((BigIntVector) root.getVector("l")).setSafe(2, Long.MIN_VALUE);
    ((IntVector) root.getVector("i")).setSafe(0, -7);
    ((IntVector) root.getVector("i")).setSafe(2, Integer.MAX_VALUE);
    ((Float8Vector) root.getVector("d")).setSafe(0, 2.5);
    ((Float8Vector) root.getVector("d")).setSafe(2, -1e300);
    ((Float4Vector) root.getVector("f")).setSafe(0, 1.25f);
    ((Float4Vector) root.getVector("f")).setSafe(2, 3.5f);
    ((BitVector) root.getVector("b")).setSafe(0, 1);
    ((BitVector) root.getVector("b")).setSafe(2, 0);
    ((VarCharVector) root.getVector("s")).setSafe(0, "héllo €".getBytes(UTF_8));
    ((VarCharVector) root.getVector("s")).setSafe(2, new byte[0]);
    ((VarBinaryVector) root.getVector("bin")).setSafe(0, new byte[] {1, 2, 3});
    ((VarBinaryVector) root.getVector("bin")).setSafe(2, new byte[0]);
    ((FixedSizeBinaryVector) root.getVector("fix")).setSafe(0, FIXED_0);
    ((FixedSizeBinaryVector) root.getVector("fix")).setSafe(2, FIXED_2);
    ((DecimalVector) root.getVector("dec")).setSafe(0, new BigDecimal("12345.67"));
    ((DecimalVector) root.getVector("dec")).setSafe(2, new BigDecimal("-0.01"));
    ((DateDayVector) root.getVector("day")).setSafe(0, 20_792); // 2026-12-05
    ((DateDayVector) root.getVector("day")).setSafe(2, -1); // 1969-12-31
    ((TimeStampMicroVector) root.getVector("ts")).setSafe(0, 1_700_000_000_123_456L);
    ((TimeStampMicroVector) root.getVector("ts")).setSafe(2, 0L);
    ((TimeStampMicroTZVector) root.getVector("tstz")).setSafe(0, -1L);
    ((TimeStampMicroTZVector) root.getVector("tstz")).setSafe(2, Long.MAX_VALUE);
    ((TimeMicroVector) root.getVector("t")).setSafe(0, 3_600_000_000L);
    ((TimeMicroVector) root.getVector("t")).setSafe(2, 86_399_999_999L);
    for (int column = 0; column < SCHEMA.getFields().size(); column++) {
      root.getVector(column).setNull(1);
    }
    root.setRowCount(3);
    return root;
  }

  private ScanBatch batch(VectorSchemaRoot root) {
    return new ScanBatch(Partitioning.UNPARTITIONED, 0, BASE_OFFSET, 0, 0, root);
  }

  private static int at(ScanRow row, String name) {
    int column = row.indexOf(name);
    assertThat(column).as("position of %s", name).isNotNegative();
    return column;
  }

  private static String utf8(ByteBuffer view) {
    byte[] bytes = new byte[view.remaining()];
    view.duplicate().get(bytes);
    return new String(bytes, UTF_8);
  }

  private static void assertFirstRow(ScanRow row) {
    assertThat(row.offset()).isEqualTo(BASE_OFFSET);
    assertThat(row.getLong(at(row, "l"))).isEqualTo(42L);
    assertThat(row.getInt(at(row, "i"))).isEqualTo(-7);
    assertThat(row.getDouble(at(row, "d"))).isEqualTo(2.5);
    assertThat(row.getFloat(at(row, "f"))).isEqualTo(1.25f);
    assertThat(row.getBoolean(at(row, "b"))).isTrue();
    assertThat(row.getString(at(row, "s"))).isEqualTo("héllo €");
    assertThat(utf8(row.getUtf8(at(row, "s")))).isEqualTo("héllo €");
    assertThat(row.getUtf8Bytes(at(row, "s"))).isEqualTo("héllo €".getBytes(UTF_8));
    assertThat(row.getBytes(at(row, "bin"))).containsExactly(1, 2, 3);
    assertThat(row.getBytes(at(row, "fix"))).isEqualTo(FIXED_0);
    assertThat(row.getDecimal(at(row, "dec"))).isEqualTo(new BigDecimal("12345.67"));
    assertThat(row.getDate(at(row, "day"))).isEqualTo(LocalDate.of(2026, 12, 5));
    assertThat(row.getEpochDay(at(row, "day"))).isEqualTo(20_792);
    assertThat(row.getTimestampMicros(at(row, "ts"))).isEqualTo(1_700_000_000_123_456L);
    assertThat(row.getTimestampMicros(at(row, "tstz"))).isEqualTo(-1L);
    assertThat(row.getTimeMicros(at(row, "t"))).isEqualTo(3_600_000_000L);
  }

  private static void assertThirdRow(ScanRow row) {
    assertThat(row.offset()).isEqualTo(BASE_OFFSET + 2);
    assertThat(row.getLong(at(row, "l"))).isEqualTo(Long.MIN_VALUE);
    assertThat(row.getInt(at(row, "i"))).isEqualTo(Integer.MAX_VALUE);
    assertThat(row.getDouble(at(row, "d"))).isEqualTo(-1e300);
    assertThat(row.getFloat(at(row, "f"))).isEqualTo(3.5f);
    assertThat(row.getBoolean(at(row, "b"))).isFalse();
    assertThat(row.getString(at(row, "s"))).isEmpty();
    assertThat(row.getUtf8(at(row, "s")).remaining()).isZero();
    assertThat(row.getUtf8Bytes(at(row, "s"))).isEmpty();
    assertThat(row.getBytes(at(row, "bin"))).isEmpty();
    assertThat(row.getBytes(at(row, "fix"))).isEqualTo(FIXED_2);
    assertThat(row.getDecimal(at(row, "dec"))).isEqualTo(new BigDecimal("-0.01"));
    assertThat(row.getDate(at(row, "day"))).isEqualTo(LocalDate.of(1969, 12, 31));
    assertThat(row.getEpochDay(at(row, "day"))).isEqualTo(-1);
    assertThat(row.getTimestampMicros(at(row, "ts"))).isZero();
    assertThat(row.getTimestampMicros(at(row, "tstz"))).isEqualTo(Long.MAX_VALUE);
    assertThat(row.getTimeMicros(at(row, "t"))).isEqualTo(86_399_999_999L);
  }

  @Test
  void everyTypeReadsTheValuesTheRootHolds() {
    ScanRow row = batch(everyType()).row();
    assertThat(row.rowCount()).isEqualTo(3);
    assertThat(row.columnCount()).isEqualTo(13);
    assertThat(row.columnName(5)).isEqualTo("s");

    assertThat(row.next()).isTrue();
    assertThat(row.rowIndex()).isZero();
    for (int column = 0; column < row.columnCount(); column++) {
      assertThat(row.isNull(column)).as(row.columnName(column)).isFalse();
    }
    assertFirstRow(row);

    assertThat(row.next()).isTrue();
    for (int column = 0; column < row.columnCount(); column++) {
      assertThat(row.isNull(column)).as(row.columnName(column)).isTrue();
    }

    assertThat(row.next()).isTrue();
    assertThat(row.rowIndex()).isEqualTo(2);
    for (int column = 0; column < row.columnCount(); column++) {
      assertThat(row.isNull(column)).as(row.columnName(column)).isFalse();
    }
    assertThirdRow(row);

    assertThat(row.next()).isFalse();
    assertThat(row.next()).isFalse();
  }

  @Test
  void decodedBatchesReadAsTheRootTheyWereEncodedFrom() {
    VectorSchemaRoot source = everyType();
    for (Compression compression : List.of(Compression.NONE, Compression.ZSTD)) {
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(ArrowBatchCodec.encode(source, compression), SCHEMA, allocator)) {
        ScanRow row = batch(decoded).row();
        row.moveTo(2);
        assertThirdRow(row);
        row.moveTo(0);
        assertFirstRow(row);
        assertThat(row.next()).isTrue();
        assertThat(row.isNull(at(row, "s"))).isTrue();
      }
    }
  }

  @Test
  void nullsAndBitsAreReadPerRowAcrossValidityBytes() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("l", new ArrowType.Int(64, true)),
                Field.nullable("b", ArrowType.Bool.INSTANCE),
                Field.nullable("never_null", new ArrowType.Int(32, true))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    opened.add(root);
    root.allocateNew();
    int rows = 37;
    for (int i = 0; i < rows; i++) {
      if (i % 3 == 0) {
        root.getVector("l").setNull(i);
      } else {
        ((BigIntVector) root.getVector("l")).setSafe(i, i * 100L);
      }
      ((BitVector) root.getVector("b")).setSafe(i, i % 2 == 0 ? 1 : 0);
      ((IntVector) root.getVector("never_null")).setSafe(i, -i);
    }
    root.setRowCount(rows);
    ScanRow row = batch(root).row();
    int seen = 0;
    while (row.next()) {
      int i = row.rowIndex();
      assertThat(row.isNull(0)).as("row %s", i).isEqualTo(i % 3 == 0);
      if (i % 3 != 0) {
        assertThat(row.getLong(0)).isEqualTo(i * 100L);
      }
      assertThat(row.getBoolean(1)).as("row %s", i).isEqualTo(i % 2 == 0);
      assertThat(row.isNull(2)).isFalse();
      assertThat(row.getInt(2)).isEqualTo(-i);
      seen++;
    }
    assertThat(seen).isEqualTo(rows);
  }

  @Test
  void aTypedGetterOnANullValueThrowsNullPointerExceptionNamingTheColumn() {
    ScanRow row = batch(everyType()).row();
    row.moveTo(1);
    List<Function<Integer, Object>> getters =
        List.of(
            row::getLong,
            row::getInt,
            row::getDouble,
            row::getFloat,
            row::getBoolean,
            row::getString,
            row::getBytes,
            row::getBytes,
            row::getDecimal,
            row::getDate,
            row::getTimestampMicros,
            row::getTimestampMicros,
            row::getTimeMicros);
    for (int column = 0; column < getters.size(); column++) {
      int position = column;
      assertThatThrownBy(() -> getters.get(position).apply(position))
          .as(row.columnName(column))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("Column " + row.columnName(column) + " is null at offset 1001")
          .hasMessageContaining("isNull(" + column + ")");
    }
    int s = at(row, "s");
    assertThatThrownBy(() -> row.getUtf8(s)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> row.getUtf8Bytes(s)).isInstanceOf(NullPointerException.class);
    int day = at(row, "day");
    assertThatThrownBy(() -> row.getEpochDay(day))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("Column day is null at offset 1001: check isNull(9) before getEpochDay");
  }

  @Test
  void aTypedGetterOnAColumnOfAnotherTypeNamesTheColumnItsTypeAndTheGetterToUse() {
    ScanRow row = batch(everyType()).row();
    row.next();
    assertThatThrownBy(() -> row.getLong(at(row, "i")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read column i of type int with getLong: read it with getInt");
    assertThatThrownBy(() -> row.getInt(at(row, "l")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read column l of type long with getInt: read it with getLong");
    assertThatThrownBy(() -> row.getString(at(row, "bin")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read column bin of type binary with getString: read it with getBytes");
    assertThatThrownBy(() -> row.getBytes(at(row, "s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column s of type string with getBytes: read it with getString, getUtf8"
                + " or getUtf8Bytes");
    assertThatThrownBy(() -> row.getLong(at(row, "tstz")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column tstz of type timestamptz with getLong: read it with"
                + " getTimestampMicros");
    assertThatThrownBy(() -> row.getTimestampMicros(at(row, "t")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column t of type time with getTimestampMicros: read it with"
                + " getTimeMicros");
    assertThatThrownBy(() -> row.getDouble(at(row, "f")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read column f of type float with getDouble: read it with getFloat");
    assertThatThrownBy(() -> row.getInt(at(row, "day")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column day of type date with getInt: read it with getDate or"
                + " getEpochDay");
    assertThatThrownBy(() -> row.getDecimal(at(row, "d")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read column d of type double with getDecimal: read it with getDouble");
    assertThatThrownBy(() -> row.getBoolean(at(row, "dec")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column dec of type decimal(10, 2) with getBoolean: read it with"
                + " getDecimal");
    assertThatThrownBy(() -> row.getTimestampMicros(at(row, "fix")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column fix of type fixed(16) with getTimestampMicros: read it with"
                + " getBytes");
    // A wrong-type read of a null value still names the type: the getter is wrong in every row.
    row.next();
    assertThatThrownBy(() -> row.getLong(at(row, "s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("of type string");
  }

  @Test
  void aColumnOfATypeWithoutAGetterStillSaysWhetherItIsNull() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("small", new ArrowType.Int(16, true)),
                Field.nullable("nanos", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    opened.add(root);
    root.allocateNew();
    ((SmallIntVector) root.getVector(0)).setSafe(0, 5);
    root.getVector(0).setNull(1);
    ((TimeStampNanoVector) root.getVector(1)).setSafe(0, 5L);
    root.getVector(1).setNull(1);
    root.setRowCount(2);
    ScanRow row = batch(root).row();
    row.next();
    assertThat(row.isNull(0)).isFalse();
    assertThat(row.isNull(1)).isFalse();
    assertThatThrownBy(() -> row.getInt(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column small of type Int(16, true) with getInt: the view has no getter"
                + " for it");
    assertThatThrownBy(() -> row.getTimestampMicros(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read column nanos of type Timestamp(NANOSECOND, null) with getTimestampMicros:"
                + " the view has no getter for it");
    row.next();
    assertThat(row.isNull(0)).isTrue();
    assertThat(row.isNull(1)).isTrue();
  }

  @Test
  void theCursorMustBeOnARow() {
    ScanRow row = batch(everyType()).row();
    assertThatThrownBy(() -> row.getLong(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before the first row");
    assertThatThrownBy(row::offset).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> row.isNull(0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> row.moveTo(3))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("Cannot move to row 3 of a batch of 3 rows");
    assertThatThrownBy(() -> row.moveTo(-1)).isInstanceOf(IndexOutOfBoundsException.class);

    row.moveTo(1);
    assertThat(row.next()).isTrue();
    assertThat(row.offset()).isEqualTo(BASE_OFFSET + 2);
    assertThat(row.getLong(0)).isEqualTo(Long.MIN_VALUE);
    assertThat(row.next()).isFalse();
    assertThatThrownBy(() -> row.getLong(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("past the last row");
    assertThatThrownBy(row::changeType).isInstanceOf(IllegalStateException.class);

    row.moveTo(0);
    assertThat(row.getLong(0)).isEqualTo(42L);
    assertThatThrownBy(() -> row.getLong(13)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> row.isNull(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aViewOfAClosedBatchRefusesToMove() {
    VectorSchemaRoot root = everyType();
    ScanBatch batch = batch(root);
    ScanRow row = batch.row();
    assertThat(row.next()).isTrue();
    batch.close();
    assertThatThrownBy(row::next)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "The batch at offset 1000 is closed: a view must not be used after its batch is"
                + " closed");
    assertThatThrownBy(() -> row.moveTo(0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aViewOfAClosedBatchRefusesToReadAValue() {
    // The getters read the batch's memory directly: after close it may be freed.
    ScanBatch batch = batch(everyType());
    ScanRow row = batch.row();
    assertThat(row.next()).isTrue();
    assertThat(row.getLong(0)).isEqualTo(42L);
    batch.close();
    for (org.junit.jupiter.api.function.Executable read :
        List.<org.junit.jupiter.api.function.Executable>of(
            () -> row.getLong(0), () -> row.isNull(0), row::offset)) {
      assertThatThrownBy(read::execute)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "The batch at offset 1000 is closed: a view must not be used after its batch is"
                  + " closed");
    }
  }

  @Test
  void viewsOfOneBatchHaveTheirOwnCursors() {
    ScanBatch batch = batch(everyType());
    ScanRow first = batch.row();
    ScanRow second = batch.row();
    first.moveTo(2);
    second.next();
    assertThat(first.getLong(0)).isEqualTo(Long.MIN_VALUE);
    assertThat(second.getLong(0)).isEqualTo(42L);
  }

  @Test
  void aStringViewIsReusedAndBoundsEachRowsValue() {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE))), allocator);
    opened.add(root);
    root.allocateNew();
    List<String> values = List.of("alpha", "", "βeta", "gamma-gamma");
    for (int i = 0; i < values.size(); i++) {
      ((VarCharVector) root.getVector(0)).setSafe(i, values.get(i).getBytes(UTF_8));
    }
    root.setRowCount(values.size());
    ScanRow row = batch(root).row();
    ByteBuffer first = null;
    List<String> read = new ArrayList<>();
    while (row.next()) {
      ByteBuffer view = row.getUtf8(0);
      assertThat(view.isReadOnly()).isTrue();
      if (first == null) {
        first = view;
      }
      assertThat(view).isSameAs(first);
      read.add(utf8(view));
    }
    assertThat(read).containsExactlyElementsOf(values);
  }

  @Test
  void theChangeTypeOfEachRowOfAChangelogAndInsertForALogTable() {
    Schema schema =
        ArrowValues.withChangeType(
            new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    opened.add(root);
    root.allocateNew();
    ChangeType[] types = {
      ChangeType.INSERT, ChangeType.UPDATE_BEFORE, ChangeType.UPDATE_AFTER, ChangeType.DELETE
    };
    for (int i = 0; i < types.length; i++) {
      ((BigIntVector) root.getVector(0)).setSafe(i, 7L);
      ((TinyIntVector) root.getVector(1)).setSafe(i, types[i].code());
    }
    root.setRowCount(types.length);
    ScanRow row = batch(root).row();
    assertThat(row.columnCount()).isEqualTo(1);
    assertThat(row.indexOf(ArrowValues.CHANGE_TYPE_COLUMN)).isEqualTo(-1);
    List<ChangeType> read = new ArrayList<>();
    while (row.next()) {
      assertThat(row.getLong(0)).isEqualTo(7L);
      read.add(row.changeType());
    }
    assertThat(read).containsExactly(types);

    ScanRow logRow = batch(everyType()).row();
    logRow.next();
    assertThat(logRow.changeType()).isEqualTo(ChangeType.INSERT);
  }

  @Test
  void aViewByNameReadsAColumnTheBatchLacksAsNull() {
    ScanBatch batch = batch(everyType());
    ScanRow row = batch.row(Arrays.asList("s", "added_later", "l"));
    assertThat(row.columnCount()).isEqualTo(3);
    assertThat(row.indexOf("l")).isEqualTo(2);
    assertThat(row.indexOf("added_later")).isEqualTo(1);
    assertThat(row.indexOf("i")).isEqualTo(-1);
    assertThat(row.columnName(1)).isEqualTo("added_later");
    assertThat(row.next()).isTrue();
    assertThat(row.getString(0)).isEqualTo("héllo €");
    assertThat(row.getLong(2)).isEqualTo(42L);
    assertThat(row.isNull(1)).isTrue();
    assertThatThrownBy(() -> row.getString(1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(
            "Column added_later is null at offset 1000 (the batch was written before the column"
                + " was added): check isNull(1) before getString");
    assertThatThrownBy(() -> row.getLong(1)).isInstanceOf(NullPointerException.class);
    assertThat(row.next()).isTrue();
    assertThat(row.isNull(0)).isTrue();
    assertThat(row.isNull(1)).isTrue();
    assertThat(row.isNull(2)).isTrue();

    assertThatThrownBy(() -> batch.row(Arrays.asList("l", null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("column name is null");
  }
}
