package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import org.apache.iceberg.Table;
import org.apache.paimon.table.FileStoreTable;

/**
 * A streaming table's Paimon table as one round opened it ({@link PaimonTableCreator}).
 *
 * @param entry the table's catalog entry (an Iceberg table whose metadata Paimon generates)
 * @param table the Paimon table
 * @param primaryKey whether the streaming table is a primary-key table (else a log table)
 */
record PaimonLakeTable(TablePath path, Table entry, FileStoreTable table, boolean primaryKey) {
  PaimonLakeTable {
    requireNonNull(path, "path is null");
    requireNonNull(entry, "entry is null");
    requireNonNull(table, "table is null");
  }

  /** The catalog entry's table uuid, the key of the table's offsets record. */
  String uuid() {
    return entry.uuid().toString();
  }

  /** The fixed Paimon commit user of the table's rounds. */
  String commitUser() {
    return PaimonTableTiering.commitUser(entry);
  }
}
