package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit-time check that a table's new snapshots name only files in its own location, on the
 * catalog in-process, and what it adds to a commit.
 */
class TableFileConfinementTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier VICTIM = TableIdentifier.of("b", "t");
  private static final TableIdentifier THIEF = TableIdentifier.of("a", "thief");

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private WarehouseCatalog catalog;

  @BeforeEach
  void open() {
    store = LocalWarehouse.openStore(directory);
    catalog = LocalWarehouse.catalog(directory.resolve("warehouse").toUri().toString(), store, 64);
    catalog.createNamespace(Namespace.of("a"), Map.of());
    catalog.createNamespace(Namespace.of("b"), Map.of());
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static DataFile file(String path) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(path)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .withFormat(FileFormat.PARQUET)
        .build();
  }

  @Test
  void anAppendOfAnotherTablesFileIsRefusedAndOwnFilesCommit() {
    Table victim = catalog.createTable(VICTIM, SCHEMA);
    String victimFile = victim.location() + "/data/00000-victim.parquet";
    victim.newAppend().appendFile(file(victimFile)).commit();
    Table thief = catalog.createTable(THIEF, SCHEMA);

    assertThatThrownBy(() -> thief.newAppend().appendFile(file(victimFile)).commit())
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining(victimFile)
        .hasMessageContaining("table b.t")
        .hasMessageContaining("a.thief");
    assertThatThrownBy(
            () -> thief.newAppend().appendFile(file("file:/etc/lakestream.parquet")).commit())
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("file:/etc/lakestream.parquet");
    // A crafted relative escape is resolved before the check.
    String escape = thief.location() + "/data/../../../b/t/data/00000-victim.parquet";
    assertThatThrownBy(() -> thief.newAppend().appendFile(file(escape)).commit())
        .isInstanceOf(ForbiddenException.class);

    thief.refresh();
    assertThat(thief.currentSnapshot()).isNull();
    thief.newAppend().appendFile(file(thief.location() + "/data/own.parquet")).commit();
    assertThat(catalog.loadTable(THIEF).currentSnapshot()).isNotNull();
  }

  /**
   * Roughly what the check adds to a commit: appends of one file each to a table that grows to 200
   * snapshots, with the check timed on the same metadata as each commit. Prints the numbers;
   * asserts only that the check costs less than the commit it belongs to.
   */
  @Test
  void theCheckCostsLittleNextToTheCommit() {
    Table table = catalog.createTable(VICTIM, SCHEMA);
    List<TableMetadata> versions = new ArrayList<>();
    versions.add(((HasTableOperations) table).operations().current());
    int commits = 200;
    long commitNanos = 0;
    for (int i = 0; i < commits; i++) {
      long started = System.nanoTime();
      table.newAppend().appendFile(file(table.location() + "/data/f-" + i + ".parquet")).commit();
      commitNanos += System.nanoTime() - started;
      versions.add(((HasTableOperations) table).operations().current());
    }
    TablePlacement placement =
        new TablePlacement(
            "main",
            new TableLocations(catalog.location(), List.of()),
            store,
            new LocalFileIO(),
            new MetadataCache(16));
    TableFileConfinement confinement = new TableFileConfinement(placement, new LocalFileIO());
    long checkNanos = 0;
    for (int i = 1; i < versions.size(); i++) {
      long started = System.nanoTime();
      confinement.check(VICTIM, versions.get(i - 1), versions.get(i));
      checkNanos += System.nanoTime() - started;
    }
    System.out.printf(
        "TableFileConfinementTest: %d appends, %.0f us per commit (check included), %.0f us per"
            + " check of the same metadata%n",
        commits, commitNanos / 1e3 / commits, checkNanos / 1e3 / commits);
    assertThat(checkNanos).isLessThan(commitNanos);
  }
}
