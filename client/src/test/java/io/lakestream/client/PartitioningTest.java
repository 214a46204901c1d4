package io.lakestream.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Partition names checked against Iceberg's own transforms and partition paths. */
class PartitioningTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "day", Types.DateType.get()),
          Types.NestedField.optional(4, "region", Types.StringType.get()),
          Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(6, "n", Types.IntegerType.get()),
          Types.NestedField.optional(7, "local", Types.TimestampType.withoutZone()));

  private static final org.apache.arrow.vector.types.pojo.Schema ARROW =
      IcebergArrowSchemas.toArrowSchema(SCHEMA);

  private static List<PartitionField> fields(PartitionSpec spec) {
    List<PartitionField> fields = new ArrayList<>();
    for (org.apache.iceberg.PartitionField field : spec.fields()) {
      fields.add(
          new PartitionField(
              field.name(),
              field.sourceId(),
              SCHEMA.findColumnName(field.sourceId()),
              field.transform().toString()));
    }
    return fields;
  }

  /** The partition path Iceberg itself gives a row. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static String icebergPath(PartitionSpec spec, Object[] row) {
    Object[] partition = new Object[spec.fields().size()];
    for (int i = 0; i < partition.length; i++) {
      org.apache.iceberg.PartitionField field = spec.fields().get(i);
      Types.NestedField source = SCHEMA.findField(field.sourceId());
      Object value = row[SCHEMA.columns().indexOf(source)];
      if (value instanceof LocalDate date) {
        value = (int) date.toEpochDay();
      }
      org.apache.iceberg.transforms.Transform transform = field.transform();
      partition[i] = value == null ? null : transform.bind(source.type()).apply(value);
    }
    return spec.partitionToPath(
        new StructLike() {
          @Override
          public int size() {
            return partition.length;
          }

          @Override
          public <T> T get(int pos, Class<T> javaClass) {
            return javaClass.cast(partition[pos]);
          }

          @Override
          public <T> void set(int pos, T value) {
            throw new UnsupportedOperationException();
          }
        });
  }

  private static Object[] randomRow(Random random) {
    long micros = (random.nextLong() % 4_000_000_000L) * 1_000_000L + random.nextInt(1_000_000);
    String[] regions = {"eu", "us west", "a/b=c", "ünïcode", "100%", ""};
    return new Object[] {
      random.nextLong(),
      micros,
      random.nextBoolean() ? LocalDate.ofEpochDay(random.nextInt(60_000) - 30_000) : null,
      random.nextInt(8) == 0 ? null : regions[random.nextInt(regions.length)],
      random.nextBoolean(),
      random.nextInt(),
      micros - random.nextInt(10) * 3_600_000_000L
    };
  }

  @Test
  void rowsArePlacedAsIcebergPlacesThem() {
    List<PartitionSpec> specs =
        List.of(
            PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build(),
            PartitionSpec.builderFor(SCHEMA).hour("ts").build(),
            PartitionSpec.builderFor(SCHEMA).month("ts").year("day").build(),
            PartitionSpec.builderFor(SCHEMA).year("ts").month("day").day("local").build(),
            PartitionSpec.builderFor(SCHEMA)
                .identity("id")
                .identity("day")
                .identity("flag")
                .identity("n")
                .build(),
            PartitionSpec.builderFor(SCHEMA).hour("local").identity("region").build());
    Random random = new Random(42);
    for (PartitionSpec spec : specs) {
      Partitioning partitioning = Partitioning.of(fields(spec), ARROW);
      Partitioning.RowPartitioner cached = partitioning.rowPartitioner();
      for (int i = 0; i < 2_000; i++) {
        Object[] row = randomRow(random);
        String expected = icebergPath(spec, row);
        assertThat(partitioning.partitionOf(row)).as("%s of %s", spec, row).isEqualTo(expected);
        assertThat(cached.partitionOf(row)).isEqualTo(expected);
        // Consecutive rows of one partition take the cached name.
        assertThat(cached.partitionOf(row)).isEqualTo(expected);
      }
    }
  }

  @Test
  void aBatchIsPlacedByItsStatisticsOrRefusedWhenItSpansPartitions() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build();
    Partitioning partitioning = Partitioning.of(fields(spec), ARROW);
    long day = 20_000L * 86_400_000_000L;
    try (BufferAllocator allocator = new RootAllocator()) {
      assertThat(
              partitioning.partitionOf(
                  statistics(allocator, new long[] {day, day + 86_399_999_999L}, "eu", "eu")))
          .isEqualTo(icebergPath(spec, new Object[] {0L, day, null, "eu", true, 0, 0L}));
      assertThat(
              partitioning.partitionOf(
                  statistics(allocator, new long[] {day}, new String[] {null})))
          .isEqualTo(icebergPath(spec, new Object[] {0L, day, null, null, true, 0, 0L}));
      assertThatThrownBy(
              () ->
                  partitioning.partitionOf(
                      statistics(allocator, new long[] {day - 1, day}, "eu", "eu")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("span partitions")
          .hasMessageContaining("ts_day");
      assertThatThrownBy(
              () ->
                  partitioning.partitionOf(
                      statistics(allocator, new long[] {day, day}, "eu", "us")))
          .hasMessageContaining("region");
      assertThatThrownBy(
              () ->
                  partitioning.partitionOf(
                      statistics(allocator, new long[] {day, day}, "eu", null)))
          .hasMessageContaining("null and non-null");
    }
  }

  private static BatchStatistics statistics(
      BufferAllocator allocator, long[] timestamps, String... regions) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(ARROW, allocator)) {
      root.allocateNew();
      int rows = timestamps.length;
      BigIntVector id = (BigIntVector) root.getVector("id");
      TimeStampMicroTZVector ts = (TimeStampMicroTZVector) root.getVector("ts");
      VarCharVector region = (VarCharVector) root.getVector("region");
      DateDayVector date = (DateDayVector) root.getVector("day");
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, i);
        ts.setSafe(i, timestamps[i]);
        date.setNull(i);
        if (regions[i] == null) {
          region.setNull(i);
        } else {
          region.setSafe(i, regions[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
      }
      root.getFieldVectors().forEach(vector -> vector.setValueCount(rows));
      root.setRowCount(rows);
      return BatchStatistics.compute(root);
    }
  }

  @Test
  void refusesTransformsAndTypesStreamingTablesDoNotPlace() {
    assertThatThrownBy(
            () ->
                Partitioning.of(
                    fields(PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build()), ARROW))
        .hasMessageContaining("bucket[4] is not supported");
    assertThatThrownBy(
            () -> Partitioning.of(List.of(new PartitionField("day_hour", 3, "day", "hour")), ARROW))
        .hasMessageContaining("cannot apply to column day");
    assertThatThrownBy(
            () -> Partitioning.of(List.of(new PartitionField("ts", 2, "ts", "identity")), ARROW))
        .hasMessageContaining("cannot apply to column ts");
    Partitioning byRegion =
        Partitioning.of(List.of(new PartitionField("region", 4, "region", "identity")), ARROW);
    Object[] row = randomRow(new Random(1));
    row[3] = "x".repeat(Partitioning.MAX_STRING_VALUE_BYTES + 1);
    assertThatThrownBy(() -> byRegion.partitionOf(row)).hasMessageContaining("at most 63");
    row[3] = 17L;
    assertThatThrownBy(() -> byRegion.partitionOf(row)).hasMessageContaining("cannot hold a Long");
  }
}
