package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.LakestreamExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Partitioned log tables end to end: partitions from the Iceberg spec, created by their first
 * write, named as Iceberg names partition paths, listed, read per partition, and guarded against
 * batches that do not belong to the partition they are written to.
 */
class PartitionedLogTableTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "region", Types.StringType.get()),
          Types.NestedField.optional(4, "v", Types.DoubleType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build();
  private static final long DAY_MICROS = 86_400_000_000L;
  private static final long START_MICROS = 20_000 * DAY_MICROS - 3_600_000_000L;

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("app").build();

  private static Table create(String name, PartitionSpec spec) {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", name),
            SCHEMA,
            spec,
            new HashMap<>(
                Map.of(
                    "lakestream.kind", "log",
                    "lakestream.buckets", "2",
                    "lakestream.bucket-key", "id")));
    return LAKESTREAM.connection().table(TablePath.of("app." + name));
  }

  /** The partition path Iceberg gives a row of the table's spec. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static String icebergPath(Object[] row) {
    Object[] partition = new Object[SPEC.fields().size()];
    for (int i = 0; i < partition.length; i++) {
      org.apache.iceberg.PartitionField field = SPEC.fields().get(i);
      Types.NestedField source = SCHEMA.findField(field.sourceId());
      Object value = row[SCHEMA.columns().indexOf(source)];
      org.apache.iceberg.transforms.Transform transform = field.transform();
      partition[i] = value == null ? null : transform.bind(source.type()).apply(value);
    }
    return SPEC.partitionToPath(
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

  private static Object[] row(long id, Random random) {
    String[] regions = {"eu", "us west", null};
    // Three days, starting an hour before midnight so the first day holds one hour of rows.
    long ts = START_MICROS + (long) (random.nextDouble() * 2.5 * DAY_MICROS);
    return new Object[] {id, ts, regions[random.nextInt(regions.length)], id / 2.0};
  }

  @Test
  void rowsLandInTheirPartitionsAndReadBackPerPartition() {
    Table table = create("clicks", SPEC);
    assertThat(table.isPartitioned()).isTrue();
    assertThat(table.partitions()).isEmpty();
    Random random = new Random(7);
    Map<Long, Object[]> written = new HashMap<>();
    Map<String, Integer> perPartition = new TreeMap<>();
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults().withBatchRows(64))) {
      for (long id = 0; id < 3_000; id++) {
        Object[] row = row(id, random);
        writer.append(row);
        written.put(id, row);
        perPartition.merge(icebergPath(row), 1, Integer::sum);
      }
      writer.flush();
    }
    assertThat(perPartition).hasSizeGreaterThanOrEqualTo(9);
    assertThat(table.partitions()).containsExactlyElementsOf(perPartition.keySet());

    Map<String, Integer> read = new TreeMap<>();
    List<Long> ids = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      for (String partition : table.partitions()) {
        for (int bucket = 0; bucket < 2; bucket++) {
          scanner.subscribe(partition, bucket, LogScanner.earliest());
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (ids.size() < written.size() && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
          for (Object[] row : batch.rows()) {
            long id = (Long) row[0];
            assertThat(row).containsExactly(written.get(id));
            assertThat(batch.partition()).isEqualTo(icebergPath(written.get(id)));
            read.merge(batch.partition(), 1, Integer::sum);
            ids.add(id);
          }
          batch.close();
        }
      }
    }
    assertThat(ids).hasSize(written.size()).doesNotHaveDuplicates();
    assertThat(read).isEqualTo(perPartition);
    String first = perPartition.keySet().iterator().next();
    assertThat(table.latestOffset(first, 0) + table.latestOffset(first, 1))
        .isEqualTo(perPartition.get(first).longValue());
    // Every bucket's offsets asked for at once agree with the rows written to each partition.
    Map<TableBucket, Table.BucketOffsets> offsets = table.offsets(table.partitions());
    assertThat(offsets).hasSize(perPartition.size() * 2);
    Map<String, Integer> latest = new HashMap<>();
    offsets.forEach(
        (bucket, bucketOffsets) -> {
          assertThat(bucketOffsets.earliest()).isZero();
          latest.merge(bucket.partition(), (int) bucketOffsets.latest(), Integer::sum);
        });
    assertThat(latest).isEqualTo(perPartition);
  }

  @Test
  void aBatchWrittenToAnotherPartitionIsRefusedAndCreatesNothing() {
    Table table = create("guarded", SPEC);
    Object[] row = {1L, START_MICROS + DAY_MICROS, "eu", 1.0};
    String right = icebergPath(row);
    String wrong = right.replace("region=eu", "region=us");
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            VectorSchemaRoot.create(table.arrowSchema(table.schemaId()), allocator)) {
      root.allocateNew();
      ((BigIntVector) root.getVector("id")).setSafe(0, 1L);
      ((TimeStampMicroTZVector) root.getVector("ts")).setSafe(0, (Long) row[1]);
      ((VarCharVector) root.getVector("region")).setSafe(0, "eu".getBytes(StandardCharsets.UTF_8));
      ((Float8Vector) root.getVector("v")).setSafe(0, 1.0);
      root.setRowCount(1);

      AppendWriter refused = table.newAppendWriter();
      assertThatThrownBy(() -> refused.append(wrong, 0, root).join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(RpcException.class)
          .hasMessageContaining("belong to partition " + right)
          .satisfies(
              e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.INVALID_BATCH));
      // The failed batch fails the writer, and its close reports it.
      assertThatThrownBy(refused::close).hasMessageContaining("belong to partition " + right);
      assertThat(table.partitions()).isEmpty();

      try (AppendWriter writer = table.newAppendWriter()) {
        assertThat(writer.append(right, 1, root).join().baseOffset()).isZero();
      }
      assertThat(table.partitions()).containsExactly(right);
    }
    assertThatThrownBy(() -> table.offsets(List.of(right, wrong)))
        .isInstanceOf(RpcException.class)
        .satisfies(
            e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.UNKNOWN_PARTITION));
    assertThatThrownBy(() -> table.latestOffset(wrong, 0))
        .isInstanceOf(RpcException.class)
        .satisfies(
            e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.UNKNOWN_PARTITION));
    try (LogScanner scanner = table.newScanner()) {
      assertThatThrownBy(() -> scanner.subscribe(0, LogScanner.earliest()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is partitioned");
    }
  }

  @Test
  void theCatalogRefusesPartitionSpecsAStreamCannotPlace() {
    assertThatThrownBy(
            () -> create("bucketed", PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build()))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("bucket[4] is not supported");
    assertThatThrownBy(
            () -> create("byvalue", PartitionSpec.builderFor(SCHEMA).identity("v").build()))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("cannot apply to column v");
    assertThat(LAKESTREAM.catalog().tableExists(TableIdentifier.of("app", "bucketed"))).isFalse();

    create("fixedspec", SPEC);
    org.apache.iceberg.Table iceberg =
        LAKESTREAM.catalog().loadTable(TableIdentifier.of("app", "fixedspec"));
    assertThatThrownBy(() -> iceberg.updateSpec().removeField("region").commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("partition spec cannot change");
  }
}
