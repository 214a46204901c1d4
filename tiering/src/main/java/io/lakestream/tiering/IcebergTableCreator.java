package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeTableCreator;
import io.lakestream.lake.StreamTableKinds;
import io.lakestream.lake.TieringException;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * Iceberg's {@link LakeTableCreator}: a streaming table's lake table is its own catalog entry,
 * which exists as long as the table does, so opening it loads it and verifies that it can take the
 * stream's rows (a primary-key table's changes need equality deletes, so Iceberg format version 2
 * or later).
 */
final class IcebergTableCreator implements LakeTableCreator<IcebergLakeTable> {
  private final LakeCatalog lake;

  IcebergTableCreator(LakeCatalog lake) {
    this.lake = requireNonNull(lake, "lake is null");
  }

  @Override
  public IcebergLakeTable open(TablePath path) {
    Table table = lake.loadTable(path);
    TableOperations operations = ((HasTableOperations) table).operations();
    TableMetadata start = operations.current();
    boolean primaryKey =
        StreamTableKinds.isPrimaryKey(
            path, start.properties().get(LakestreamProperties.KIND), TieringException::new);
    if (primaryKey && start.formatVersion() < 2) {
      throw new TieringException(
          "Table "
              + path
              + " is a primary-key table of Iceberg format version "
              + start.formatVersion()
              + "; tiering its changes needs equality deletes, which need format version 2 or"
              + " later");
    }
    return new IcebergLakeTable(path, table, operations, start, primaryKey);
  }
}
