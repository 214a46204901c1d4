package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.PartitionField;
import io.lakestream.client.Partitioning;
import io.lakestream.client.TableKind;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the stream store needs to know of a table from the catalog.
 *
 * @param tableId stable id (the Iceberg table UUID), naming the table's stream directory
 * @param warehouse the warehouse holding the table
 * @param namespace the table's namespace levels
 * @param kind {@code log} or {@code primary-key}
 * @param schemaIds every schema id the table has had; batches of other ids are refused
 * @param schemaJson the current schema as Iceberg JSON
 * @param arrowSchemas every schema by id, as Arrow schema JSON
 * @param partitionFields the partition spec's fields; empty when the table is not partitioned
 * @param partitioning how batches of each schema id are placed in partitions
 * @param primaryKey the primary-key columns of a primary-key table, in schema order; else empty
 * @param schemas every Iceberg schema of the table by id
 * @param properties the table's properties
 */
public record StreamTable(
    String tableId,
    String warehouse,
    List<String> namespace,
    String name,
    String kind,
    int buckets,
    int currentSchemaId,
    Set<Integer> schemaIds,
    String schemaJson,
    Map<Integer, String> arrowSchemas,
    List<String> bucketKey,
    List<PartitionField> partitionFields,
    Map<Integer, Partitioning> partitioning,
    List<String> primaryKey,
    Map<Integer, org.apache.iceberg.Schema> schemas,
    Map<String, String> properties) {
  public StreamTable {
    requireNonNull(tableId, "tableId is null");
    requireNonNull(warehouse, "warehouse is null");
    namespace = List.copyOf(namespace);
    requireNonNull(name, "name is null");
    requireNonNull(kind, "kind is null");
    schemaIds = Set.copyOf(schemaIds);
    requireNonNull(schemaJson, "schemaJson is null");
    arrowSchemas = Map.copyOf(arrowSchemas);
    bucketKey = List.copyOf(bucketKey);
    partitionFields = List.copyOf(partitionFields);
    partitioning = Map.copyOf(partitioning);
    primaryKey = List.copyOf(primaryKey);
    schemas = Map.copyOf(schemas);
    properties = Map.copyOf(properties);
    if (buckets < 1) {
      throw new IllegalArgumentException("A stream table needs at least one bucket: " + buckets);
    }
  }

  public boolean isPrimaryKeyTable() {
    return TableKind.PRIMARY_KEY.is(kind);
  }

  public boolean isPartitioned() {
    return !partitionFields.isEmpty();
  }

  public String displayName() {
    return warehouse + "." + String.join(".", namespace) + "." + name;
  }
}
