package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTableCreator;
import io.lakestream.lake.StreamTableKinds;
import io.lakestream.lake.TieringException;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.paimon.table.FileStoreTable;

/**
 * Paimon's {@link LakeTableCreator}: opens the Paimon table under the catalog entry's location,
 * creating it on a table's first round ({@link PaimonTables}); has Paimon write the Iceberg
 * metadata of its newest snapshot when a process died before it did ({@link
 * PaimonIcebergMetadata}); and points the catalog entry at the Paimon table's latest state if it is
 * behind ({@link PaimonCatalogEntry#sync}).
 */
final class PaimonTableCreator implements LakeTableCreator<PaimonLakeTable> {
  private final LakeCatalog lake;
  private final PaimonCatalogEntry entries;

  PaimonTableCreator(LakeCatalog lake, PaimonCatalogEntry entries) {
    this.lake = requireNonNull(lake, "lake is null");
    this.entries = requireNonNull(entries, "entries is null");
  }

  @Override
  public PaimonLakeTable open(TablePath path) {
    Table entry = lake.loadTable(path);
    TableMetadata metadata = ((HasTableOperations) entry).operations().current();
    if (LakeFormat.of(metadata.properties()) != LakeFormat.PAIMON) {
      throw new TieringException(
          "Table " + path + " does not tier into Paimon (" + LakeFormat.PROPERTY + ")");
    }
    boolean primaryKey =
        StreamTableKinds.isPrimaryKey(
            path, metadata.properties().get(LakestreamProperties.KIND), TieringException::new);
    FileStoreTable table = PaimonTables.open(path.name(), metadata, primaryKey);
    PaimonIcebergMetadata.restore(path, table, PaimonTableTiering.commitUser(entry));
    entries.sync(path, table, primaryKey);
    return new PaimonLakeTable(path, entry, table, primaryKey);
  }
}
