package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link Admin#describe} tells about a table: its catalog entry and, for a streaming table,
 * where each bucket's log stands and how much of it the lake table holds.
 *
 * <p>The offsets are read with separate requests after the catalog entry (tiered offsets first,
 * then each bucket's), so they are a recent view, not one consistent snapshot: a bucket's lag is
 * never negative but may already be smaller when the call returns.
 *
 * @param path the table's path
 * @param tableId the table's id (its Iceberg table UUID)
 * @param schemaJson the current schema in Iceberg's JSON format
 * @param partitionSpecJson the partition spec in Iceberg's JSON format; empty for unpartitioned
 * @param properties the table properties, {@code lakestream.*} ones included
 * @param buckets per bucket of every partition, its offsets; empty for a table that is not a
 *     streaming table
 */
public record TableDescription(
    TablePath path,
    String tableId,
    String schemaJson,
    String partitionSpecJson,
    Map<String, String> properties,
    Map<TableBucket, BucketStatus> buckets) {
  /** A description of these parts; the maps are copied, keeping the order of {@code buckets}. */
  public TableDescription {
    requireNonNull(path, "path is null");
    requireNonNull(tableId, "tableId is null");
    requireNonNull(schemaJson, "schemaJson is null");
    requireNonNull(partitionSpecJson, "partitionSpecJson is null");
    properties = Map.copyOf(properties);
    buckets = Collections.unmodifiableMap(new LinkedHashMap<>(buckets));
  }

  /**
   * The kind of streaming table; empty for a plain Iceberg table.
   *
   * @return the kind from the {@link LakestreamProperties#KIND} property
   */
  public Optional<TableKind> kind() {
    return TableKind.fromValue(properties.get(LakestreamProperties.KIND));
  }

  /**
   * The rows of every bucket's log that the lake table does not hold yet.
   *
   * @return the sum of the buckets' {@link BucketStatus#lag()}; 0 for a plain Iceberg table
   */
  public long totalLag() {
    long lag = 0;
    for (BucketStatus status : buckets.values()) {
      lag += status.lag();
    }
    return lag;
  }

  /**
   * Where a bucket's log stands.
   *
   * @param earliestOffset the first offset still in the log
   * @param latestOffset the high watermark: the offset the next row written gets
   * @param tieredOffset the first offset the lake table does not hold yet (the next to tier), or -1
   *     when nothing of the bucket was tiered
   * @param lag how many of the log's rows the lake table does not hold: from the tiered offset (or,
   *     when nothing was tiered or rows were trimmed before they were tiered, the log's first
   *     offset) to the high watermark
   */
  public record BucketStatus(long earliestOffset, long latestOffset, long tieredOffset, long lag) {
    /**
     * The status of a bucket from its offsets, with the lag computed as described above.
     *
     * @param earliestOffset the first offset still in the log
     * @param latestOffset the high watermark
     * @param tieredOffset the next offset to tier, or -1 when nothing was tiered
     * @return the status
     */
    public static BucketStatus of(long earliestOffset, long latestOffset, long tieredOffset) {
      long from = Math.max(earliestOffset, tieredOffset);
      return new BucketStatus(
          earliestOffset, latestOffset, tieredOffset, Math.max(0, latestOffset - from));
    }
  }
}
