package io.lakestream.client;

import io.lakestream.client.arrow.ArrowValues;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.DecimalUtility;

/**
 * A cursor over the rows of one {@link ScanBatch}, reading each value with a typed getter straight
 * from the batch's Arrow memory: no {@code Object[]} per row, no boxed numbers, and strings
 * readable without a {@code String}. It sits between the batch's Arrow vectors (fastest, but they
 * need Arrow's API) and {@link ScanBatch#rows()} (a boxed {@code Object[]} per row).
 *
 * <pre>{@code
 * for (ScanBatch batch : scanner.poll(Duration.ofMillis(100))) {
 *   try (batch) {
 *     ScanRow row = batch.row();
 *     int id = row.indexOf("id");
 *     int name = row.indexOf("name");
 *     while (row.next()) {
 *       long key = row.getLong(id);
 *       String value = row.isNull(name) ? null : row.getString(name);
 *       System.out.println(row.offset() + " " + row.changeType() + " " + key + " " + value);
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p><b>Rows.</b> A new cursor stands before the first row; {@link #next()} moves it to the next
 * row and {@link #moveTo(int)} to any row, in any order. Every getter reads the row the cursor is
 * on and throws {@link IllegalStateException} when it is on none (before the first {@code next()},
 * or after {@code next()} returned false).
 *
 * <p><b>Columns</b> are positions in the view: the batch's columns in order for {@link
 * ScanBatch#row()}, the named columns in the order named for {@link ScanBatch#row(List)}. Look a
 * position up by name once with {@link #indexOf(String)} and read by position. A column named in
 * {@link ScanBatch#row(List)} that the batch does not have (the batch was written before the column
 * was added to the table) is null in every row, as {@link ScanBatch#rows(List)} reads it. Positions
 * differ between batches written with different schemas; a view made with the column names the
 * reader wants keeps them fixed.
 *
 * <p><b>Types.</b> Each getter reads the one column type it names, with no conversion:
 *
 * <table>
 *   <caption>Getters by column type</caption>
 *   <tr><th>Iceberg type</th><th>getter</th></tr>
 *   <tr><td>long</td><td>{@link #getLong}</td></tr>
 *   <tr><td>int</td><td>{@link #getInt}</td></tr>
 *   <tr><td>double</td><td>{@link #getDouble}</td></tr>
 *   <tr><td>float</td><td>{@link #getFloat}</td></tr>
 *   <tr><td>boolean</td><td>{@link #getBoolean}</td></tr>
 *   <tr><td>string</td><td>{@link #getString}, {@link #getUtf8}, {@link #getUtf8Bytes}</td></tr>
 *   <tr><td>binary, fixed(L), uuid</td><td>{@link #getBytes}</td></tr>
 *   <tr><td>decimal(P, S)</td><td>{@link #getDecimal}</td></tr>
 *   <tr><td>date</td><td>{@link #getDate}, {@link #getEpochDay}</td></tr>
 *   <tr><td>timestamp, timestamptz</td><td>{@link #getTimestampMicros}</td></tr>
 *   <tr><td>time</td><td>{@link #getTimeMicros}</td></tr>
 * </table>
 *
 * A getter asked for a column of another type throws {@link IllegalArgumentException} naming the
 * column, its type and the getter to use. A getter asked for a null value throws {@link
 * NullPointerException} naming the column and the row's offset: check {@link #isNull(int)} first
 * for a column that may hold nulls. A position outside {@code [0, columnCount())} throws {@link
 * IndexOutOfBoundsException}.
 *
 * <p><b>Lifetime and cost.</b> The view resolves the batch's column buffers once, when it is made;
 * a getter is then an array access and a read of the batch's memory. It reads the batch as it was
 * when the view was made and must not be used after the batch is {@linkplain ScanBatch#close()
 * closed}: the memory it reads may by then hold another batch's values. {@link #next()} and {@link
 * #moveTo(int)} throw {@link IllegalStateException} once the batch is closed; getters do not check.
 * Not thread safe: use a view on one thread at a time (each thread may make its own view of the
 * same batch).
 */
