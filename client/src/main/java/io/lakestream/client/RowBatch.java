package io.lakestream.client;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
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

/**
 * One bucket's batch of rows, gathered column by column into plain Java arrays. The appending
 * thread checks and stores values (strings as their UTF-8 bytes, encoded while the string is in
 * cache); turning the columns into Arrow vectors, which copies each column in bulk, happens later
 * on the writer's sender thread ({@link #writeTo}). A batch is reused after it is sent; {@link
 * #reset()} keeps its arrays, so a writer in steady state allocates little per row.
 *
 * <p>Internal: public for the server's key-value store, which encodes rows with it; applications
 * write rows through {@link AppendWriter} and {@link UpsertWriter}.
 *
 * <p>Not thread safe; the writer hands a batch from the appending thread to its sender thread.
 */
public final class RowBatch {
  private final Schema schema;
  private final Column[] columns;
  private final int capacity;
  private final long byteLimit;
  // The estimated bytes of a row's fixed-width values, and the columns whose values vary in size.
  private final int fixedRowBytes;
  private final BytesColumn[] variableColumns;
  private int rows;
  private byte[] operations;

  /**
   * An empty batch of at most {@code capacity} rows.
   *
   * @param schema the Arrow schema of the rows, one column per field
   * @param capacity the most rows the batch holds; its arrays are allocated at this size
   */
  public RowBatch(Schema schema, int capacity) {
    this(schema, capacity, Long.MAX_VALUE);
  }

  /**
   * An empty batch that is {@linkplain #isFull() full} at {@code capacity} rows or once its
   * estimated uncompressed size reaches {@code byteLimit} bytes: fixed-width values count their
   * width, strings their length in chars, byte arrays their length.
   *
   * @param schema the Arrow schema of the rows, one column per field
   * @param capacity the most rows the batch holds; its arrays are allocated at this size
   * @param byteLimit the estimated size at which the batch is full
   */
  public RowBatch(Schema schema, int capacity, long byteLimit) {
    this.schema = schema;
    this.capacity = capacity;
    this.byteLimit = byteLimit;
    List<Field> fields = schema.getFields();
    this.columns = new Column[fields.size()];
    List<BytesColumn> variable = new ArrayList<>();
    int fixed = 0;
    for (int i = 0; i < columns.length; i++) {
      columns[i] = Column.of(fields.get(i), capacity);
      fixed += columns[i].width;
      if (columns[i] instanceof BytesColumn bytes) {
        variable.add(bytes);
      }
    }
    this.fixedRowBytes = fixed;
    this.variableColumns = variable.toArray(new BytesColumn[0]);
  }

  /**
   * Adds a row; the caller checked its arity and that the batch is not full.
   *
   * @param values the row's values in schema order, as {@link AppendWriter#append(Object...)} takes
   *     them
   * @throws IllegalArgumentException for a value the column cannot hold; the batch is unchanged
   */
  public void add(Object[] values) {
    int row = rows;
    for (int column = 0; column < values.length; column++) {
      Object value = values[column];
      if (value == null) {
        columns[column].setNull(row);
      } else if (!store(columns[column], row, value)) {
        for (int undo = 0; undo <= column; undo++) {
          columns[undo].clearNull(row);
        }
        throw new IllegalArgumentException(
            "Column "
                + schema.getFields().get(column).getName()
                + " of type "
                + schema.getFields().get(column).getType()
                + " cannot hold a "
                + value.getClass().getName());
      }
    }
    rows = row + 1;
  }

  /**
   * Adds a row with an operation code (for a primary-key table's writes), as {@link #add}.
   *
   * @param values the row's values in schema order
   * @param operation the row's operation code (upsert or delete)
   * @throws IllegalArgumentException for a value the column cannot hold; the batch is unchanged
   */
  public void add(Object[] values, byte operation) {
    add(values);
    setOperation(operation);
  }

  /**
   * Adds a row read from an accessor, each value stored straight into its column (strings as their
   * UTF-8 bytes); the caller checked its arity and that the batch is not full.
   *
   * @param row the row; read during this call only
   * @throws IllegalArgumentException for a value the column cannot hold, or thrown by the accessor;
   *     the batch is unchanged
   */
  public void add(RowAccessor row) {
    int index = rows;
    int column = 0;
    try {
      for (; column < columns.length; column++) {
        Column target = columns[column];
        if (row.isNullAt(column)) {
          target.setNull(index);
          continue;
        }
        switch (target.access) {
          case Column.LONG -> ((LongColumn) target).values[index] = row.getLong(column);
          case Column.INT -> ((IntColumn) target).values[index] = row.getInt(column);
          case Column.DOUBLE -> ((DoubleColumn) target).values[index] = row.getDouble(column);
          case Column.STRING -> ((BytesColumn) target).writeInline(index, row, column);
          default -> {
            Object value = row.getObject(column);
            if (!target.store(index, value)) {
              throw new IllegalArgumentException(
                  "Column "
                      + schema.getFields().get(column).getName()
                      + " of type "
                      + schema.getFields().get(column).getType()
                      + " cannot hold a "
                      + value.getClass().getName());
            }
          }
        }
      }
    } catch (RuntimeException e) {
      for (int undo = Math.min(column, columns.length - 1); undo >= 0; undo--) {
        columns[undo].clearNull(index);
      }
      throw e;
    }
    rows = index + 1;
  }

