package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;

/**
 * What {@link Admin#createTable} creates: an Iceberg schema and partition spec (as Iceberg JSON)
 * and table properties. A log table has {@code lakestream.kind=log}, {@code lakestream.buckets} and
 * optionally {@code lakestream.bucket-key}; the server validates them.
 *
 * <pre>{@code
 * TableDescriptor.logTable(schema, 4).withBucketKey("user_id")
 * }</pre>
 *
 * @param schemaJson the schema in Iceberg's JSON format
 * @param partitionSpecJson the partition spec in Iceberg's JSON format; empty for unpartitioned
 */
public record TableDescriptor(
    String schemaJson, String partitionSpecJson, Map<String, String> properties) {
  public static final String KIND = LakestreamProperties.KIND;
  public static final String BUCKETS = LakestreamProperties.BUCKETS;
  public static final String BUCKET_KEY = LakestreamProperties.BUCKET_KEY;

  public TableDescriptor {
    requireNonNull(schemaJson, "schemaJson is null");
    requireNonNull(partitionSpecJson, "partitionSpecJson is null");
    properties = Map.copyOf(properties);
  }

  /**
   * An unpartitioned table of an Iceberg schema with these properties (without {@code
   * lakestream.kind} it is a plain Iceberg table).
   *
   * @throws IllegalArgumentException for a field with a default value: pass such a schema as JSON
   */
  public static TableDescriptor of(Schema schema, Map<String, String> properties) {
    return new TableDescriptor(IcebergSchemaJson.toJson(schema), "", properties);
  }

  /** An unpartitioned log table of an Iceberg schema with {@code buckets} buckets. */
  public static TableDescriptor logTable(Schema schema, int buckets) {
    return logTable(IcebergSchemaJson.toJson(schema), buckets);
  }

  /** An unpartitioned log table of a schema given as Iceberg JSON. */
  public static TableDescriptor logTable(String schemaJson, int buckets) {
    return new TableDescriptor(
        schemaJson, "", Map.of(KIND, TableKind.LOG.value(), BUCKETS, Integer.toString(buckets)));
  }

  /** Rows go to buckets by the hash of these columns instead of round-robin. */
  public TableDescriptor withBucketKey(List<String> columns) {
    return withProperty(BUCKET_KEY, String.join(",", columns));
  }

  public TableDescriptor withBucketKey(String... columns) {
    return withBucketKey(List.of(columns));
  }

  public TableDescriptor withProperty(String key, String value) {
    Map<String, String> copy = new LinkedHashMap<>(properties);
    copy.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
    return new TableDescriptor(schemaJson, partitionSpecJson, copy);
  }

  /** A partition spec in Iceberg's JSON format (its source ids refer to the schema's field ids). */
  public TableDescriptor withPartitionSpecJson(String json) {
    return new TableDescriptor(schemaJson, json, properties);
  }
}
