package io.lakestream.client.arrow;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
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
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Deterministic batches for the tests: the W1 workload shape and one with every kind of column. */
final class TestBatches {
  private TestBatches() {}

  /** W1: b0..b4 BIGINT, i0..i4 INT, d0..d4 DOUBLE, s0..s4 VARCHAR of 16-24 ASCII characters. */
  static Schema w1Schema() {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      fields.add(Field.nullable("b" + i, new ArrowType.Int(64, true)));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(Field.nullable("i" + i, new ArrowType.Int(32, true)));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(
          Field.nullable("d" + i, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(Field.nullable("s" + i, ArrowType.Utf8.INSTANCE));
    }
    return new Schema(fields);
  }

  static VectorSchemaRoot w1(BufferAllocator allocator, int rows, long seed) {
    return w1(allocator, rows, seed, 0);
  }

  /** A W1 batch whose b0..b4 follow on from row {@code firstRow} of the stream. */
  static VectorSchemaRoot w1(BufferAllocator allocator, int rows, long seed, long firstRow) {
    Random random = new Random(seed);
    VectorSchemaRoot root = VectorSchemaRoot.create(w1Schema(), allocator);
    root.allocateNew();
    for (int column = 0; column < 5; column++) {
      BigIntVector longs = (BigIntVector) root.getVector("b" + column);
      IntVector ints = (IntVector) root.getVector("i" + column);
      Float8Vector doubles = (Float8Vector) root.getVector("d" + column);
      VarCharVector strings = (VarCharVector) root.getVector("s" + column);
      for (int row = 0; row < rows; row++) {
        longs.setSafe(row, 1_700_000_000_000L + (firstRow + row) * 1000L + random.nextInt(1000));
        ints.setSafe(row, random.nextInt(100_000));
        doubles.setSafe(row, random.nextDouble() * 1000);
        strings.setSafe(row, asciiString(random, 16 + random.nextInt(9)));
      }
    }
    root.setRowCount(rows);
    return root;
  }

  private static byte[] asciiString(Random random, int length) {
    byte[] value = new byte[length];
    for (int i = 0; i < length; i++) {
      value[i] = (byte) ('a' + random.nextInt(26));
    }
    return value;
  }

  /**
   * Every column kind the codec and the statistics care about, with nulls, and nested columns
   * (list, struct) between flat ones so that projection has to skip children.
   */
  static Schema mixedSchema() {
    return new Schema(
        List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            Field.nullable("count", new ArrowType.Int(32, true)),
            new Field(
                "tags",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(Field.nullable("$data$", new ArrowType.Int(32, true)))),
            Field.nullable("ratio", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            new Field(
                "point",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(
                    Field.nullable("x", new ArrowType.Int(32, true)),
                    Field.nullable("label", ArrowType.Utf8.INSTANCE))),
            Field.nullable("flag", ArrowType.Bool.INSTANCE),
            Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
            Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
            Field.nullable("amount", new ArrowType.Decimal(12, 2, 128)),
            Field.nullable("payload", ArrowType.Binary.INSTANCE),
            Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            Field.nullable("uuid", new ArrowType.FixedSizeBinary(16)),
            Field.nullable("nothing", new ArrowType.Int(32, true))));
  }

  /** Row {@code i} is null in every column where {@code i % 7 == 3}; "nothing" is all null. */
  static VectorSchemaRoot mixed(BufferAllocator allocator, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(mixedSchema(), allocator);
    root.allocateNew();
    for (int i = 0; i < rows; i++) {
      boolean isNull = i % 7 == 3;
      ((IntVector) root.getVector("nothing")).setNull(i);
      if (isNull) {
        for (FieldVector vector : root.getFieldVectors()) {
          if (!(vector instanceof ListVector) && !(vector instanceof StructVector)) {
            setNull(vector, i);
          }
        }
        ((StructVector) root.getVector("point")).setNull(i);
        continue;
      }
      ((BigIntVector) root.getVector("id")).setSafe(i, 1000L + i);
      ((IntVector) root.getVector("count")).setSafe(i, i * 3 - 50);
      ((Float8Vector) root.getVector("ratio")).setSafe(i, i / 8.0 - 1);
      ((VarCharVector) root.getVector("name"))
          .setSafe(i, ("name-" + (char) ('a' + i % 26) + i).getBytes(StandardCharsets.UTF_8));
      StructVector point = (StructVector) root.getVector("point");
      point.setIndexDefined(i);
      point.getChild("x", IntVector.class).setSafe(i, -i);
      point.getChild("label", VarCharVector.class).setSafe(i, ("p" + i).getBytes());
      ((BitVector) root.getVector("flag")).setSafe(i, i % 2);
      ((DateDayVector) root.getVector("day")).setSafe(i, 19_000 + i);
      ((TimeStampMicroTZVector) root.getVector("ts")).setSafe(i, 1_700_000_000_000_000L + i);
      ((DecimalVector) root.getVector("amount"))
          .setSafe(i, new BigDecimal(i * 101L - 500).movePointLeft(2));
      ((VarBinaryVector) root.getVector("payload")).setSafe(i, new byte[] {(byte) i, (byte) 0xF0});
      ((Float4Vector) root.getVector("score")).setSafe(i, i * 0.5f);
      byte[] uuid = new byte[16];
      uuid[15] = (byte) i;
      ((FixedSizeBinaryVector) root.getVector("uuid")).setSafe(i, uuid);
    }
    ListVector tags = (ListVector) root.getVector("tags");
    UnionListWriter writer = tags.getWriter();
    for (int i = 0; i < rows; i++) {
      writer.setPosition(i);
      if (i % 7 == 3) {
        writer.writeNull();
        continue;
      }
      writer.startList();
      for (int j = 0; j < i % 4; j++) {
        writer.writeInt(i * 10 + j);
      }
      writer.endList();
    }
    writer.setValueCount(rows);
    root.setRowCount(rows);
    return root;
  }

  private static void setNull(FieldVector vector, int index) {
    if (vector instanceof BaseFixedWidthVector) {
      ((BaseFixedWidthVector) vector).setNull(index);
    } else if (vector instanceof BaseVariableWidthVector) {
      ((BaseVariableWidthVector) vector).setNull(index);
    }
  }

  /** A view of some columns of {@code root}, sharing its vectors; do not close it. */
  static VectorSchemaRoot select(VectorSchemaRoot root, int[] columns) {
    List<Field> fields = new ArrayList<>();
    List<FieldVector> vectors = new ArrayList<>();
    for (int column : columns) {
      fields.add(root.getSchema().getFields().get(column));
      vectors.add(root.getVector(column));
    }
    return new VectorSchemaRoot(
        new Schema(fields, root.getSchema().getCustomMetadata()), vectors, root.getRowCount());
  }
}
