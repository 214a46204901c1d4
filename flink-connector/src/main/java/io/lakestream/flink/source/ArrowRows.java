package io.lakestream.flink.source;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
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
 * per-value dispatch), a block of {@value #BLOCK_ROWS} rows at a time, into byte arrays of about
 * {@value #CHUNK_BYTES} bytes that several rows point into: one allocation per chunk of rows plus
 * one small row object per row. Values are copied out, so the Arrow batch may be closed right
 * after; the rows stay valid as long as they are referenced. Not thread safe; a reader is used by
 * one fetcher thread.
 */
final class ArrowRows {
  // Strings and byte arrays up to this length are kept in the field itself, as Flink does.
  private static final int MAX_INLINE_BYTES = 7;
  // Rows are written into arrays of about this size: larger ones would be humongous objects for
  // G1, allocated and collected apart, and one row kept downstream would keep a whole batch alive.
  private static final int CHUNK_BYTES = 128 << 10;
  // Rows are written a block at a time, each block column by column: a block's rows stay in the
  // core's cache across its columns, where a whole batch's (8192 rows of 20 columns take about
  // 2.4 MB) would be written back to memory and read again for every column.
  private static final int BLOCK_ROWS = 256;
  // Bytes of scratch space past the last value: a value's last word is read whole.
  private static final int SCRATCH_PADDING = 8;
  // Eight bytes of a byte array as one word, in the order they are in memory.
  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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
    for (int from = 0; from < count; from += BLOCK_ROWS) {
      int to = Math.min(count, from + BLOCK_ROWS);
      for (int i = 0; i < arity; i++) {
        writers[i].write(rows, i, first, from, to);
      }
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

    /**
     * Writes {@code length} bytes from {@code data} at {@code start} as a string or binary, eight
     * bytes at a time: {@code data} has at least {@value #SCRATCH_PADDING} bytes past the value,
     * and the bytes of its last word that are past the value are written as zeros, as Flink pads.
     */
    void putBytes(int row, int position, byte[] data, int start, int length) {
      byte[] target = segments[row].getArray();
      if (length <= MAX_INLINE_BYTES) {
        long value = length == 0 ? 0 : (long) WORDS.get(data, start) & lowBytes(length);
        segments[row].putLong(field(row, position), ((length | 0x80L) << 56) | value);
      } else {
        int at = reserve(row, roundToWord(length));
        int to = rowOffsets[row] + at;
        int whole = length & ~7;
        for (int i = 0; i < whole; i += 8) {
          WORDS.set(target, to + i, (long) WORDS.get(data, start + i));
        }
        if (whole < length) {
          long last = (long) WORDS.get(data, start + whole) & lowBytes(length - whole);
          WORDS.set(target, to + whole, last);
        }
        putOffsetAndSize(row, position, at, length);
      }
    }

    /**
     * A scratch array of at least {@code bytes} and {@value #SCRATCH_PADDING} more, shared by the
     * batches of this reader.
     */
    byte[] scratch(int bytes) {
      if (scratch.length < bytes + SCRATCH_PADDING) {
        scratch = new byte[Math.max(bytes + SCRATCH_PADDING, scratch.length * 2)];
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

  /** A mask of the first {@code bytes} (1 to 8) bytes of a little-endian word. */
  private static long lowBytes(int bytes) {
    return -1L >>> (64 - 8 * bytes);
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

    /**
     * Writes the column's values of the batch's rows {@code [first + from, first + to)} into field
     * {@code position} of rows {@code [from, to)}.
     */
    abstract void write(Rows rows, int position, int first, int from, int to);
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
    void write(Rows rows, int position, int first, int from, int to) {
      for (int r = from; r < to; r++) {
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
    private final boolean nulls;

    FixedColumn(V vector) {
      this.vector = vector;
      this.nulls = vector.getNullCount() > 0;
    }

    @Override
    final void write(Rows rows, int position, int first, int from, int to) {
      for (int r = from; r < to; r++) {
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
   * 64-bit values (BIGINT, and DOUBLE as its bits): a block's values are copied out of the Arrow
   * buffer at once (one bounds check, not one per value), then written to the rows' fields.
   */
  private static final class WordColumn extends Column {
    private final FieldVector vector;
    private final boolean nulls;
    private final LongBuffer buffer;
    private final long[] values = new long[BLOCK_ROWS];

    WordColumn(FieldVector vector) {
      this.vector = vector;
      this.nulls = vector.getNullCount() > 0;
      this.buffer = dataBuffer(vector, Long.BYTES).asLongBuffer();
    }

    @Override
    void write(Rows rows, int position, int first, int from, int to) {
      buffer.get(first + from, values, 0, to - from);
      for (int r = from; r < to; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          rows.segments[r].putLong(rows.field(r, position), values[r - from]);
        }
      }
    }
  }

  /** 32-bit integers, copied out of the Arrow buffer a block at a time as {@link WordColumn}'s. */
  private static final class IntColumn extends Column {
    private final FieldVector vector;
    private final boolean nulls;
    private final IntBuffer buffer;
    private final int[] values = new int[BLOCK_ROWS];

    IntColumn(FieldVector vector) {
      this.vector = vector;
      this.nulls = vector.getNullCount() > 0;
      this.buffer = dataBuffer(vector, Integer.BYTES).asIntBuffer();
    }

    @Override
    void write(Rows rows, int position, int first, int from, int to) {
      buffer.get(first + from, values, 0, to - from);
      for (int r = from; r < to; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
        } else {
          rows.segments[r].putInt(rows.field(r, position), values[r - from]);
        }
      }
    }
  }

  /** The data buffer of a fixed-width vector's values, in the platform's byte order. */
  private static ByteBuffer dataBuffer(FieldVector vector, int width) {
    int bytes = vector.getValueCount() * width;
    ByteBuffer buffer =
        bytes == 0 ? ByteBuffer.allocate(0) : vector.getDataBuffer().nioBuffer(0, bytes);
    return buffer.order(ByteOrder.nativeOrder());
  }

  /** Strings and byte arrays: up to 7 bytes in the field, longer ones in the variable part. */
  private static final class VariableWidthColumn extends Column {
    private final BaseVariableWidthVector vector;
    private final boolean nulls;

    VariableWidthColumn(BaseVariableWidthVector vector) {
      this.vector = vector;
      this.nulls = vector.getNullCount() > 0;
    }

    // The rows' value offsets, read once by addVariableBytes (which always runs before write):
    // starts[r] to starts[r + 1], relative to the first row's start.
    private int[] starts;
    private long base;

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      starts = new int[count + 1];
      if (count == 0) {
        return;
      }
      // The offsets copied out at once, then made relative to the first row's start.
      vector
          .getOffsetBuffer()
          .nioBuffer((long) first * Integer.BYTES, (count + 1) * Integer.BYTES)
          .order(ByteOrder.nativeOrder())
          .asIntBuffer()
          .get(starts);
      int firstStart = starts[0];
      base = firstStart;
      starts[0] = 0;
      for (int r = 0; r < count; r++) {
        int end = starts[r + 1] - firstStart;
        starts[r + 1] = end;
        int length = end - starts[r];
        if (length > MAX_INLINE_BYTES && !(nulls && vector.isNull(first + r))) {
          sizes[r] += roundToWord(length);
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first, int from, int to) {
      // The block's bytes copied out of the Arrow buffer at once: one bounds check and one native
      // copy per block rather than per value, then plain array copies.
      int blockStart = starts[from];
      byte[] bytes = rows.scratch(starts[to] - blockStart);
      vector.getDataBuffer().getBytes(base + blockStart, bytes, 0, starts[to] - blockStart);
      for (int r = from; r < to; r++) {
        if (nulls && vector.isNull(first + r)) {
          rows.setNull(r, position);
          continue;
        }
        rows.putBytes(r, position, bytes, starts[r] - blockStart, starts[r + 1] - starts[r]);
      }
    }
  }

  private static final class FixedWidthBinaryColumn extends Column {
    private final FixedSizeBinaryVector vector;
    private final int width;
    private final boolean nulls;

    FixedWidthBinaryColumn(FixedSizeBinaryVector vector) {
      this.vector = vector;
      this.width = vector.getByteWidth();
      this.nulls = vector.getNullCount() > 0;
    }

    @Override
    void addVariableBytes(int[] sizes, int first, int count) {
      if (width > MAX_INLINE_BYTES) {
        for (int r = 0; r < count; r++) {
          if (!(nulls && vector.isNull(first + r))) {
            sizes[r] += roundToWord(width);
          }
        }
      }
    }

    @Override
    void write(Rows rows, int position, int first, int from, int to) {
      ArrowBuf data = vector.getDataBuffer();
      for (int r = from; r < to; r++) {
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
    private final boolean nulls;

    TimestampColumn(TimeStampVector vector, boolean nanos, int precision) {
      this.vector = vector;
      this.unitsPerMilli = nanos ? 1_000_000 : 1_000;
      this.compact = TimestampData.isCompact(precision);
      this.nulls = vector.getNullCount() > 0;
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
    void write(Rows rows, int position, int first, int from, int to) {
      int nanosPerUnit = (int) (1_000_000 / unitsPerMilli);
      for (int r = from; r < to; r++) {
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
    void write(Rows rows, int position, int first, int from, int to) {
      for (int r = from; r < to; r++) {
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
