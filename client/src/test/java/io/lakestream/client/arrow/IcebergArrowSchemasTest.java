package io.lakestream.client.arrow;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalInt;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class IcebergArrowSchemasTest {
  private static final org.apache.iceberg.Schema EVERY_TYPE =
      new org.apache.iceberg.Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "count", Types.IntegerType.get()),
          optional(3, "ratio", Types.DoubleType.get()),
          optional(4, "score", Types.FloatType.get()),
          optional(5, "name", Types.StringType.get()),
          optional(6, "flag", Types.BooleanType.get()),
          optional(7, "day", Types.DateType.get()),
          optional(8, "local_ts", Types.TimestampType.withoutZone()),
          optional(9, "ts", Types.TimestampType.withZone()),
          optional(10, "amount", Types.DecimalType.of(12, 2)),
          optional(11, "payload", Types.BinaryType.get()),
          optional(12, "at", Types.TimeType.get()),
          optional(13, "key", Types.UUIDType.get()),
          optional(14, "hash", Types.FixedType.ofLength(20)),
          optional(15, "ns", Types.TimestampNanoType.withZone()));

  @Test
  void mapsEveryPrimitiveType() {
    Schema arrow = IcebergArrowSchemas.toArrowSchema(EVERY_TYPE);

    assertThat(arrow.getFields())
        .extracting(Field::getType)
        .containsExactly(
            new ArrowType.Int(64, true),
            new ArrowType.Int(32, true),
            new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
            ArrowType.Utf8.INSTANCE,
            ArrowType.Bool.INSTANCE,
            new ArrowType.Date(DateUnit.DAY),
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
            new ArrowType.Decimal(12, 2, 128),
            ArrowType.Binary.INSTANCE,
            new ArrowType.Time(TimeUnit.MICROSECOND, 64),
            new ArrowType.FixedSizeBinary(16),
            new ArrowType.FixedSizeBinary(20),
            new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"));
    assertThat(arrow.getFields())
        .extracting(Field::getName)
        .containsExactly(
            "id",
            "count",
            "ratio",
            "score",
            "name",
            "flag",
            "day",
            "local_ts",
            "ts",
            "amount",
            "payload",
            "at",
            "key",
            "hash",
            "ns");
  }

  @Test
  void keepsNullabilityAndFieldIds() {
    Schema arrow = IcebergArrowSchemas.toArrowSchema(EVERY_TYPE);

    assertThat(arrow.getFields().get(0).isNullable()).isFalse();
    assertThat(arrow.getFields().get(1).isNullable()).isTrue();
    assertThat(arrow.getFields().get(9).getMetadata())
        .containsEntry(IcebergArrowSchemas.FIELD_ID_KEY, "10");
    assertThat(arrow.getFields())
        .extracting(field -> IcebergArrowSchemas.fieldId(field).getAsInt())
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    assertThat(IcebergArrowSchemas.fieldId(Field.nullable("x", ArrowType.Utf8.INSTANCE)))
        .isEqualTo(OptionalInt.empty());
  }

  @Test
  void theMappedSchemaRoundTripsThroughTheCodec() {
    Schema arrow = IcebergArrowSchemas.toArrowSchema(EVERY_TYPE);
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      root.allocateNew();
      root.setRowCount(0);
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.ZSTD);

      try (VectorSchemaRoot decoded = ArrowBatchCodec.decode(message, arrow, allocator)) {
        assertThat(decoded.getSchema()).isEqualTo(arrow);
      }
      assertThat(BatchStatistics.compute(root).columns())
          .extracting(ColumnStats::kind)
          .doesNotContain(ColumnStats.Kind.NONE);
    }
  }

  @Test
  void rejectsNestedTypesNamingTheColumn() {
    org.apache.iceberg.Schema nested =
        new org.apache.iceberg.Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "point", Types.StructType.of(optional(3, "x", Types.IntegerType.get()))));

    assertThatThrownBy(() -> IcebergArrowSchemas.toArrowSchema(nested))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot map column point (id 2) of Iceberg type struct<3: x: optional int> to Arrow:"
                + " streaming tables support boolean, int, long, float, double, decimal, date,"
                + " time, timestamp, timestamptz, timestamp_ns, timestamptz_ns, string, uuid,"
                + " fixed and binary columns");
    assertThatThrownBy(
            () ->
                IcebergArrowSchemas.toArrowSchema(
                    new org.apache.iceberg.Schema(
                        optional(1, "tags", Types.ListType.ofOptional(2, Types.StringType.get())))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot map column tags (id 1) of Iceberg type list<string>");
    assertThatThrownBy(
            () ->
                IcebergArrowSchemas.toArrowSchema(
                    new org.apache.iceberg.Schema(
                        List.of(
                            optional(
                                1,
                                "attributes",
                                Types.MapType.ofOptional(
                                    2, 3, Types.StringType.get(), Types.StringType.get()))))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot map column attributes (id 1)");
  }
}
