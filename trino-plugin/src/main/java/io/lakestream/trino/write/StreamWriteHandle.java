package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import java.util.List;

/**
 * An {@code INSERT} or {@code CREATE TABLE AS} into a streaming table: the pages the engine sends
 * hold {@code columns} in order, and go to the table's stream as appends (log table) or upserts
 * (primary-key table).
 *
 * @param schema the table's schema (namespace)
 * @param table the table's name
 * @param primaryKey whether the table is a primary-key table
 * @param columns the page's columns, in channel order
 */
public record StreamWriteHandle(
    String schema, String table, boolean primaryKey, List<IcebergColumnHandle> columns)
    implements ConnectorInsertTableHandle, ConnectorOutputTableHandle {
  public StreamWriteHandle {
    requireNonNull(schema, "schema is null");
    requireNonNull(table, "table is null");
    columns = List.copyOf(columns);
  }

  /** The table as {@code schema.table}, for messages. */
  public String qualifiedName() {
    return schema + "." + table;
  }
}
