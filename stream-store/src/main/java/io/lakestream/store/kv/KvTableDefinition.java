package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;

/**
 * What the primary-key storage needs to know of a table to open the state of one of its buckets:
 * its schemas, bucket key and merge engine properties. The services build it from the catalog's
 * view of the table, so that this package does not depend on theirs.
 *
 * @param tableId stable id (the Iceberg table UUID), naming the table's state directories
 * @param displayName the table's name in messages ({@code warehouse.namespace.table})
 * @param schemas every Iceberg schema of the table by id
 * @param currentSchemaId the id of the schema rows are written in
 * @param bucketKey the bucket-key columns, a prefix of the primary key
 * @param properties the table's properties, which name the merge engine and its options
 */
public record KvTableDefinition(
    String tableId,
    String displayName,
    Map<Integer, Schema> schemas,
    int currentSchemaId,
    List<String> bucketKey,
    Map<String, String> properties) {
  public KvTableDefinition {
    requireNonNull(tableId, "tableId is null");
    requireNonNull(displayName, "displayName is null");
    schemas = Map.copyOf(schemas);
    bucketKey = List.copyOf(bucketKey);
    properties = Map.copyOf(properties);
  }
}
