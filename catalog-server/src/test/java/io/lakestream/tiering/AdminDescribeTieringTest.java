package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TableDescription;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringRound;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code Admin.describe} reports the offsets a tiering round recorded in the lake table and the lag
 * of the rows written after it, per partition and bucket.
 */
class AdminDescribeTieringTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("described");

  private static Object[] row(long id) {
    return new Object[] {id, id % 3 == 0 ? "eu" : "us"};
  }

  @Test
  void describeReportsTieredOffsetsAndTheLagAfterThem() {
    TablePath path = TablePath.of("described.events");
    fixture
        .connection()
        .admin()
        .createTable(
            path,
            TableDescriptor.logTable(SCHEMA, 2)
                .withBucketKey("id")
                .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("region").build()));
    fixture.append(path, 0, 300, WriterOptions.defaults(), AdminDescribeTieringTest::row);
    Map<String, Map<Integer, Long>> tieredHighWatermarks = fixture.highWatermarks(path);
    TieringRound round =
        new IcebergTableTiering(fixture.lake(), fixture.connection()).tierOnce(path);
    assertThat(round.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(round.rows()).isEqualTo(300);
    fixture.append(path, 300, 345, WriterOptions.defaults(), AdminDescribeTieringTest::row);

    TableDescription description = fixture.connection().admin().describe(path);

    assertThat(description.partitionSpecJson()).contains("\"identity\"", "\"region\"");
    assertThat(description.buckets().keySet())
        .containsExactly(
            new TableBucket("region=eu", 0),
            new TableBucket("region=eu", 1),
            new TableBucket("region=us", 0),
            new TableBucket("region=us", 1));
    io.lakestream.client.Table stream = fixture.connection().table(path);
    description
        .buckets()
        .forEach(
            (bucket, status) -> {
              long tiered =
                  tieredHighWatermarks
                      .getOrDefault(bucket.partition(), Map.of())
                      .getOrDefault(bucket.bucket(), -1L);
              long latest = stream.latestOffset(bucket.partition(), bucket.bucket());
              assertThat(status.tieredOffset()).as("%s tiered", bucket).isEqualTo(tiered);
              assertThat(status.latestOffset()).as("%s latest", bucket).isEqualTo(latest);
              assertThat(status.lag()).as("%s lag", bucket).isEqualTo(latest - Math.max(0, tiered));
            });
    assertThat(description.totalLag()).isEqualTo(45);
    assertThat(
            description.buckets().values().stream()
                .mapToLong(TableDescription.BucketStatus::tieredOffset)
                .filter(offset -> offset > 0)
                .sum())
        .isEqualTo(300);
    assertThat(List.copyOf(tieredHighWatermarks.keySet()))
        .containsExactly("region=eu", "region=us");
  }
}
