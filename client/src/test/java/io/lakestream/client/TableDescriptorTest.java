package io.lakestream.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The descriptor builders write the properties and schema the server expects and refuse bad input
 * before a request is sent. The server's acceptance of what they build is in {@code
 * StreamAdminTest}.
 */
class TableDescriptorTest {
  private static final Schema USERS =
      new Schema(
          Types.NestedField.optional(1, "tenant", Types.StringType.get()),
          Types.NestedField.optional(2, "user_id", Types.LongType.get()),
          Types.NestedField.optional(3, "score", Types.DoubleType.get()),
          Types.NestedField.optional(4, "version", Types.LongType.get()),
          Types.NestedField.optional(
              5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())));

  @Test
  void aPrimaryKeyTableMarksItsKeyRequiredAndIdentifying() {
    TableDescriptor descriptor =
        TableDescriptor.primaryKeyTable(USERS, List.of("tenant", "user_id"), 8);

    assertThat(descriptor.properties())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "8"));
    assertThat(descriptor.partitionSpecJson()).isEmpty();
    String json = descriptor.schemaJson();
    assertThat(json).contains("\"identifier-field-ids\":[1,2]");
    assertThat(json)
        .contains("{\"id\":1,\"name\":\"tenant\",\"required\":true,\"type\":\"string\"}")
        .contains("{\"id\":2,\"name\":\"user_id\",\"required\":true,\"type\":\"long\"}")
        .contains("{\"id\":4,\"name\":\"version\",\"required\":false,\"type\":\"long\"}");
  }

  @Test
  void aPrimaryKeyTableRefusesBadKeysAndBucketCounts() {
    assertThatThrownBy(() -> TableDescriptor.primaryKeyTable(USERS, List.of("country"), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'country'")
        .hasMessageContaining("[tenant, user_id, score, version, tags]");
    assertThatThrownBy(() -> TableDescriptor.primaryKeyTable(USERS, List.of(), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one key column");
    assertThatThrownBy(
            () -> TableDescriptor.primaryKeyTable(USERS, List.of("user_id", "user_id"), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("named twice");
    assertThatThrownBy(() -> TableDescriptor.primaryKeyTable(USERS, List.of("score"), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'score'")
        .hasMessageContaining("double");
    assertThatThrownBy(() -> TableDescriptor.primaryKeyTable(USERS, List.of("tags"), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'tags'");
    for (int buckets : new int[] {0, -1, 1025}) {
      assertThatThrownBy(() -> TableDescriptor.primaryKeyTable(USERS, List.of("user_id"), buckets))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid bucket count " + buckets)
          .hasMessageContaining("1 to 1024");
      assertThatThrownBy(() -> TableDescriptor.logTable(USERS, buckets))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid bucket count " + buckets);
    }
    assertThat(TableDescriptor.logTable(USERS, 1024).properties())
        .containsEntry("lakestream.buckets", "1024");
  }

  @Test
  void mergeEngineOptionsAreOnlyForPrimaryKeyTables() {
    TableDescriptor keyed = TableDescriptor.primaryKeyTable(USERS, List.of("user_id"), 2);

    assertThat(keyed.withMergeEngine(MergeEngineType.FIRST_ROW).properties())
        .containsEntry("lakestream.merge-engine", "first-row");
    assertThat(keyed.withVersionColumn("version").properties())
        .containsEntry("lakestream.merge-engine", "versioned")
        .containsEntry("lakestream.merge-engine.version-column", "version");
    assertThat(
            keyed
                .withAggregateFunction("score", "sum")
                .withAggregateFunction("tags", "listagg")
                .properties())
        .containsEntry("lakestream.merge-engine", "aggregation")
        .containsEntry("lakestream.fields.score.aggregate-function", "sum")
        .containsEntry("lakestream.fields.tags.aggregate-function", "listagg");

    TableDescriptor log = TableDescriptor.logTable(USERS, 2);
    assertThatThrownBy(() -> log.withMergeEngine(MergeEngineType.LAST_ROW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lakestream.merge-engine is only for primary-key tables")
        .hasMessageContaining("lakestream.kind=log");
    assertThatThrownBy(() -> log.withVersionColumn("version"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> keyed.withVersionColumn(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> keyed.withAggregateFunction("score", ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void lakeTieringAndBucketKeyOptions() {
    TableDescriptor descriptor =
        TableDescriptor.logTable(USERS, 4)
            .withBucketKey("tenant", "user_id")
            .withLakeFormat("paimon")
            .withTieringInterval(Duration.ofMinutes(5));
    assertThat(descriptor.properties())
        .containsEntry("lakestream.bucket-key", "tenant,user_id")
        .containsEntry("lakestream.lake-format", "paimon")
        .containsEntry("lakestream.tiering.interval", "300000ms");

    assertThatThrownBy(() -> descriptor.withLakeFormat("delta"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'delta'");
    assertThatThrownBy(() -> descriptor.withTieringInterval(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1s to 7d");
    assertThatThrownBy(() -> descriptor.withTieringInterval(Duration.ofDays(8)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(descriptor.withLogRetention(Duration.ofHours(12)).properties())
        .containsEntry("lakestream.log.retention", "43200000ms");
    assertThatThrownBy(() -> descriptor.withLogRetention(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1s");
    assertThatThrownBy(() -> descriptor.withBucketKey(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> descriptor.withBucketKey("a,b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPartitionSpecIsWrittenAsIcebergJson() {
    PartitionSpec spec =
        PartitionSpec.builderFor(USERS).identity("tenant").bucket("user_id", 4).build();

    TableDescriptor descriptor = TableDescriptor.logTable(USERS, 1).withPartitionSpec(spec);

    assertThat(descriptor.partitionSpecJson())
        .isEqualTo(
            "{\"spec-id\":0,\"fields\":["
                + "{\"name\":\"tenant\",\"transform\":\"identity\",\"source-id\":1,\"field-id\":1000},"
                + "{\"name\":\"user_id_bucket\",\"transform\":\"bucket[4]\",\"source-id\":2,"
                + "\"field-id\":1001}]}");
  }

  @Test
  void descriptorsAreImmutable() {
    TableDescriptor log = TableDescriptor.logTable(USERS, 2);
    log.withProperty("owner", "me");
    assertThat(log.properties()).doesNotContainKey("owner");
    assertThatThrownBy(() -> log.properties().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    java.util.Map<String, String> withNull = new java.util.HashMap<>();
    withNull.put("owner", null);
    assertThatThrownBy(() -> new TableDescriptor("{}", "", withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("owner");
  }
}
