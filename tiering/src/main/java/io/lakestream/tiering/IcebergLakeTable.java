package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A streaming table's Iceberg table as one round opened it ({@link IcebergTableCreator}).
 *
 * @param operations the table's operations, through which the round commits
 * @param start the table's metadata when the round opened it
 * @param primaryKey whether the streaming table is a primary-key table (else a log table)
 */
record IcebergLakeTable(
    TablePath path,
    Table table,
    TableOperations operations,
    TableMetadata start,
    boolean primaryKey) {
  IcebergLakeTable {
    requireNonNull(path, "path is null");
    requireNonNull(table, "table is null");
    requireNonNull(operations, "operations is null");
    requireNonNull(start, "start is null");
  }
}