  /**
   * Adds a row read from an accessor with an operation code, as {@link #add(RowAccessor)}.
   *
   * @param row the row; read during this call only
   * @param operation the row's operation code (upsert or delete)
   * @throws IllegalArgumentException for a value the column cannot hold, or thrown by the accessor;
   *     the batch is unchanged
   */
  public void add(RowAccessor row, byte operation) {
    add(row);
    setOperation(operation);
  }

  private void setOperation(byte operation) {
    if (operations == null) {
      operations = new byte[capacity];
    }
    operations[rows - 1] = operation;
  }

  /**
   * The operation codes of the rows added with one, in row order.
   *
   * @return a copy, one code per row; empty when no row was added with a code
   */
  public byte[] operations() {
    return operations == null ? new byte[0] : Arrays.copyOf(operations, rows);
  }

  /**
   * Stores a value, dispatching on the column's kind so that the common kinds need no virtual call
   * (a row's columns are of several classes, which would make {@code Column.store} megamorphic).
   */
  private static boolean store(Column column, int row, Object value) {
    switch (column.kind) {
      case Column.LONG:
        if (value instanceof Long number) {
          ((LongColumn) column).values[row] = number;
          return true;
        }
        break;
      case Column.INT:
        if (value instanceof Integer number) {
          ((IntColumn) column).values[row] = number;
          return true;
        }
        break;
      case Column.DOUBLE:
        if (value instanceof Double number) {
          ((DoubleColumn) column).values[row] = number;
          return true;
        }
        break;
      case Column.STRING:
        if (value instanceof String text) {
          ((BytesColumn) column).writeInline(row, text);
          return true;
        }
        break;
      default:
        break;
    }
    return column.store(row, value);
  }

  /**
   * The rows added since the batch was made or last reset.
   *
   * @return the row count
   */
  public int rowCount() {
    return rows;
  }

  /**
   * Whether the batch reached its row capacity or its byte limit.
   *
   * @return {@code true} when no row may be added
   */
  public boolean isFull() {
    return rows >= capacity || (byteLimit != Long.MAX_VALUE && estimatedBytes() >= byteLimit);
  }

  /**
   * The batch's estimated uncompressed size, as its byte limit counts it.
   *
   * @return the estimate in bytes
   */
  public long estimatedBytes() {
    long bytes = (long) rows * fixedRowBytes;
    for (BytesColumn column : variableColumns) {
      bytes += column.estimatedBytes;
    }
    return bytes;
  }

  /**
   * Fills a new root of the batch's schema with its rows; the root's vectors must be empty.
   *
   * @param root a root of the batch's schema, whose row count is set to the batch's
   */
  public void writeTo(VectorSchemaRoot root) {
    List<FieldVector> vectors = root.getFieldVectors();
    for (int i = 0; i < columns.length; i++) {
      columns[i].writeTo(vectors.get(i), rows);
    }
    root.setRowCount(rows);
  }

  /** Empties the batch for reuse, keeping its arrays. */
  public void reset() {
    for (Column column : columns) {
      column.reset(rows);
    }
    rows = 0;
  }

  /** The values of one column and which of them are null. */
  private abstract static class Column {
    static final int OTHER = 0;
    static final int LONG = 1;
    static final int INT = 2;
    static final int DOUBLE = 3;
    static final int STRING = 4;

    final int kind;
    // A value's estimated width in bytes (a variable-width column's offset).
    final int width;
    // How a row accessor's value reaches this column: LONG (getLong), INT (getInt), DOUBLE
    // (getDouble), STRING (writeBytes, strings and binary) or OTHER (getObject, then store).
    final int access;
    private long[] nulls = new long[0];
    private boolean anyNull;

    Column(int kind, int width) {
      this(kind, kind, width);
    }

    Column(int kind, int access, int width) {
      this.kind = kind;
      this.access = access;
      this.width = width;
    }

