package io.lakestream.trino.write;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.trino.spi.StandardErrorCode;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.ArrayType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.junit.jupiter.api.Test;

/** The stream table definitions {@code CREATE TABLE} properties make, and their refusals. */
class StreamTablePropertiesTest {
  private static final List<ColumnMetadata> COLUMNS =
      List.of(
          new ColumnMetadata("id", BIGINT),
          new ColumnMetadata("name", VARCHAR),
          new ColumnMetadata("day", DATE));

  private static ConnectorTableMetadata table(
      List<ColumnMetadata> columns, Map<String, Object> properties) {
    Map<String, Object> all = new HashMap<>();
    all.put("partitioning", List.of());
    all.putAll(properties);
    return new ConnectorTableMetadata(
        new SchemaTableName("db", "t"), columns, all, Optional.empty(), List.of());
  }

  @Test
  void logTableWithBucketKeyAndPartitioning() {
    TableDescriptor descriptor =
        StreamTableProperties.descriptor(
            table(
                COLUMNS,
                Map.of(
                    "kind",
                    "log",
                    "buckets",
                    3,
                    "bucket_key",
                    List.of("id"),
                    "partitioning",
                    List.of("day"),
                    "tiering_interval",
                    "5s")),
            TableKind.LOG);

    Schema schema = SchemaParser.fromJson(descriptor.schemaJson());
    assertThat(schema.columns())
        .extracting(field -> field.name())
        .containsExactly("id", "name", "day");
    assertThat(schema.identifierFieldIds()).isEmpty();
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, descriptor.partitionSpecJson());
    assertThat(spec.fields()).hasSize(1);
    PartitionField field = spec.fields().get(0);
    assertThat(schema.findColumnName(field.sourceId())).isEqualTo("day");
    assertThat(field.transform().isIdentity()).isTrue();
    assertThat(descriptor.properties())
        .isEqualTo(
            Map.of(
                "lakestream.kind", "log",
                "lakestream.buckets", "3",
                "lakestream.bucket-key", "id",
                "lakestream.tiering.interval", "5s"));
  }

  @Test
  void primaryKeyTableDeclaresItsKeyAsRequiredIdentifierFields() {
    TableDescriptor descriptor =
        StreamTableProperties.descriptor(
            table(
                COLUMNS,
                Map.of(
                    "kind",
                    "primary-key",
                    "primary_key",
                    List.of("name", "id"),
                    "merge_engine",
                    "first-row")),
            TableKind.PRIMARY_KEY);

    Schema schema = SchemaParser.fromJson(descriptor.schemaJson());
    assertThat(schema.identifierFieldNames()).isEqualTo(Set.of("id", "name"));
    assertThat(schema.findField("id").isRequired()).isTrue();
    assertThat(schema.findField("name").isRequired()).isTrue();
    assertThat(schema.findField("day").isOptional()).isTrue();
    assertThat(descriptor.partitionSpecJson()).isEmpty();
    assertThat(descriptor.properties())
        .isEqualTo(
            Map.of(
                "lakestream.kind", "primary-key",
                "lakestream.buckets", "4",
                "lakestream.merge-engine", "first-row"));
  }

  @Test
  void tableCommentIsTheIcebergCommentProperty() {
    TableDescriptor descriptor =
        StreamTableProperties.descriptor(
            new ConnectorTableMetadata(
                new SchemaTableName("db", "t"),
                COLUMNS,
                Map.of("partitioning", List.of()),
                Optional.of("a;semicolon"),
                List.of()),
            TableKind.LOG);

    assertThat(descriptor.properties())
        .isEqualTo(
            Map.of("lakestream.kind", "log", "lakestream.buckets", "4", "comment", "a;semicolon"));
  }

  @Test
  void refusesWhatTrinoCanTellIsWrong() {
    assertRefused(
        table(List.of(new ColumnMetadata("a", new ArrayType(INTEGER))), Map.of()),
        TableKind.LOG,
        StandardErrorCode.NOT_SUPPORTED,
        "has type array(integer)");
    assertRefused(
        table(COLUMNS, Map.of()),
        TableKind.PRIMARY_KEY,
        StandardErrorCode.INVALID_TABLE_PROPERTY,
        "needs the primary_key property");
    assertRefused(
        table(COLUMNS, Map.of("primary_key", List.of("id"))),
        TableKind.LOG,
        StandardErrorCode.INVALID_TABLE_PROPERTY,
        "only for kind 'primary-key'");
    assertRefused(
        table(COLUMNS, Map.of("primary_key", List.of("nope"))),
        TableKind.PRIMARY_KEY,
        StandardErrorCode.INVALID_TABLE_PROPERTY,
        "column 'nope' is not a column");
    assertRefused(
        table(COLUMNS, Map.of("bucket_key", List.of("id", "id"))),
        TableKind.LOG,
        StandardErrorCode.INVALID_TABLE_PROPERTY,
        "repeats a column");
    assertRefused(
        table(COLUMNS, Map.of("buckets", -1)),
        TableKind.LOG,
        StandardErrorCode.INVALID_TABLE_PROPERTY,
        "Invalid buckets -1");
    assertThatThrownBy(() -> StreamTableProperties.kind(Map.of("kind", "stream")))
        .isInstanceOf(TrinoException.class)
        .hasMessageContaining("Invalid kind 'stream'");
    assertThat(StreamTableProperties.kind(Map.of("kind", "iceberg"))).isEmpty();
    assertThatThrownBy(() -> StreamTableProperties.forIceberg(table(COLUMNS, Map.of("buckets", 2))))
        .isInstanceOf(TrinoException.class)
        .hasMessageContaining("only for streaming tables");
  }

  @Test
  void showsAStreamingTablesProperties() {
    assertThat(
            StreamTableProperties.of(
                Map.of(
                    "lakestream.kind", "primary-key",
                    "lakestream.buckets", "2",
                    "lakestream.bucket-key", "id, name",
                    "lakestream.tiering.interval", "1s",
                    "write.format.default", "parquet"),
                List.of("id", "name")))
        .isEqualTo(
            Map.of(
                "kind",
                "primary-key",
                "buckets",
                2,
                "bucket_key",
                List.of("id", "name"),
                "primary_key",
                List.of("id", "name"),
                "tiering_interval",
                "1s"));
  }

  private static void assertRefused(
      ConnectorTableMetadata table, TableKind kind, StandardErrorCode code, String message) {
    assertThatThrownBy(() -> StreamTableProperties.descriptor(table, kind))
        .isInstanceOfSatisfying(
            TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(code.toErrorCode()))
        .hasMessageContaining(message);
  }
}