public final class ScanRow {
  // Column kinds; a getter checks its column's kind before it reads.
  private static final byte ABSENT = 0;
  private static final byte OTHER = 1;
  private static final byte LONG = 2;
  private static final byte INT = 3;
  private static final byte DOUBLE = 4;
  private static final byte FLOAT = 5;
  private static final byte BOOLEAN = 6;
  private static final byte STRING = 7;
  private static final byte BINARY = 8;
  private static final byte FIXED_BINARY = 9;
  private static final byte DECIMAL = 10;
  private static final byte DATE = 11;
  private static final byte TIMESTAMP = 12;
  private static final byte TIME = 13;

  private static final byte[] NO_BYTES = new byte[0];

  private final long baseOffset;
  private final int rowCount;
  private final String[] names;
  // The vector of each column, null for a column the batch lacks; used only to describe a column
  // in a message and to make a string view.
  private final FieldVector[] vectors;
  private final byte[] kinds;
  // Validity bits of each column; null for a column without nulls in this batch (and for an absent
  // one, whose kind says that it is all null).
  private final ArrowBuf[] validity;
  private final ArrowBuf[] values;
  private final ArrowBuf[] offsets;
  private final int[] widths;
  // Where each column's validity bits, values and offsets start in memory, read without Arrow's
  // per-access checks (a reference count and bounds per value): set only when the buffer holds all
  // rowCount rows' entries, else 0 and the getters read through the ArrowBuf, which checks.
  // Reading them after the batch is closed is refused by checkRow (its memory may be freed).
  private final long[] validityAddresses;
  private final long[] valueAddresses;
  private final long[] offsetAddresses;
  // The capacity of each column's data buffer, to check a string's offsets against.
  private final long[] valueCapacities;
  private final ArrowBuf changeTypes;
  // Per string column, a read-only view of its data buffer, made on the first getUtf8.
  private final ByteBuffer[] utf8Views;
  private byte[] scratch = NO_BYTES;
  // A vector of the batch: closing the batch sets its value count to 0.
  private final FieldVector probe;
  private int row = -1;

  /**
   * A view of columns of a root: {@code columns.get(i)} is column i's vector, null for a column the
   * root lacks, and {@code names.get(i)} its name.
   */
  ScanRow(VectorSchemaRoot root, long baseOffset, List<FieldVector> columns, List<String> names) {
    this.baseOffset = baseOffset;
    this.rowCount = root.getRowCount();
    int count = names.size();
    this.names = names.toArray(new String[0]);
    this.vectors = columns.toArray(new FieldVector[0]);
    this.kinds = new byte[count];
    this.validity = new ArrowBuf[count];
    this.values = new ArrowBuf[count];
    this.offsets = new ArrowBuf[count];
    this.widths = new int[count];
    this.utf8Views = new ByteBuffer[count];
    this.validityAddresses = new long[count];
    this.valueAddresses = new long[count];
    this.offsetAddresses = new long[count];
    this.valueCapacities = new long[count];
    for (int column = 0; column < count; column++) {
      FieldVector vector = vectors[column];
      if (vector == null) {
        kinds[column] = ABSENT;
        continue;
      }
      byte kind = kindOf(vector.getField().getType());
      kinds[column] = kind;
      if (vector.getNullCount() > 0) {
        validity[column] = vector.getValidityBuffer();
        validityAddresses[column] = addressIfHolds(validity[column], (rowCount + 7L) >>> 3);
      }
      if (kind == OTHER) {
        continue;
      }
      values[column] = vector.getDataBuffer();
      valueCapacities[column] = values[column].capacity();
      if (kind == STRING || kind == BINARY) {
        offsets[column] = vector.getOffsetBuffer();
        offsetAddresses[column] = addressIfHolds(offsets[column], (rowCount + 1L) << 2);
        valueAddresses[column] = addressIfHolds(values[column], 0);
      } else if (kind == LONG || kind == DOUBLE || kind == TIMESTAMP || kind == TIME) {
        valueAddresses[column] = addressIfHolds(values[column], (long) rowCount << 3);
      } else if (kind == INT || kind == FLOAT || kind == DATE) {
        valueAddresses[column] = addressIfHolds(values[column], (long) rowCount << 2);
      } else if (kind == BOOLEAN) {
        valueAddresses[column] = addressIfHolds(values[column], (rowCount + 7L) >>> 3);
      } else if (kind == FIXED_BINARY) {
        widths[column] = ((ArrowType.FixedSizeBinary) vector.getField().getType()).getByteWidth();
      } else if (kind == DECIMAL) {
        widths[column] = ((ArrowType.Decimal) vector.getField().getType()).getScale();
      }
    }
    FieldVector types = root.getVector(ArrowValues.CHANGE_TYPE_COLUMN);
    this.changeTypes = types == null ? null : types.getDataBuffer();
    this.probe = root.getFieldVectors().isEmpty() ? null : root.getFieldVectors().get(0);
  }

