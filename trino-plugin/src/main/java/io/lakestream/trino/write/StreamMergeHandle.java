package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import java.util.List;

/**
 * A {@code DELETE}, {@code UPDATE} or {@code MERGE} on a primary-key table, as deletes and upserts
 * by key ({@link StreamMergeSink}).
 *
 * @param table the target table's handle
 * @param write the table's columns, in the order of the merge pages' data columns
 * @param keyColumns the primary-key columns, in the order of the row id's fields ({@link
 *     RowKeyColumn})
 */
public record StreamMergeHandle(
    IcebergTableHandle table, StreamWriteHandle write, List<IcebergColumnHandle> keyColumns)
    implements ConnectorMergeTableHandle {
  public StreamMergeHandle {
    requireNonNull(table, "table is null");
    requireNonNull(write, "write is null");
    keyColumns = List.copyOf(keyColumns);
  }

  @JsonIgnore
  @Override
  public ConnectorTableHandle getTableHandle() {
    return table;
  }
}
