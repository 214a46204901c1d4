package io.lakestream.lake.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.TieringException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.types.Types;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PaimonTablesTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(3, "id", Types.LongType.get()),
              Types.NestedField.required(5, "region", Types.StringType.get()),
              Types.NestedField.optional(7, "amount", Types.DecimalType.of(10, 3)),
              Types.NestedField.optional(8, "at", Types.TimestampType.withZone()),
              Types.NestedField.optional(9, "local", Types.TimestampType.withoutZone())),
          Set.of(3, 5));

  @TempDir Path dir;

  private TableMetadata metadata(PartitionSpec spec, Map<String, String> properties) {
    // Built field by field: newTableMetadata would assign fresh field ids.
    return TableMetadata.buildFromEmpty(2)
        .assignUUID()
        .setLocation("file:" + dir.resolve("warehouse/ns/t"))
        .setCurrentSchema(SCHEMA, 9)
        .setDefaultPartitionSpec(spec)
        .setDefaultSortOrder(SortOrder.unsorted())
        .setProperties(properties)
        .build();
  }

  @Test
  void aPrimaryKeyTableKeepsTheIcebergFieldIdsKeyPartitionsAndBuckets() {
    TableMetadata metadata =
        metadata(
            PartitionSpec.builderFor(SCHEMA).identity("region").build(),
            Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "4"));
    FileStoreTable table = PaimonTables.open("t", metadata, true);

    assertThat(table.location().toString()).endsWith("/warehouse/ns/t/paimon/lakestream.db/t");
    assertThat(metadata.schema().columns().stream().map(Types.NestedField::fieldId))
        .containsExactly(3, 5, 7, 8, 9);
    assertThat(table.rowType().getFields().stream().map(DataField::id))
        .containsExactly(3, 5, 7, 8, 9);
    assertThat(table.rowType().getFields().stream().map(DataField::type))
        .containsExactly(
            DataTypes.BIGINT().notNull(),
            DataTypes.STRING().notNull(),
            DataTypes.DECIMAL(10, 3),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            DataTypes.TIMESTAMP(6));
    assertThat(table.rowType().getFieldNames())
        .containsExactly("id", "region", "amount", "at", "local");
    assertThat(table.primaryKeys()).containsExactly("id", "region");
    assertThat(table.partitionKeys()).containsExactly("region");
    assertThat(table.options())
        .containsEntry("bucket", "4")
        .containsEntry("metadata.iceberg.storage", "table-location");

    // Opening again finds the same table.
    assertThat(PaimonTables.open("t", metadata, true).schema().id()).isEqualTo(table.schema().id());
  }

  @Test
  void aLogTableIsAnAppendTableWithoutBuckets() {
    FileStoreTable table =
        PaimonTables.open(
            "t", metadata(PartitionSpec.unpartitioned(), Map.of("lakestream.kind", "log")), false);
    assertThat(table.primaryKeys()).isEmpty();
    assertThat(table.options()).containsEntry("bucket", "-1");
  }

  @Test
  void refusesTransformsAndTypesPaimonCannotTier() {
    assertThatThrownBy(
            () ->
                PaimonTables.open(
                    "t",
                    metadata(PartitionSpec.builderFor(SCHEMA).day("at").build(), Map.of()),
                    false))
        .isInstanceOf(TieringException.class)
        .hasMessageContaining("at_day")
        .hasMessageContaining("identity");
    Schema withUuid =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "token", Types.UUIDType.get()));
    assertThatThrownBy(() -> PaimonTables.check(withUuid, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column token has type uuid");
  }
}