  /** A buffer's memory address when it holds at least {@code bytes} bytes, else 0. */
  private static long addressIfHolds(ArrowBuf buffer, long bytes) {
    return buffer != null && buffer.capacity() >= bytes && buffer.capacity() > 0
        ? buffer.memoryAddress()
        : 0;
  }

  private static byte kindOf(ArrowType type) {
    if (type instanceof ArrowType.Int integer && integer.getIsSigned()) {
      return integer.getBitWidth() == 64 ? LONG : integer.getBitWidth() == 32 ? INT : OTHER;
    } else if (type instanceof ArrowType.FloatingPoint floating) {
      return floating.getPrecision() == FloatingPointPrecision.DOUBLE
          ? DOUBLE
          : floating.getPrecision() == FloatingPointPrecision.SINGLE ? FLOAT : OTHER;
    } else if (type instanceof ArrowType.Bool) {
      return BOOLEAN;
    } else if (type instanceof ArrowType.Utf8) {
      return STRING;
    } else if (type instanceof ArrowType.Binary) {
      return BINARY;
    } else if (type instanceof ArrowType.FixedSizeBinary) {
      return FIXED_BINARY;
    } else if (type instanceof ArrowType.Decimal decimal && decimal.getBitWidth() == 128) {
      return DECIMAL;
    } else if (type instanceof ArrowType.Date date && date.getUnit() == DateUnit.DAY) {
      return DATE;
    } else if (type instanceof ArrowType.Timestamp timestamp
        && timestamp.getUnit() == TimeUnit.MICROSECOND) {
      return TIMESTAMP;
    } else if (type instanceof ArrowType.Time time
        && time.getUnit() == TimeUnit.MICROSECOND
        && time.getBitWidth() == 64) {
      return TIME;
    }
    return OTHER;
  }

  /**
   * The number of rows in the batch.
   *
   * @return the number of rows of the batch
   */
  public int rowCount() {
    return rowCount;
  }

  /**
   * The number of columns in the view.
   *
   * @return the number of columns of this view
   */
  public int columnCount() {
    return names.length;
  }

  /**
   * The name of a column of the view.
   *
   * @param column the column's position in this view, from 0
   * @return the column's name
   * @throws IndexOutOfBoundsException for a position outside {@code [0, columnCount())}
   */
  public String columnName(int column) {
    return names[column];
  }

  /**
   * The position of the named column in the view, or -1 if the view has none of that name. A reader
   * calls it once per batch (or once per view made with the same names) and then reads by position.
   *
   * @param name a column name
   * @return the column's position in this view, or -1 if it has none of that name
   */
  public int indexOf(String name) {
    for (int column = 0; column < names.length; column++) {
      if (names[column].equals(name)) {
        return column;
      }
    }
    return -1;
  }

  /**
   * Moves to the next row: the first row on the first call. Returns false, and leaves the cursor on
   * no row, once every row has been visited.
   *
   * @return {@code true} if the cursor is on a row, {@code false} past the last one
   * @throws IllegalStateException if the batch is closed
   */
  public boolean next() {
    if (row + 1 < rowCount) {
      checkOpen();
      row++;
      return true;
    }
    row = rowCount;
    return false;
  }