    static Column of(Field field, int capacity) {
      ArrowType type = field.getType();
      if (type instanceof ArrowType.Int integer && integer.getIsSigned()) {
        if (integer.getBitWidth() == 64) {
          return new LongColumn(capacity);
        }
        if (integer.getBitWidth() == 32) {
          return new IntColumn(capacity, false);
        }
      } else if (type instanceof ArrowType.Timestamp timestamp
          && timestamp.getUnit() == TimeUnit.MICROSECOND) {
        return new LongColumn(capacity);
      } else if (type instanceof ArrowType.Time time && time.getUnit() == TimeUnit.MICROSECOND) {
        return new LongColumn(capacity, true);
      } else if (type instanceof ArrowType.FloatingPoint floating
          && floating.getPrecision() == FloatingPointPrecision.DOUBLE) {
        return new DoubleColumn(capacity);
      } else if (type instanceof ArrowType.Date date && date.getUnit() == DateUnit.DAY) {
        return new IntColumn(capacity, true);
      } else if (type instanceof ArrowType.Utf8) {
        return new BytesColumn(capacity, false);
      } else if (type instanceof ArrowType.Binary) {
        return new BytesColumn(capacity, true);
      }
      return new ObjectColumn(capacity, acceptorFor(type));
    }

    /** Which values a column of a less common type takes; unknown types take none. */
    private static Predicate<Object> acceptorFor(ArrowType type) {
      if (type instanceof ArrowType.FloatingPoint) {
        return value -> value instanceof Number;
      }
      if (type instanceof ArrowType.Bool) {
        return value -> value instanceof Boolean;
      }
      if (type instanceof ArrowType.Int integer && integer.getBitWidth() == 8) {
        return value -> value instanceof Byte;
      }
      if (type instanceof ArrowType.Decimal decimal) {
        return value ->
            value instanceof BigDecimal number
                && number.scale() == decimal.getScale()
                && number.precision() <= decimal.getPrecision();
      }
      return value -> false;
    }

    final void setNull(int row) {
      if (nulls.length <= row >>> 6) {
        nulls = Arrays.copyOf(nulls, Math.max((row >>> 6) + 1, nulls.length * 2));
      }
      nulls[row >>> 6] |= 1L << row;
      anyNull = true;
      clearValue(row);
    }

    final void clearNull(int row) {
      if (anyNull && nulls.length > row >>> 6) {
        nulls[row >>> 6] &= ~(1L << row);
      }
      clearValue(row);
    }

    final boolean isNull(int row) {
      return anyNull && (row >>> 6) < nulls.length && (nulls[row >>> 6] & (1L << row)) != 0;
    }

    void reset(int rows) {
      if (anyNull) {
        Arrays.fill(nulls, 0);
        anyNull = false;
      }
    }

    /** Stores a non-null value, or returns false if the column cannot hold it. */
    abstract boolean store(int row, Object value);

    /** Forgets a value stored at {@code row} (so no reference outlives the row). */
    void clearValue(int row) {}

    abstract void writeTo(FieldVector vector, int rows);

    /**
     * Allocates a fixed-width vector for {@code rows} values, sets their validity, and returns its
     * data buffer for {@code width}-byte values in Arrow's (little-endian) byte order.
     */
    final ByteBuffer fixedWidthData(FieldVector vector, int rows, int width) {
      BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
      fixed.allocateNew(rows);
      writeValidity(vector, rows);
      return fixed.getDataBuffer().nioBuffer(0, rows * width).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Sets the validity bits of {@code rows} rows: all valid, then clears the nulls. */
    final void writeValidity(FieldVector vector, int rows) {
      ArrowBuf validity = vector.getValidityBuffer();
      // Not BitVectorHelper.getValidityBufferSize: it returns int in Arrow 18 and long in Arrow 19,
      // and the client runs with either (Trino brings 19).
      int bytes = (rows + 7) >>> 3;
      validity.setOne(0, bytes);
      if (rows % 8 != 0) {
        validity.setByte(bytes - 1, (1 << (rows % 8)) - 1);
      }
      if (anyNull) {
        for (int row = 0; row < rows; row++) {
          if (isNull(row)) {
            BitVectorHelper.unsetBit(validity, row);
          }
        }
      }
    }
  }

  private static final class LongColumn extends Column {
    final long[] values;
    // A time of day: microseconds since midnight, or a LocalTime.
    private final boolean time;

    LongColumn(int capacity) {
      this(capacity, false);
    }

    LongColumn(int capacity, boolean time) {
      super(LONG, 8);
      values = new long[capacity];
      this.time = time;
    }

