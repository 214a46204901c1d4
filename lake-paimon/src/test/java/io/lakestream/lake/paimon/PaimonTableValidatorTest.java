package io.lakestream.lake.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.LakeTableValidators;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PaimonTableValidatorTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  private static TableMetadata table(Schema schema) {
    return TableMetadata.newTableMetadata(
        schema,
        PartitionSpec.unpartitioned(),
        SortOrder.unsorted(),
        "file:/tmp/w/app/events",
        Map.of("lakestream.kind", "log", "lakestream.lake-format", "paimon"));
  }

  @Test
  void theRegistryFindsPaimonsValidatorByTheFormatName() {
    assertThat(LakeTableValidators.of("paimon")).isInstanceOf(PaimonTableValidator.class);
  }

  @Test
  void aSchemaChangeIsRefusedWithTheMessageTheCatalogReturns() {
    TableMetadata base = table(SCHEMA);
    TableMetadata updated =
        TableMetadata.buildFrom(base)
            .setCurrentSchema(
                new Schema(
                    Types.NestedField.optional(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get())),
                2)
            .build();

    new PaimonTableValidator().checkTable(null, base);
    assertThatThrownBy(() -> new PaimonTableValidator().checkTable(base, updated))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The schema of a table with lakestream.lake-format=paimon cannot change yet");
  }
}