  /**
   * Moves to row {@code row} of the batch (0 is its first row); {@link #next()} then continues from
   * there.
   *
   * @param row the row's index in the batch, from 0
   * @throws IndexOutOfBoundsException for a row outside {@code [0, rowCount())}
   * @throws IllegalStateException if the batch is closed
   */
  public void moveTo(int row) {
    if (row < 0 || row >= rowCount) {
      throw new IndexOutOfBoundsException(
          "Cannot move to row " + row + " of a batch of " + rowCount + " rows");
    }
    checkOpen();
    this.row = row;
  }

  /**
   * The position of the current row in the batch (0 for its first row).
   *
   * @return the row's index in the batch, from 0
   * @throws IllegalStateException when the cursor is on no row
   */
  public int rowIndex() {
    checkRow();
    return row;
  }

  /**
   * The log offset of the current row: the batch's {@link ScanBatch#baseOffset()} plus the row's
   * position in the batch.
   *
   * @return the row's offset in its bucket's log
   * @throws IllegalStateException when the cursor is on no row
   */
  public long offset() {
    checkRow();
    return baseOffset + row;
  }

  /**
   * The change type of the current row of a primary-key table's changelog; {@link
   * ChangeType#INSERT} for every row of a log table.
   *
   * @return the row's change type
   * @throws IllegalStateException when the cursor is on no row
   */
  public ChangeType changeType() {
    checkRow();
    return changeTypes == null ? ChangeType.INSERT : ChangeType.fromCode(changeTypes.getByte(row));
  }

  /**
   * Whether the current row's value of a column is null; true in every row for a column the batch
   * does not have.
   *
   * @param column the column's position in this view, from 0
   * @return whether the value is null
   * @throws IllegalStateException when the cursor is on no row
   * @throws IndexOutOfBoundsException for a position outside {@code [0, columnCount())}
   */
  public boolean isNull(int column) {
    checkRow();
    ArrowBuf bits = validity[column];
    if (bits == null) {
      return kinds[column] == ABSENT;
    }
    return (validityByte(column) & (1 << (row & 7))) == 0;
  }

