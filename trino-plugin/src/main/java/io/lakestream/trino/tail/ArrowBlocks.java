package io.lakestream.trino.tail;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.trino.TrinoValues;
import io.trino.spi.block.Bitmap;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;

/**
 * Turns rows {@code [first, end)} of an Arrow vector of a log batch into a Trino block, column by
 * column: the fixed-width types Trino stores as longs, ints or bytes (bigint, integer, date,
 * double, real, boolean, timestamp(6)) and varchar/varbinary are copied buffer to array without a
 * value object per row; the rest (decimal, time, timestamp with time zone, uuid) go value by value
 * through {@link TrinoValues}. Stateless.
 */
public final class ArrowBlocks {
  private ArrowBlocks() {}

  /** A block of {@code end - first} nulls, for a column the batch does not have. */
  public static Block nulls(Type type, int count) {
    BlockBuilder builder = type.createBlockBuilder(null, 1);
    builder.appendNull();
    return RunLengthEncodedBlock.create(builder.build(), count);
  }

  /** The block of a vector's rows {@code [first, end)} as {@code type}. */
  public static Block block(Type type, FieldVector vector, int first, int end) {
    int count = end - first;
    if (type instanceof BigintType && vector instanceof BigIntVector
        || type instanceof DoubleType && vector instanceof Float8Vector
        || type instanceof TimestampType timestamp
            && timestamp.isShort()
            && vector instanceof TimeStampMicroVector) {
      long[] values = new long[count];
      ArrowBuf data = vector.getDataBuffer();
      for (int i = 0; i < count; i++) {
        values[i] = data.getLong((long) (first + i) * Long.BYTES);
      }
      return new LongArrayBlock(count, validity(vector, first, count), values);
    }
    if (type instanceof IntegerType && vector instanceof IntVector
        || type instanceof DateType && vector instanceof DateDayVector
        || type instanceof RealType && vector instanceof Float4Vector) {
      int[] values = new int[count];
      ArrowBuf data = vector.getDataBuffer();
      for (int i = 0; i < count; i++) {
        values[i] = data.getInt((long) (first + i) * Integer.BYTES);
      }
      return new IntArrayBlock(count, validity(vector, first, count), values);
    }
    if (type instanceof BooleanType && vector instanceof BitVector) {
      byte[] values = new byte[count];
      ArrowBuf data = vector.getDataBuffer();
      for (int i = 0; i < count; i++) {
        values[i] = (byte) BitVectorHelper.get(data, first + i);
      }
      return new ByteArrayBlock(count, validity(vector, first, count), values);
    }
    if ((type instanceof VarcharType || type instanceof VarbinaryType)
        && vector instanceof BaseVariableWidthVector variable) {
      return variableWidth(variable, first, count);
    }
    BlockBuilder builder = type.createBlockBuilder(null, count);
    for (int row = first; row < end; row++) {
      TrinoValues.write(type, builder, ArrowValues.get(vector, row));
    }
    return builder.build();
  }

  private static Block variableWidth(BaseVariableWidthVector vector, int first, int count) {
    ArrowBuf offsets = vector.getOffsetBuffer();
    int start = offsets.getInt((long) first * Integer.BYTES);
    int stop = offsets.getInt((long) (first + count) * Integer.BYTES);
    byte[] bytes = new byte[stop - start];
    vector.getDataBuffer().getBytes(start, bytes);
    int[] positions = new int[count + 1];
    for (int i = 0; i <= count; i++) {
      positions[i] = offsets.getInt((long) (first + i) * Integer.BYTES) - start;
    }
    Slice slice = Slices.wrappedBuffer(bytes);
    return new VariableWidthBlock(count, slice, positions, validity(vector, first, count));
  }

  private static Optional<long[]> validity(FieldVector vector, int first, int count) {
    if (vector.getNullCount() == 0) {
      return Optional.empty();
    }
    long[] words = Bitmap.allocateWords(count, true);
    boolean anyNull = false;
    for (int i = 0; i < count; i++) {
      if (vector.isNull(first + i)) {
        Bitmap.clear(words, 0, i);
        anyNull = true;
      }
    }
    return anyNull ? Optional.of(words) : Optional.empty();
  }
}
