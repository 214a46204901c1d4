package io.lakestream.flink.source;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
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
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Copies rows of a log batch (the client's Arrow vectors) into Flink's binary row format, in the
 * order of the source's produced columns, byte for byte as Flink's own {@code BinaryRowWriter} lays
 * them out (so rows compare and hash equal to Flink's). A column the batch lacks (it was written
 * before the column was added) reads as null.
 *
 * <p>A batch's rows are written column by column, each column in one loop over its vector (no
 * per-value dispatch), into byte arrays of about {@value #CHUNK_BYTES} bytes that several rows
 * point into: one allocation per chunk of rows plus one small row object per row. Values are copied
 * out, so the Arrow batch may be closed right after; the rows stay valid as long as they are
 * referenced. Not thread safe; a reader is used by one fetcher thread.
 */
final class ArrowRows {
  // Strings and byte arrays up to this length are kept in the field itself, as Flink does.
  private static final int MAX_INLINE_BYTES = 7;
  // Rows are written into arrays of about this size: larger ones would be humongous objects for
  // G1, allocated and collected apart, and one row kept downstream would keep a whole batch alive.
  private static final int CHUNK_BYTES = 128 << 10;

  private final List<String> columns;
  private final LogicalType[] types;
  private final int arity;
  private final int nullBitsBytes;
  private final int fixedBytes;
  // Scratch space for a column's variable-width values, reused across batches.
  private byte[] scratch = new byte[0];

  ArrowRows(List<String> columns, List<LogicalType> types) {
    this.columns = List.copyOf(columns);
    this.types = types.toArray(LogicalType[]::new);
    this.arity = this.types.length;
    this.nullBitsBytes = BinaryRowData.calculateBitSetWidthInBytes(arity);
    this.fixedBytes = BinaryRowData.calculateFixPartSizeInBytes(arity);
  }

  /** New rows with the values of rows {@code [first, end)} of the batch, of insert kind. */
  BinaryRowData[] read(VectorSchemaRoot root, int first, int end) {
    int count = end - first;
    Column[] writers = new Column[arity];
    for (int i = 0; i < arity; i++) {
      FieldVector vector = root.getVector(columns.get(i));
      writers[i] = vector == null ? new NullColumn(types[i]) : column(vector, types[i]);
    }
    int[] sizes = new int[count];
    for (Column column : writers) {
      column.addVariableBytes(sizes, first, count);
    }
    Rows rows = new Rows(count);
    int chunkStart = 0;
    int offset = 0;
    for (int r = 0; r < count; r++) {
      sizes[r] += fixedBytes;
      if (offset > 0 && offset + sizes[r] > CHUNK_BYTES) {
        rows.allocate(chunkStart, r, offset);
        chunkStart = r;
        offset = 0;
      }
      rows.rowOffsets[r] = offset;
      offset += sizes[r];
    }
    rows.allocate(chunkStart, count, offset);
    for (int i = 0; i < arity; i++) {
      writers[i].write(rows, i, first);
    }
    BinaryRowData[] out = new BinaryRowData[count];
    for (int r = 0; r < count; r++) {
      BinaryRowData row = new BinaryRowData(arity);
      row.pointTo(rows.segments[r], rows.rowOffsets[r], sizes[r]);
      out[r] = row;
    }
    return out;
  }

  /**
   * The batch's rows being written: per row its segment (a chunk of the batch's rows), its start in
   * it and its next free variable byte.
   */
  private final class Rows {
    final MemorySegment[] segments;
    final int[] rowOffsets;
    // Per row, the next free byte of its variable part, relative to the row's start.
    final int[] cursors;

    Rows(int count) {
      this.segments = new MemorySegment[count];
      this.rowOffsets = new int[count];
      this.cursors = new int[count];
      Arrays.fill(cursors, fixedBytes);
    }

    /** One zeroed segment of {@code bytes} for rows {@code [from, to)}. */
    void allocate(int from, int to, int bytes) {
      MemorySegment segment = MemorySegmentFactory.wrap(new byte[bytes]);
      Arrays.fill(segments, from, to, segment);
    }

    int field(int row, int position) {
      return rowOffsets[row] + nullBitsBytes + 8 * position;
    }

    void setNull(int row, int position) {
      // The first byte holds the row kind: field bits start at bit 8.
      int bit = position + 8;
      int index = rowOffsets[row] + (bit >>> 3);
      segments[row].put(index, (byte) (segments[row].get(index) | (1 << (bit & 7))));
    }

    /**
     * Reserves {@code bytes} (a multiple of 8) of the row's variable part; returns its offset
     * relative to the row's start.
     */
    int reserve(int row, int bytes) {
      int at = cursors[row];
      cursors[row] = at + bytes;
      return at;
    }

    void putOffsetAndSize(int row, int position, int offset, int size) {
      segments[row].putLong(field(row, position), ((long) offset << 32) | size);
    }

    /** Writes {@code length} bytes from {@code data} at {@code start} as a string or binary. */
    void putBytes(int row, int position, byte[] data, int start, int length) {
      if (length <= MAX_INLINE_BYTES) {
        long value = 0;
        for (int i = 0; i < length; i++) {
          value |= (data[start + i] & 0xFFL) << (i * 8);
        }
        segments[row].putLong(field(row, position), ((length | 0x80L) << 56) | value);
      } else {
        int at = reserve(row, roundToWord(length));
        System.arraycopy(data, start, segments[row].getArray(), rowOffsets[row] + at, length);
        putOffsetAndSize(row, position, at, length);
      }
    }

    /** A scratch array of at least {@code bytes}, shared by the batches of this reader. */
    byte[] scratch(int bytes) {
      if (scratch.length < bytes) {
        scratch = new byte[Math.max(bytes, scratch.length * 2)];
      }
      return scratch;
    }

    /** Writes {@code length} bytes from {@code data} at {@code start} as a string or binary. */
    void putBytes(int row, int position, ArrowBuf data, long start, int length) {
      if (length <= MAX_INLINE_BYTES) {
        long value = 0;
        for (int i = 0; i < length; i++) {
          value |= (data.getByte(start + i) & 0xFFL) << (i * 8);
        }
        segments[row].putLong(field(row, position), ((length | 0x80L) << 56) | value);
      } else {
        int at = reserve(row, roundToWord(length));
        byte[] target = segments[row].getArray();
        data.getBytes(start, target, rowOffsets[row] + at, length);
        putOffsetAndSize(row, position, at, length);
      }
    }
  }

  private static int roundToWord(int bytes) {
    return (bytes + 7) & ~7;
  }

  /** One column of a batch, written over all its rows at once. */
  private abstract static class Column {
    /**
     * Adds each row's bytes in the variable part to {@code sizes[row - first]}, for the rows {@code
     * [first, first + count)}.
     */
    void addVariableBytes(int[] sizes, int first, int count) {}

    /** Writes the column's values of rows {@code [first, ...)} into field {@code position}. */
    abstract void write(Rows rows, int position, int first);
  }

  /**
   * Bytes a value of the type keeps in the variable part even when null: decimals and timestamps
   * too wide for the fixed part, as Flink's writer reserves them.
   */
  private static int reservedBytes(LogicalType type) {
    if (type instanceof DecimalType decimal && !DecimalData.isCompact(decimal.getPrecision())) {
      return 16;
    }
    int timestampPrecision = timestampPrecision(type);
    if (timestampPrecision >= 0 && !TimestampData.isCompact(timestampPrecision)) {
      return 8;
    }
    return 0;
  }

  private static int timestampPrecision(LogicalType type) {
    if (type instanceof TimestampType timestamp) {
      return timestamp.getPrecision();
    }
    if (type instanceof LocalZonedTimestampType timestamp) {
      return timestamp.getPrecision();
    }
    return -1;
  }

  /** A column the batch lacks: nulls. */
  private static final class NullColumn extends Column {
    private final int reserved;

    NullColumn(LogicalType type) {
      this.reserved = reservedBytes(type);
    }

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      if (reserved > 0) {
        for (int r = 0; r < count; r++) {
          sizes[r] += reserved;
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first) {
      for (int r = 0; r < rows.cursors.length; r++) {
        writeNull(rows, r, position, reserved);
      }
    }
  }

  private static void writeNull(Rows rows, int row, int position, int reserved) {
    rows.setNull(row, position);
    if (reserved > 0) {
      rows.putOffsetAndSize(row, position, rows.reserve(row, reserved), 0);
    }
  }

  /** A column whose values each take the fixed part only, null or not. */
  private abstract static class FixedColumn<V extends FieldVector> extends Column {
    final V vector;

    FixedColumn(V vector) {
      this.vector = vector;
    }

    @Override
    final void write(Rows rows, int position, int first) {
      int count = rows.cursors.length;
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < count; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          writeValue(rows.segments[r], rows.field(r, position), first + r);
        }
      }
    }

    abstract void writeValue(MemorySegment segment, int field, int index);
  }

  private static Column column(FieldVector vector, LogicalType type) {
    if (vector instanceof BigIntVector || vector instanceof Float8Vector) {
      return new WordColumn(vector);
    }
    if (vector instanceof IntVector) {
      return new IntColumn(vector);
    }
    if (vector instanceof Float4Vector v) {
      return new FixedColumn<>(v) {
        @Override
        void writeValue(MemorySegment segment, int field, int index) {
          segment.putFloat(field, vector.get(index));
        }
      };
    }
    if (vector instanceof BitVector v) {
      return new FixedColumn<>(v) {
        @Override
        void writeValue(MemorySegment segment, int field, int index) {
          segment.putBoolean(field, vector.get(index) != 0);
        }
      };
    }
    if (vector instanceof DateDayVector v) {
      return new FixedColumn<>(v) {
        @Override
        void writeValue(MemorySegment segment, int field, int index) {
          segment.putInt(field, vector.get(index));
        }
      };
    }
    if (vector instanceof TimeMicroVector v) {
      return new FixedColumn<>(v) {
        @Override
        void writeValue(MemorySegment segment, int field, int index) {
          // Flink's TIME values are milliseconds of the day.
          segment.putInt(field, (int) (vector.get(index) / 1000));
        }
      };
    }
    if (vector instanceof VarCharVector || vector instanceof VarBinaryVector) {
      return new VariableWidthColumn((BaseVariableWidthVector) vector);
    }
    if (vector instanceof FixedSizeBinaryVector v) {
      return new FixedWidthBinaryColumn(v);
    }
    int precision = timestampPrecision(type);
    if (precision >= 0
        && (vector instanceof TimeStampMicroVector
            || vector instanceof TimeStampMicroTZVector
            || vector instanceof TimeStampNanoVector
            || vector instanceof TimeStampNanoTZVector)) {
      boolean nanos =
          vector instanceof TimeStampNanoVector || vector instanceof TimeStampNanoTZVector;
      return new TimestampColumn((TimeStampVector) vector, nanos, precision);
    }
    if (vector instanceof DecimalVector v && type instanceof DecimalType decimal) {
      return new DecimalColumn(v, decimal);
    }
    throw new IllegalArgumentException(
        "Column "
            + vector.getName()
            + " of Arrow type "
            + vector.getField().getType()
            + " cannot be read as Flink type "
            + type);
  }

  /**
   * 64-bit values (BIGINT, and DOUBLE as its bits): the batch's values are copied out of the Arrow
   * buffer at once (one bounds check, not one per value), then written to the rows' fields.
   */
  private static final class WordColumn extends Column {
    private final FieldVector vector;

    WordColumn(FieldVector vector) {
      this.vector = vector;
    }

    @Override
    void write(Rows rows, int position, int first) {
      int count = rows.cursors.length;
      if (count == 0) {
        return;
      }
      long[] values = new long[count];
      vector
          .getDataBuffer()
          .nioBuffer((long) first * Long.BYTES, count * Long.BYTES)
          .order(ByteOrder.nativeOrder())
          .asLongBuffer()
          .get(values);
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < count; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          rows.segments[r].putLong(rows.field(r, position), values[r]);
        }
      }
    }
  }

  /** 32-bit integers, copied out of the Arrow buffer at once as {@link WordColumn}'s. */
  private static final class IntColumn extends Column {
    private final FieldVector vector;

    IntColumn(FieldVector vector) {
      this.vector = vector;
    }

    @Override
    void write(Rows rows, int position, int first) {
      int count = rows.cursors.length;
      if (count == 0) {
        return;
      }
      int[] values = new int[count];
      vector
          .getDataBuffer()
          .nioBuffer((long) first * Integer.BYTES, count * Integer.BYTES)
          .order(ByteOrder.nativeOrder())
          .asIntBuffer()
          .get(values);
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < count; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          rows.segments[r].putInt(rows.field(r, position), values[r]);
        }
      }
    }
  }

  /** Strings and byte arrays: up to 7 bytes in the field, longer ones in the variable part. */
  private static final class VariableWidthColumn extends Column {
    private final BaseVariableWidthVector vector;

    VariableWidthColumn(BaseVariableWidthVector vector) {
      this.vector = vector;
    }

    // The rows' value offsets, read once by addVariableBytes (which always runs before write):
    // starts[r] to starts[r + 1], relative to the first row's start.
    private int[] starts;

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      ArrowBuf offsets = vector.getOffsetBuffer();
      boolean nulls = vector.getNullCount() > 0;
      starts = new int[count + 1];
      if (count == 0) {
        return;
      }
      int base = offsets.getInt((long) first * Integer.BYTES);
      int start = base;
      for (int r = 0; r < count; r++) {
        int end = offsets.getInt((long) (first + r + 1) * Integer.BYTES);
        starts[r + 1] = end - base;
        int length = end - start;
        if (length > MAX_INLINE_BYTES && !(nulls && vector.isNull(first + r))) {
          sizes[r] += roundToWord(length);
        }
        start = end;
      }
    }

    @Override
    void write(Rows rows, int position, int first) {
      int count = rows.cursors.length;
      if (count == 0) {
        return;
      }
      // The rows' bytes copied out of the Arrow buffer at once: one bounds check and one native
      // copy per column rather than per value, then plain array copies.
      long base = vector.getOffsetBuffer().getInt((long) first * Integer.BYTES);
      byte[] bytes = rows.scratch(starts[count]);
      vector.getDataBuffer().getBytes(base, bytes, 0, starts[count]);
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < count; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
          continue;
        }
        rows.putBytes(r, position, bytes, starts[r], starts[r + 1] - starts[r]);
      }
    }
  }

  private static final class FixedWidthBinaryColumn extends Column {
    private final FixedSizeBinaryVector vector;
    private final int width;

    FixedWidthBinaryColumn(FixedSizeBinaryVector vector) {
      this.vector = vector;
      this.width = vector.getByteWidth();
    }

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      if (width > MAX_INLINE_BYTES) {
        boolean nulls = vector.getNullCount() > 0;
        for (int r = 0; r < count; r++) {
          if (!(nulls && vector.isNull(first + r))) {
            sizes[r] += roundToWord(width);
          }
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first) {
      ArrowBuf data = vector.getDataBuffer();
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < rows.cursors.length; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          rows.putBytes(r, position, data, (long) (first + r) * width, width);
        }
      }
    }
  }

  /**
   * Timestamps: milliseconds in the field when the precision is at most 3, else milliseconds in the
   * variable part and the nanoseconds of the millisecond beside its offset, as Flink lays them.
   */
  private static final class TimestampColumn extends Column {
    private final TimeStampVector vector;
    private final long unitsPerMilli;
    private final boolean compact;

    TimestampColumn(TimeStampVector vector, boolean nanos, int precision) {
      this.vector = vector;
      this.unitsPerMilli = nanos ? 1_000_000 : 1_000;
      this.compact = TimestampData.isCompact(precision);
    }

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      if (!compact) {
        for (int r = 0; r < count; r++) {
          sizes[r] += 8;
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first) {
      boolean nulls = vector.getNullCount() > 0;
      int nanosPerUnit = (int) (1_000_000 / unitsPerMilli);
      for (int r = 0; r < rows.cursors.length; r++) {
        if (nulls && vector.isNull(first + r)) {
          writeNull(rows, r, position, compact ? 0 : 8);
          continue;
        }
        long value = vector.get(first + r);
        long millis = Math.floorDiv(value, unitsPerMilli);
        if (compact) {
          rows.segments[r].putLong(rows.field(r, position), millis);
        } else {
          int nanoOfMilli = (int) Math.floorMod(value, unitsPerMilli) * nanosPerUnit;
          int at = rows.reserve(r, 8);
          rows.segments[r].putLong(rows.rowOffsets[r] + at, millis);
          rows.putOffsetAndSize(r, position, at, nanoOfMilli);
        }
      }
    }
  }

  /**
   * Decimals: the unscaled value in the field when the precision is at most 18, else its bytes in
   * 16 bytes of the variable part. A value that does not fit the precision reads as null.
   */
  private static final class DecimalColumn extends Column {
    private final DecimalVector vector;
    private final int precision;
    private final int scale;
    private final boolean compact;

    DecimalColumn(DecimalVector vector, DecimalType type) {
      this.vector = vector;
      this.precision = type.getPrecision();
      this.scale = type.getScale();
      this.compact = DecimalData.isCompact(precision);
    }

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      if (!compact) {
        for (int r = 0; r < count; r++) {
          sizes[r] += 16;
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first) {
      for (int r = 0; r < rows.cursors.length; r++) {
        DecimalData value =
            vector.isNull(first + r)
                ? null
                : DecimalData.fromBigDecimal(vector.getObject(first + r), precision, scale);
        if (value == null) {
          writeNull(rows, r, position, compact ? 0 : 16);
        } else if (compact) {
          rows.segments[r].putLong(rows.field(r, position), value.toUnscaledLong());
        } else {
          byte[] bytes = value.toUnscaledBytes();
          int at = rows.reserve(r, 16);
          rows.segments[r].put(rows.rowOffsets[r] + at, bytes, 0, bytes.length);
          rows.putOffsetAndSize(r, position, at, bytes.length);
        }
      }
    }
  }
}