  /**
   * The value of a {@code long} column.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public long getLong(int column) {
    check(column, LONG, "getLong");
    return longAt(column);
  }

  /**
   * The value of an {@code int} column.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public int getInt(int column) {
    check(column, INT, "getInt");
    return intAt(column);
  }

  /**
   * The value of a {@code double} column.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public double getDouble(int column) {
    check(column, DOUBLE, "getDouble");
    long address = valueAddresses[column];
    return address != 0
        ? Double.longBitsToDouble(MemoryUtil.getLong(address + ((long) row << 3)))
        : values[column].getDouble((long) row << 3);
  }

  /**
   * The value of a {@code float} column.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public float getFloat(int column) {
    check(column, FLOAT, "getFloat");
    long address = valueAddresses[column];
    return address != 0
        ? Float.intBitsToFloat(MemoryUtil.getInt(address + ((long) row << 2)))
        : values[column].getFloat((long) row << 2);
  }

  /**
   * The value of a {@code boolean} column.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public boolean getBoolean(int column) {
    check(column, BOOLEAN, "getBoolean");
    long address = valueAddresses[column];
    byte bits =
        address != 0
            ? MemoryUtil.getByte(address + (row >>> 3))
            : values[column].getByte(row >>> 3);
    return (bits & (1 << (row & 7))) != 0;
  }

  /**
   * The value of a {@code string} column, decoded into a new String. {@link #getUtf8} reads the
   * same value without decoding or allocating.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public String getString(int column) {
    check(column, STRING, "getString");
    int start = start(column);
    int length = end(column) - start;
    if (length == 0) {
      return "";
    }
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    long address = valueAddresses[column];
    if (address != 0
        && start >= 0
        && length > 0
        && start + (long) length <= valueCapacities[column]) {
      MemoryUtil.copyFromMemory(address + start, scratch, 0, length);
    } else {
      values[column].getBytes(start, scratch, 0, length);
    }
    return new String(scratch, 0, length, StandardCharsets.UTF_8);
  }

  /**
   * The UTF-8 bytes of a {@code string} column's value, without copying them: a read-only buffer
   * over the batch's memory whose position and limit bound the value. The same buffer object is
   * returned for every row of the column, so it is valid only until the next {@code getUtf8} of the
   * same column, and never after the batch is closed; copy what you keep.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public ByteBuffer getUtf8(int column) {
    check(column, STRING, "getUtf8");
    ByteBuffer view = utf8Views[column];
    if (view == null) {
      ArrowBuf data = values[column];
      view = data.nioBuffer(0, (int) data.capacity()).asReadOnlyBuffer();
      utf8Views[column] = view;
    }
    view.clear();
    view.position(start(column)).limit(end(column));
    return view;
  }

  /**
   * The UTF-8 bytes of a {@code string} column's value, copied into a new array (no decoding).
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public byte[] getUtf8Bytes(int column) {
    check(column, STRING, "getUtf8Bytes");
    return copyVariable(column);
  }

  /**
   * The value of a {@code binary}, {@code fixed(L)} or {@code uuid} column (a uuid's 16 bytes, most
   * significant first), copied into a new array.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public byte[] getBytes(int column) {
    checkRow();
    byte kind = kinds[column];
    if (kind == FIXED_BINARY) {
      checkNotNull(column, "getBytes");
      int width = widths[column];
      byte[] bytes = new byte[width];
      values[column].getBytes((long) row * width, bytes, 0, width);
      return bytes;
    }
    check(column, BINARY, "getBytes");
    return copyVariable(column);
  }

  /**
   * The value of a {@code decimal(P, S)} column, with scale S.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public BigDecimal getDecimal(int column) {
    check(column, DECIMAL, "getDecimal");
    return DecimalUtility.getBigDecimalFromArrowBuf(values[column], row, widths[column], 16);
  }

  /**
   * The value of a {@code date} column. {@link #getEpochDay} reads it without making a LocalDate.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public LocalDate getDate(int column) {
    check(column, DATE, "getDate");
    return LocalDate.ofEpochDay(intAt(column));
  }

  /**
   * The value of a {@code date} column as days since 1970-01-01 (negative before).
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public int getEpochDay(int column) {
    check(column, DATE, "getEpochDay");
    return intAt(column);
  }

  /**
   * The value of a {@code timestamp} or {@code timestamptz} column: microseconds since
   * 1970-01-01T00:00 (UTC for a timestamptz; local date-time of the writer's choosing for a
   * timestamp), as {@link AppendWriter#append(Object...)} takes it.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public long getTimestampMicros(int column) {
    check(column, TIMESTAMP, "getTimestampMicros");
    return longAt(column);
  }

  /**
   * The value of a {@code time} column: microseconds since midnight.
   *
   * @param column the column's position in this view, from 0
   * @return the value
   * @throws IllegalArgumentException for a column of another type
   * @throws NullPointerException for a null value
   * @throws IllegalStateException when the cursor is on no row
   */
  public long getTimeMicros(int column) {
    check(column, TIME, "getTimeMicros");
    return longAt(column);
  }

  private int start(int column) {
    long address = offsetAddresses[column];
    return address != 0
        ? MemoryUtil.getInt(address + ((long) row << 2))
        : offsets[column].getInt((long) row << 2);
  }

  private int end(int column) {
    long address = offsetAddresses[column];
    return address != 0
        ? MemoryUtil.getInt(address + ((long) (row + 1) << 2))
        : offsets[column].getInt((long) (row + 1) << 2);
  }

  private long longAt(int column) {
    long address = valueAddresses[column];
    return address != 0
        ? MemoryUtil.getLong(address + ((long) row << 3))
        : values[column].getLong((long) row << 3);
  }

  private int intAt(int column) {
    long address = valueAddresses[column];
    return address != 0
        ? MemoryUtil.getInt(address + ((long) row << 2))
        : values[column].getInt((long) row << 2);
  }