    @Override
    boolean store(int row, Object value) {
      if (value instanceof Number number) {
        values[row] = number.longValue();
        return true;
      }
      if (time && value instanceof java.time.LocalTime clock) {
        values[row] = clock.toNanoOfDay() / 1_000;
        return true;
      }
      return false;
    }

    @Override
    void writeTo(FieldVector vector, int rows) {
      fixedWidthData(vector, rows, 8).asLongBuffer().put(values, 0, rows);
    }
  }

  private static final class IntColumn extends Column {
    final int[] values;
    private final boolean date;

    IntColumn(int capacity, boolean date) {
      super(date ? OTHER : INT, INT, 4);
      this.values = new int[capacity];
      this.date = date;
    }

    @Override
    boolean store(int row, Object value) {
      if (!date && value instanceof Number number) {
        values[row] = number.intValue();
        return true;
      }
      if (date && value instanceof LocalDate day) {
        values[row] = (int) day.toEpochDay();
        return true;
      }
      if (date && value instanceof Integer days) {
        values[row] = days;
        return true;
      }
      return false;
    }

    @Override
    void writeTo(FieldVector vector, int rows) {
      fixedWidthData(vector, rows, 4).asIntBuffer().put(values, 0, rows);
    }
  }

  private static final class DoubleColumn extends Column {
    final double[] values;

    DoubleColumn(int capacity) {
      super(DOUBLE, 8);
      values = new double[capacity];
    }

    @Override
    boolean store(int row, Object value) {
      if (value instanceof Number number) {
        values[row] = number.doubleValue();
        return true;
      }
      return false;
    }

    @Override
    void writeTo(FieldVector vector, int rows) {
      fixedWidthData(vector, rows, 8).asDoubleBuffer().put(values, 0, rows);
    }
  }

  /**
   * Strings (kept as references until written) and byte arrays; or, from a row accessor, their
   * bytes copied in at once ("inline"), so that writing the batch copies them in bulk.
   */
  private static final class BytesColumn extends Column implements RowAccessor.ByteTarget {
    // Marks a row whose bytes are inline, from inlineStarts[row] to inlineEnds[row].
    private static final Object INLINE = new Object();

    final Object[] values;
    private final int[] offsets;
    private final boolean binary;
    private byte[] data = new byte[1024];
    private final int[] inlineStarts;
    private final int[] inlineEnds;
    private byte[] inline = new byte[0];
    private int inlineSize;
    // Whether some row holds a reference (a String or byte[]) rather than inline bytes.
    boolean references;
    // The values' size as the batch's byte limit counts it: chars of strings, bytes otherwise.
    long estimatedBytes;

    BytesColumn(int capacity, boolean binary) {
      super(binary ? OTHER : STRING, STRING, 4);
      this.values = new Object[capacity];
      this.offsets = new int[capacity + 1];
      this.inlineStarts = new int[capacity];
      this.inlineEnds = new int[capacity];
      this.binary = binary;
    }

    /** Copies a row accessor's value of {@code column} in as the bytes of {@code row}. */
    void writeInline(int row, RowAccessor accessor, int column) {
      inlineStarts[row] = inlineSize;
      values[row] = INLINE;
      accessor.writeBytes(column, this);
      inlineEnds[row] = inlineSize;
      estimatedBytes += inlineSize - inlineStarts[row];
    }

    /**
     * Copies a string's UTF-8 bytes in as the bytes of {@code row}: encoded on the appending
     * thread, where the string is still in cache, so that the sender copies the column in bulk.
     */
    void writeInline(int row, String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      inlineStarts[row] = inlineSize;
      values[row] = INLINE;
      write(bytes, 0, bytes.length);
      inlineEnds[row] = inlineSize;
      estimatedBytes += text.length();
    }

    @Override
    public void write(byte[] source, int offset, int length) {
      if (inlineSize + length > inline.length) {
        inline = Arrays.copyOf(inline, Math.max(inlineSize + length, inline.length * 2 + 1024));
      }
      System.arraycopy(source, offset, inline, inlineSize, length);
      inlineSize += length;
    }

    @Override
    boolean store(int row, Object value) {
      if (binary ? value instanceof byte[] : value instanceof CharSequence) {
        values[row] = value;
        references = true;
        estimatedBytes +=
            value instanceof byte[] raw ? raw.length : ((CharSequence) value).length();
        return true;
      }
      return false;
    }

    @Override
    void clearValue(int row) {
      if (values[row] == INLINE) {
        // Only the newest row is ever cleared (a null, or a row left out): its bytes are the last.
        inlineSize = inlineStarts[row];
      }
      values[row] = null;
      inlineStarts[row] = inlineSize;
      inlineEnds[row] = inlineSize;
    }

