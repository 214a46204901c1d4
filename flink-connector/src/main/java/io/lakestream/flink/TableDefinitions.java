package io.lakestream.flink;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableDistribution;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * A Lakestream table as a Flink {@link CatalogTable} and a Flink {@code CREATE TABLE} as a {@link
 * TableDescriptor}. The table's columns are its Iceberg schema's (see {@link FlinkTypes}), its
 * primary key its identifier fields, its options its {@code lakestream.*} properties and its
 * comment the Iceberg {@code comment} property.
 */
final class TableDefinitions {
  /** The Iceberg table property that holds a table's comment. */
  static final String COMMENT = "comment";

  private TableDefinitions() {}

  /** The Flink view of a table the REST catalog loaded. */
  static CatalogTable toFlink(Table table) {
    Schema schema = table.schema();
    org.apache.flink.table.api.Schema.Builder columns =
        org.apache.flink.table.api.Schema.newBuilder();
    for (Types.NestedField field : schema.columns()) {
      columns.column(field.name(), FlinkTypes.toFlink(field));
      if (field.doc() != null) {
        columns.withComment(field.doc());
      }
    }
    List<String> key = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      if (schema.identifierFieldIds().contains(field.fieldId())) {
        key.add(field.name());
      }
    }
    if (!key.isEmpty()) {
      columns.primaryKey(key);
    }
    Map<String, String> options = new LinkedHashMap<>();
    table.properties().entrySet().stream()
        .filter(entry -> entry.getKey().startsWith(LakestreamProperties.PREFIX))
        .sorted(Map.Entry.comparingByKey())
        .forEach(entry -> options.put(entry.getKey(), entry.getValue()));
    return CatalogTable.newBuilder()
        .schema(columns.build())
        .comment(table.properties().get(COMMENT))
        .options(options)
        .build();
  }

  /**
   * The streaming table a Flink {@code CREATE TABLE} describes: a primary-key table when it has a
   * {@code PRIMARY KEY}, otherwise a log table; {@code DISTRIBUTED BY HASH(k) INTO n BUCKETS} sets
   * the bucket key and count; the {@code WITH} options are {@code lakestream.*} table properties.
   *
   * @throws ValidationException naming what a streaming table cannot take: a partitioned table,
   *     computed or metadata columns, watermarks, options that are not {@code lakestream.*}, a
   *     column type without an Iceberg counterpart
   */
  static TableDescriptor toDescriptor(String tableName, ResolvedCatalogTable table) {
    if (table.isPartitioned()) {
      throw new ValidationException(
          "Cannot create "
              + tableName
              + ": PARTITIONED BY is not supported yet by Lakestream's Flink catalog");
    }
    ResolvedSchema resolved = table.getResolvedSchema();
    if (!resolved.getWatermarkSpecs().isEmpty()) {
      throw new ValidationException(
          "Cannot create " + tableName + ": a Lakestream table stores no WATERMARK definition");
    }
    Map<String, String> properties = new LinkedHashMap<>();
    for (Map.Entry<String, String> option : table.getOptions().entrySet()) {
      if (!option.getKey().startsWith(LakestreamProperties.PREFIX)) {
        throw new ValidationException(
            "Cannot create "
                + tableName
                + ": option '"
                + option.getKey()
                + "' is not a Lakestream table property (the tables of a Lakestream catalog take"
                + " only '"
                + LakestreamProperties.PREFIX
                + "*' options)");
      }
      properties.put(option.getKey(), option.getValue());
    }
    Set<String> key = new HashSet<>();
    resolved.getPrimaryKey().map(UniqueConstraint::getColumns).ifPresent(key::addAll);
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    int id = 0;
    for (Column column : resolved.getColumns()) {
      if (!column.isPhysical()) {
        throw new ValidationException(
            "Cannot create "
                + tableName
                + ": column "
                + column.getName()
                + " is computed or metadata; a Lakestream table has physical columns only");
      }
      id++;
      Types.NestedField field;
      try {
        field =
            Types.NestedField.builder()
                .withId(id)
                .withName(column.getName())
                .isOptional(column.getDataType().getLogicalType().isNullable())
                .ofType(
                    FlinkTypes.toIceberg(column.getName(), column.getDataType().getLogicalType()))
                .withDoc(column.getComment().orElse(null))
                .build();
      } catch (FlinkTypes.UnsupportedTypeException e) {
        throw new ValidationException("Cannot create " + tableName + ": " + e.getMessage(), e);
      }
      fields.add(field);
      if (key.contains(column.getName())) {
        identifiers.add(id);
      }
    }
    if (!properties.containsKey(LakestreamProperties.KIND)) {
      properties.put(
          LakestreamProperties.KIND,
          key.isEmpty() ? TableKind.LOG.value() : TableKind.PRIMARY_KEY.value());
    }
    Optional<TableDistribution> distribution = table.getDistribution();
    if (distribution.isPresent()) {
      TableDistribution hash = distribution.get();
      if (hash.getKind() != TableDistribution.Kind.HASH
          && hash.getKind() != TableDistribution.Kind.UNKNOWN) {
        throw new ValidationException(
            "Cannot create "
                + tableName
                + ": Lakestream distributes rows to buckets by hash, not "
                + hash.getKind());
      }
      putOnce(tableName, properties, LakestreamProperties.BUCKET_KEY, hash.getBucketKeys());
      hash.getBucketCount()
          .ifPresent(
              count ->
                  putOnce(
                      tableName,
                      properties,
                      LakestreamProperties.BUCKETS,
                      List.of(Integer.toString(count))));
    }
    if (table.getComment() != null && !table.getComment().isEmpty()) {
      properties.put(COMMENT, table.getComment());
    }
    return TableDescriptor.of(new Schema(fields, identifiers), properties);
  }

  private static void putOnce(
      String tableName, Map<String, String> properties, String property, List<String> values) {
    if (values.isEmpty()) {
      return;
    }
    String value = String.join(",", values);
    String option = properties.get(property);
    if (option != null && !option.equals(value)) {
      throw new ValidationException(
          "Cannot create "
              + tableName
              + ": DISTRIBUTED BY says "
              + property
              + "="
              + value
              + " but the option says "
              + option);
    }
    properties.put(property, value);
  }
}