  private byte validityByte(int column) {
    long address = validityAddresses[column];
    return address != 0
        ? MemoryUtil.getByte(address + (row >>> 3))
        : validity[column].getByte(row >>> 3);
  }

  private byte[] copyVariable(int column) {
    int start = start(column);
    int length = end(column) - start;
    byte[] bytes = new byte[length];
    values[column].getBytes(start, bytes, 0, length);
    return bytes;
  }

  private void checkOpen() {
    if (probe != null && probe.getValueCount() != rowCount) {
      throw new IllegalStateException(
          "The batch at offset "
              + baseOffset
              + " is closed: a view must not be used after its batch is closed");
    }
  }

  private void checkRow() {
    if (row < 0 || row >= rowCount) {
      throw new IllegalStateException(
          row < 0
              ? "The view is before the first row: call next() or moveTo(int) first"
              : "The view is past the last row: next() returned false");
    }
    // The getters read the batch's memory directly, which closing it may free.
    checkOpen();
  }

  /** Checks that the cursor is on a row and the column is of {@code kind} and not null. */
  private void check(int column, byte kind, String getter) {
    checkRow();
    if (kinds[column] != kind) {
      throw kinds[column] == ABSENT ? nullValue(column, getter) : wrongType(column, getter);
    }
    checkNotNull(column, getter);
  }

  private void checkNotNull(int column, String getter) {
    ArrowBuf bits = validity[column];
    if (bits != null && (validityByte(column) & (1 << (row & 7))) == 0) {
      throw nullValue(column, getter);
    }
  }

  private NullPointerException nullValue(int column, String getter) {
    return new NullPointerException(
        "Column "
            + names[column]
            + " is null at offset "
            + (baseOffset + row)
            + (kinds[column] == ABSENT
                ? " (the batch was written before the column was added)"
                : "")
            + ": check isNull("
            + column
            + ") before "
            + getter);
  }

  private IllegalArgumentException wrongType(int column, String getter) {
    String reader = getterOf(kinds[column]);
    return new IllegalArgumentException(
        "Cannot read column "
            + names[column]
            + " of type "
            + typeName(vectors[column].getField().getType())
            + " with "
            + getter
            + (reader == null ? ": the view has no getter for it" : ": read it with " + reader));
  }

  private static String getterOf(byte kind) {
    return switch (kind) {
      case LONG -> "getLong";
      case INT -> "getInt";
      case DOUBLE -> "getDouble";
      case FLOAT -> "getFloat";
      case BOOLEAN -> "getBoolean";
      case STRING -> "getString, getUtf8 or getUtf8Bytes";
      case BINARY, FIXED_BINARY -> "getBytes";
      case DECIMAL -> "getDecimal";
      case DATE -> "getDate or getEpochDay";
      case TIMESTAMP -> "getTimestampMicros";
      case TIME -> "getTimeMicros";
      default -> null;
    };
  }

  /**
   * A column type as its Iceberg name, which is what the table's schema shows the user; Arrow's
   * name for a type the view does not read.
   */
  private static String typeName(ArrowType type) {
    byte kind = kindOf(type);
    if (type instanceof ArrowType.FixedSizeBinary fixed) {
      return "fixed(" + fixed.getByteWidth() + ")";
    } else if (type instanceof ArrowType.Decimal decimal && kind == DECIMAL) {
      return "decimal(" + decimal.getPrecision() + ", " + decimal.getScale() + ")";
    } else if (type instanceof ArrowType.Timestamp timestamp && kind == TIMESTAMP) {
      return timestamp.getTimezone() == null ? "timestamp" : "timestamptz";
    }
    return switch (kind) {
      case LONG -> "long";
      case INT -> "int";
      case DOUBLE -> "double";
      case FLOAT -> "float";
      case BOOLEAN -> "boolean";
      case STRING -> "string";
      case BINARY -> "binary";
      case DATE -> "date";
      case TIME -> "time";
      default -> type.toString();
    };
  }
}
