package io.lakestream.store.kv;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.RowBatch;
import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.client.rpc.RowValues;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The direct paths of {@link RowCodec} (Arrow vectors to values, values to Arrow vectors and to the
 * client's row values) against the paths through Java values, on random rows of every column type
 * they take, with nulls, NaNs and non-ASCII strings.
 */
class RowCodecArrowTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "id", Types.LongType.get()),
              optional(2, "flag", Types.BooleanType.get()),
              optional(3, "n", Types.IntegerType.get()),
              optional(4, "day", Types.DateType.get()),
              optional(5, "ts", Types.TimestampType.withoutZone()),
              optional(6, "tstz", Types.TimestampType.withZone()),
              optional(7, "f", Types.FloatType.get()),
              optional(8, "d", Types.DoubleType.get()),
              optional(9, "s", Types.StringType.get()),
              optional(10, "b", Types.BinaryType.get())),
          Set.of(1));

  private static final KvSchema KV_SCHEMA = KvSchema.of(SCHEMA);
  private static final RowCodec CODEC = new RowCodec(KV_SCHEMA);
  private static final org.apache.arrow.vector.types.pojo.Schema ARROW =
      IcebergArrowSchemas.toArrowSchema(SCHEMA);

  private static List<Object[]> randomRows(int count, long seed) {
    return randomRows(count, seed, 0.25);
  }

  private static List<Object[]> randomRows(int count, long seed, double nullChance) {
    Random random = new Random(seed);
    List<Object[]> rows = new ArrayList<>();
    String[] strings = {"", "plain", "naïve ☃ 𝄞", "a\u0000b", "x".repeat(200)};
    for (int i = 0; i < count; i++) {
      Object[] row = new Object[10];
      row[0] = random.nextLong();
      row[1] = random.nextDouble() < nullChance ? null : random.nextBoolean();
      row[2] = random.nextDouble() < nullChance ? null : random.nextInt();
      row[3] = random.nextDouble() < nullChance ? null : random.nextInt(40_000);
      row[4] = random.nextDouble() < nullChance ? null : random.nextLong();
      row[5] = random.nextDouble() < nullChance ? null : random.nextLong();
      row[6] =
          random.nextDouble() < nullChance
              ? null
              : random.nextInt(5) == 0 ? Float.NaN : random.nextFloat();
      row[7] =
          random.nextDouble() < nullChance
              ? null
              : random.nextInt(5) == 0 ? Double.NaN : random.nextDouble() * 1e6;
      row[8] = random.nextDouble() < nullChance ? null : strings[random.nextInt(strings.length)];
      row[9] =
          random.nextDouble() < nullChance ? null : new byte[] {(byte) random.nextInt(), 0, -1};
      rows.add(row);
    }
    return rows;
  }

  private static void fill(VectorSchemaRoot root, List<Object[]> rows) {
    RowBatch batch = new RowBatch(ARROW, rows.size());
    rows.forEach(batch::add);
    batch.writeTo(root);
  }

  @Test
  void theSchemaIsOneTheDirectPathsTake() {
    assertThat(CODEC.writesArrow()).isTrue();
    Schema decimal =
        new Schema(
            List.of(
                required(1, "id", Types.LongType.get()),
                optional(2, "x", Types.DecimalType.of(9, 2))),
            Set.of(1));
    assertThat(new RowCodec(KvSchema.of(decimal)).writesArrow()).isFalse();
  }

  @Test
  void valuesFromVectorsEqualValuesFromJavaValues() {
    for (double nullChance : new double[] {0.25, 0}) {
      List<Object[]> rows = randomRows(500, 1, nullChance);
      try (BufferAllocator allocator = new RootAllocator();
          VectorSchemaRoot written = VectorSchemaRoot.create(ARROW, allocator)) {
        fill(written, rows);
        // Through the wire format, as the server gets them (no validity buffer when no nulls).
        ByteBuffer message = ArrowBatchCodec.encode(written, Compression.ZSTD);
        try (VectorSchemaRoot root = ArrowBatchCodec.decode(message, ARROW, allocator)) {
          byte[][] values = CODEC.encode(root.getFieldVectors(), rows.size());
          assertThat(values.length).isEqualTo(rows.size());
          for (int i = 0; i < rows.size(); i++) {
            byte[] expected = CODEC.encode(KV_SCHEMA.canonicalRow(rows.get(i)));
            assertThat(values[i]).as("row %d", i).isEqualTo(expected);
          }
        }
      }
    }
  }

  @Test
  void malformedUtf8FromVectorsIsReplacedAsAStringRoundTripDoes() {
    byte[] malformed = {'o', 'k', (byte) 0xC3, (byte) 0x28, (byte) 0xFF};
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ARROW, allocator)) {
      fill(
          root,
          List.<Object[]>of(
              new Object[] {7L, null, null, null, null, null, null, null, "x", null}));
      VarCharVector strings = (VarCharVector) root.getVector("s");
      strings.setSafe(0, malformed);
      strings.setValueCount(1);
      byte[] value = CODEC.encode(root.getFieldVectors(), 1)[0];
      String replaced = new String(malformed, StandardCharsets.UTF_8);
      assertThat(replaced).contains("\uFFFD");
      assertThat(CODEC.decode(value)[8]).isEqualTo(replaced);
      assertThat(value)
          .isEqualTo(
              CODEC.encode(
                  new Object[] {7L, null, null, null, null, null, null, null, replaced, null}));
    }
  }

  @Test
  void vectorsWrittenFromValuesEqualVectorsWrittenFromJavaValues() {
    List<Object[]> rows = randomRows(300, 2);
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot expected = VectorSchemaRoot.create(ARROW, allocator);
        VectorSchemaRoot actual = VectorSchemaRoot.create(ARROW, allocator)) {
      fill(expected, rows);
      List<byte[]> values = new ArrayList<>();
      for (Object[] row : rows) {
        values.add(CODEC.encode(row));
      }
      CODEC.writeTo(values, actual.getFieldVectors());
      actual.setRowCount(rows.size());
      for (int i = 0; i < rows.size(); i++) {
        for (int column = 0; column < 10; column++) {
          Object want = ArrowValues.get(expected.getVector(column), i);
          Object got = ArrowValues.get(actual.getVector(column), i);
          if (want instanceof byte[] bytes) {
            assertThat((byte[]) got).as("row %d column %d", i, column).isEqualTo(bytes);
          } else {
            assertThat(got).as("row %d column %d", i, column).isEqualTo(want);
          }
        }
      }
    }
  }

  @Test
  void rowValuesFromStoredValuesEqualRowValuesFromJavaValues() {
    List<Object[]> rows = randomRows(200, 3);
    List<byte[]> values = new ArrayList<>();
    List<Object[]> decoded = new ArrayList<>();
    for (Object[] row : rows) {
      byte[] value = CODEC.encode(row);
      values.add(value);
      decoded.add(CODEC.decode(value));
    }
    List<ArrowType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Field field : ARROW.getFields()) {
      types.add(field.getType());
      names.add(field.getName());
    }
    ByteBuffer expected = RowValues.encode(decoded, types, names);
    ByteBuffer actual = CODEC.toRowValues(values);
    assertThat(actual).isEqualTo(expected);
    List<Object[]> back = RowValues.decode(actual, types);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(Arrays.deepEquals(back.get(i), rows.get(i))).as("row %d", i).isTrue();
    }
    assertThat(CODEC.toRowValues(List.of())).isEqualTo(RowValues.encode(List.of(), types, names));
  }

  @Test
  void valuesOfAnotherSchemaAreRefusedByTheDirectPaths() {
    Schema evolved =
        new Schema(
            2,
            List.of(
                required(1, "id", Types.LongType.get()),
                optional(2, "flag", Types.BooleanType.get())),
            Set.of(1));
    RowCodec older = new RowCodec(KvSchema.of(evolved));
    byte[] value = older.encode(new Object[] {1L, true});
    assertThat(CODEC.isCurrent(value)).isFalse();
    assertThatThrownBy(() -> CODEC.toRowValues(List.of(value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema 2");
  }
}