    @Override
    void reset(int rows) {
      super.reset(rows);
      Arrays.fill(values, 0, rows, null);
      inlineSize = 0;
      references = false;
      estimatedBytes = 0;
    }

    @Override
    void writeTo(FieldVector vector, int rows) {
      if (!references) {
        // Every row's bytes are inline (a null row's are empty) and in row order: copy them whole.
        System.arraycopy(inlineStarts, 0, offsets, 0, rows);
        offsets[rows] = inlineSize;
        writeVector(vector, rows, inline, inlineSize);
        return;
      }
      int size = 0;
      for (int row = 0; row < rows; row++) {
        offsets[row] = size;
        Object value = values[row];
        if (value == INLINE) {
          int length = inlineEnds[row] - inlineStarts[row];
          if (size + length > data.length) {
            data = Arrays.copyOf(data, Math.max(size + length, data.length * 2));
          }
          System.arraycopy(inline, inlineStarts[row], data, size, length);
          size += length;
        } else if (value != null) {
          byte[] bytes =
              value instanceof byte[] raw ? raw : value.toString().getBytes(StandardCharsets.UTF_8);
          if (size + bytes.length > data.length) {
            data = Arrays.copyOf(data, Math.max(size + bytes.length, data.length * 2));
          }
          System.arraycopy(bytes, 0, data, size, bytes.length);
          size += bytes.length;
        }
      }
      offsets[rows] = size;
      writeVector(vector, rows, data, size);
    }

    /** Fills the vector from {@code offsets} and the first {@code size} bytes of {@code bytes}. */
    private void writeVector(FieldVector vector, int rows, byte[] bytes, int size) {
      BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
      variable.allocateNew(Math.max(size, 1), rows);
      writeValidity(vector, rows);
      variable
          .getOffsetBuffer()
          .nioBuffer(0, (rows + 1) * 4)
          .order(ByteOrder.LITTLE_ENDIAN)
          .asIntBuffer()
          .put(offsets, 0, rows + 1);
      variable.getDataBuffer().setBytes(0, bytes, 0, size);
      variable.setLastSet(rows - 1);
    }
  }

  /** Any other type: values kept as objects and set through the vector's own setters. */
  private static final class ObjectColumn extends Column {
    private final Object[] values;
    private final Predicate<Object> accepts;

    ObjectColumn(int capacity, Predicate<Object> accepts) {
      super(OTHER, 8);
      this.values = new Object[capacity];
      this.accepts = accepts;
    }

    @Override
    boolean store(int row, Object value) {
      if (!accepts.test(value)) {
        return false;
      }
      values[row] = value;
      return true;
    }

    @Override
    void clearValue(int row) {
      values[row] = null;
    }

    @Override
    void reset(int rows) {
      super.reset(rows);
      Arrays.fill(values, 0, rows, null);
    }

    @Override
    void writeTo(FieldVector vector, int rows) {
      vector.setInitialCapacity(rows);
      vector.allocateNew();
      for (int row = 0; row < rows; row++) {
        Object value = values[row];
        if (value != null) {
          set(vector, row, value);
        }
      }
    }

    private static void set(FieldVector vector, int row, Object value) {
      if (vector instanceof Float4Vector v) {
        v.setSafe(row, ((Number) value).floatValue());
      } else if (vector instanceof BitVector v) {
        v.setSafe(row, ((Boolean) value) ? 1 : 0);
      } else if (vector instanceof DecimalVector v) {
        v.setSafe(row, (BigDecimal) value);
      } else if (vector instanceof BigIntVector v) {
        v.setSafe(row, ((Number) value).longValue());
      } else if (vector instanceof IntVector v) {
        v.setSafe(row, ((Number) value).intValue());
      } else if (vector instanceof Float8Vector v) {
        v.setSafe(row, ((Number) value).doubleValue());
      } else if (vector instanceof DateDayVector v) {
        v.setSafe(row, (int) ((LocalDate) value).toEpochDay());
      } else if (vector instanceof TimeStampMicroTZVector v) {
        v.setSafe(row, ((Number) value).longValue());
      } else if (vector instanceof TimeStampMicroVector v) {
        v.setSafe(row, ((Number) value).longValue());
      } else if (vector instanceof VarCharVector v) {
        v.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
      } else if (vector instanceof VarBinaryVector v) {
        v.setSafe(row, (byte[]) value);
      } else if (vector instanceof TinyIntVector v) {
        v.setSafe(row, (Byte) value);
      } else {
        throw new IllegalArgumentException(
            "Unsupported column type " + vector.getField().getType() + " of " + vector.getName());
      }
    }
  }
}
