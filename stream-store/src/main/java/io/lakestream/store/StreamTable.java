package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import java.util.List;
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
    java.util.Map<Integer, String> arrowSchemas,
    List<String> bucketKey) {
  public StreamTable {
    requireNonNull(tableId, "tableId is null");
    requireNonNull(warehouse, "warehouse is null");
    namespace = List.copyOf(namespace);
    requireNonNull(name, "name is null");
    requireNonNull(kind, "kind is null");
    schemaIds = Set.copyOf(schemaIds);
    requireNonNull(schemaJson, "schemaJson is null");
    arrowSchemas = java.util.Map.copyOf(arrowSchemas);
    bucketKey = List.copyOf(bucketKey);
    if (buckets < 1) {
      throw new IllegalArgumentException("A stream table needs at least one bucket: " + buckets);
    }
  }

  public String displayName() {
    return warehouse + "." + String.join(".", namespace) + "." + name;
  }
}
