package io.lakestream.trino.tail;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.scan.LogRange;
import io.trino.spi.connector.ConnectorSplit;

/**
 * A split of a union read that reads one bucket's log from {@code from} (the bucket's offset in the
 * pinned lake snapshot) to {@code to} (its high watermark when the query was planned), or a slice
 * of that range.
 *
 * @param schema the table's schema (namespace)
 * @param table the table's name
 * @param partition the log partition ({@code ""} for an unpartitioned table)
 * @param primaryKey whether the range holds a primary-key table's changes, which the split folds by
 *     key (the newest change wins, a delete removes the key)
 */
public record LogTailSplit(
    String schema,
    String table,
    String partition,
    int bucket,
    long from,
    long to,
    boolean primaryKey)
    implements ConnectorSplit {
  private static final long INSTANCE_SIZE = 96;

  public LogTailSplit {
    requireNonNull(schema, "schema is null");
    requireNonNull(table, "table is null");
    requireNonNull(partition, "partition is null");
    if (bucket < 0 || from < 0 || to < from) {
      throw new IllegalArgumentException(
          "Invalid log tail split of bucket " + bucket + ": [" + from + ", " + to + ")");
    }
  }

  /** The range this split reads. */
  public LogRange range() {
    return new LogRange(partition, bucket, from, to);
  }

  @Override
  public long getRetainedSizeInBytes() {
    return INSTANCE_SIZE + 2L * (schema.length() + table.length() + partition.length());
  }
}
