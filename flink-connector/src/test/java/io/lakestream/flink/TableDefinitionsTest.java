package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TableDescriptor;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableDistribution;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Flink {@code CREATE TABLE} definitions as the streaming tables the catalog asks the server for.
 */
class TableDefinitionsTest {
  @Test
  void logTableOfEveryType() {
    ResolvedCatalogTable table =
        table(
            ResolvedSchema.of(
                Column.physical("id", DataTypes.BIGINT().notNull()).withComment("the id"),
                Column.physical("small", DataTypes.SMALLINT()),
                Column.physical("i", DataTypes.INT()),
                Column.physical("f", DataTypes.FLOAT()),
                Column.physical("d", DataTypes.DOUBLE()),
                Column.physical("b", DataTypes.BOOLEAN()),
                Column.physical("dec", DataTypes.DECIMAL(20, 4)),
                Column.physical("dt", DataTypes.DATE()),
                Column.physical("tod", DataTypes.TIME(3)),
                Column.physical("ts", DataTypes.TIMESTAMP(3)),
                Column.physical("ltz", DataTypes.TIMESTAMP_LTZ(6)),
                Column.physical("s", DataTypes.VARCHAR(10)),
                Column.physical("bin", DataTypes.BYTES())),
            Map.of("lakestream.buckets", "4"),
            null);

    TableDescriptor descriptor = TableDefinitions.toDescriptor("db.t", table);

    assertThat(descriptor.properties())
        .isEqualTo(Map.of("lakestream.kind", "log", "lakestream.buckets", "4"));
    Schema schema = SchemaParser.fromJson(descriptor.schemaJson());
    assertThat(schema.columns())
        .extracting(field -> field.name() + " " + field.type() + " " + field.isOptional())
        .containsExactly(
            "id long false",
            "small int true",
            "i int true",
            "f float true",
            "d double true",
            "b boolean true",
            "dec decimal(20, 4) true",
            "dt date true",
            "tod time true",
            "ts timestamp true",
            "ltz timestamptz true",
            "s string true",
            "bin binary true");
    assertThat(schema.findField("id").doc()).isEqualTo("the id");
    assertThat(schema.identifierFieldIds()).isEmpty();
  }

  @Test
  void primaryKeyAndDistribution() {
    ResolvedCatalogTable table =
        table(
            new ResolvedSchema(
                List.of(
                    Column.physical("region", DataTypes.STRING().notNull()),
                    Column.physical("id", DataTypes.INT().notNull()),
                    Column.physical("score", DataTypes.DOUBLE())),
                List.of(),
                UniqueConstraint.primaryKey("pk", List.of("id", "region"))),
            Map.of(),
            TableDistribution.ofHash(List.of("id"), 3));

    TableDescriptor descriptor = TableDefinitions.toDescriptor("db.users", table);

    assertThat(descriptor.properties())
        .isEqualTo(
            Map.of(
                "lakestream.kind", "primary-key",
                "lakestream.buckets", "3",
                "lakestream.bucket-key", "id"));
    Schema schema = SchemaParser.fromJson(descriptor.schemaJson());
    assertThat(schema.identifierFieldNames()).containsExactlyInAnyOrder("region", "id");
  }

  @Test
  void refusals() {
    assertThatThrownBy(
            () ->
                TableDefinitions.toDescriptor(
                    "db.t",
                    table(
                        ResolvedSchema.of(Column.physical("id", DataTypes.BIGINT())),
                        Map.of("connector", "kafka"),
                        null)))
        .isInstanceOf(ValidationException.class)
        .hasMessage(
            "Cannot create db.t: option 'connector' is not a Lakestream table property (the"
                + " tables of a Lakestream catalog take only 'lakestream.*' options)");
    assertThatThrownBy(
            () ->
                TableDefinitions.toDescriptor(
                    "db.t",
                    table(
                        ResolvedSchema.of(Column.physical("ts", DataTypes.TIMESTAMP(9))),
                        Map.of(),
                        null)))
        .hasMessageContaining("Column ts has type TIMESTAMP(9)")
        .hasMessageContaining("precision of at most 6");
    assertThatThrownBy(
            () ->
                TableDefinitions.toDescriptor(
                    "db.t",
                    table(
                        ResolvedSchema.of(
                            Column.physical("m", DataTypes.MAP(DataTypes.INT(), DataTypes.INT()))),
                        Map.of(),
                        null)))
        .hasMessageContaining("Column m has type MAP<INT, INT>");
    assertThatThrownBy(
            () ->
                TableDefinitions.toDescriptor(
                    "db.t",
                    table(
                        ResolvedSchema.of(Column.physical("id", DataTypes.BIGINT())),
                        Map.of("lakestream.buckets", "2"),
                        TableDistribution.ofHash(List.of("id"), 3))))
        .hasMessageContaining("DISTRIBUTED BY says lakestream.buckets=3 but the option says 2");
  }

  @Test
  void icebergTypesInFlink() {
    assertThat(FlinkTypes.toFlink(Types.TimestampType.withZone()))
        .isEqualTo(DataTypes.TIMESTAMP_LTZ(6));
    assertThat(FlinkTypes.toFlink(Types.TimestampType.withoutZone()))
        .isEqualTo(DataTypes.TIMESTAMP(6));
    assertThat(FlinkTypes.toFlink(Types.TimeType.get())).isEqualTo(DataTypes.TIME(6));
    assertThat(FlinkTypes.toFlink(Types.TimestampNanoType.withZone()))
        .isEqualTo(DataTypes.TIMESTAMP_LTZ(9));
    assertThat(FlinkTypes.toFlink(Types.TimestampNanoType.withoutZone()))
        .isEqualTo(DataTypes.TIMESTAMP(9));
    assertThat(
            FlinkTypes.toFlink(
                Types.StructType.of(
                    Types.NestedField.optional(2, "inner", Types.StringType.get()))))
        .isEqualTo(DataTypes.ROW(DataTypes.FIELD("inner", DataTypes.STRING())));
    assertThat(FlinkTypes.toFlink(Types.DecimalType.of(9, 2))).isEqualTo(DataTypes.DECIMAL(9, 2));
    assertThat(FlinkTypes.toFlink(Types.FixedType.ofLength(3))).isEqualTo(DataTypes.BINARY(3));
    assertThat(FlinkTypes.toFlink(Types.NestedField.required(1, "x", Types.LongType.get())))
        .isEqualTo(DataTypes.BIGINT().notNull());
  }

  private static ResolvedCatalogTable table(
      ResolvedSchema schema, Map<String, String> options, TableDistribution distribution) {
    CatalogTable.Builder builder =
        CatalogTable.newBuilder()
            .schema(
                org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
            .options(options);
    if (distribution != null) {
      builder.distribution(distribution);
    }
    return new ResolvedCatalogTable(builder.build(), schema);
  }
}
