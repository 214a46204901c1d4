package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.Table.BucketOffsets;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;

/**
 * The metadata table {@code "t$offsets"} of a streaming table: one row per partition and bucket of
 * the log with how far tiering has come there. {@code tiered_offset} is the next offset to tier
 * recorded by the lake table's current state ({@link TieredOffsets#committedIn}), {@code
 * high_watermark} the offset after the last acknowledged record and {@code lag} their difference:
 * the records a lake-only reader does not see yet. The tiered offsets are read before the high
 * watermarks, so the lag is never negative.
 */
final class OffsetsTable implements SystemTable {
  /** The suffix of the metadata table's name after the table's own. */
  static final String SUFFIX = "$offsets";

  private static final List<ColumnMetadata> COLUMNS =
      List.of(
          new ColumnMetadata("partition", VARCHAR),
          new ColumnMetadata("bucket", INTEGER),
          new ColumnMetadata("log_start_offset", BIGINT),
          new ColumnMetadata("tiered_offset", BIGINT),
          new ColumnMetadata("high_watermark", BIGINT),
          new ColumnMetadata("lag", BIGINT));

  private final StreamAccess streams;
  private final TablePath path;
  private final ConnectorTableMetadata metadata;

  /**
   * @param name the metadata table's name ({@code t$offsets})
   * @param path the streaming table's path
   */
  OffsetsTable(StreamAccess streams, SchemaTableName name, TablePath path) {
    this.streams = requireNonNull(streams, "streams is null");
    this.path = requireNonNull(path, "path is null");
    this.metadata = new ConnectorTableMetadata(requireNonNull(name, "name is null"), COLUMNS);
  }

  @Override
  public Distribution getDistribution() {
    return Distribution.SINGLE_COORDINATOR;
  }

  @Override
  public ConnectorTableMetadata getTableMetadata() {
    return metadata;
  }

  @Override
  public RecordCursor cursor(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      TupleDomain<Integer> constraint) {
    org.apache.iceberg.Table lake = streams.loadLakeTable(path);
    TieredOffsets tiered =
        TieredOffsets.committedIn(((HasTableOperations) lake).operations().current());
    io.lakestream.client.Table stream = streams.stream(path);
    Map<TableBucket, BucketOffsets> offsets;
    try {
      offsets = stream.offsets(stream.partitions());
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot read the offsets of " + path, e);
    }
    InMemoryRecordSet.Builder rows = InMemoryRecordSet.builder(COLUMNS);
    offsets.forEach(
        (bucket, log) -> {
          long tieredOffset = tiered.offset(bucket.partition(), bucket.bucket());
          rows.addRow(
              bucket.partition(),
              bucket.bucket(),
              log.earliest(),
              tieredOffset,
              log.latest(),
              Math.max(0, log.latest() - tieredOffset));
        });
    return rows.build().cursor();
  }
}
