package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registering an existing table's metadata file with the catalog. */
class RegisterTableTest {
  private static final TableIdentifier POINTS = TableIdentifier.of("geo", "points");
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private WarehouseCatalog catalog;

  @BeforeEach
  void open() {
    store = LocalWarehouse.openStore(directory);
    catalog = LocalWarehouse.catalog(directory.toUri().toString(), store, 16);
    catalog.createNamespace(Namespace.of("geo"), Map.of());
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * Trino's local file system names the files it lists {@code local:///path} (rooted at /, as the
   * server's file: warehouse needs); such a metadata location registers as the {@code file:}
   * location it spells, and the catalog points at that.
   */
  @Test
  void registersLocalUriAsTheFileUriItSpells() {
    Table created = catalog.createTable(POINTS, SCHEMA);
    created.updateProperties().set("owner", "geo").commit();
    String metadataFile = catalog.currentMetadataLocationWithoutWaiting(POINTS).orElseThrow();
    assertThat(metadataFile).startsWith("file:///");
    assertThat(catalog.dropTable(POINTS, false)).isTrue();

    String local = "local:" + metadataFile.substring("file:".length());
    catalog.registerTable(POINTS, local);

    assertThat(catalog.currentMetadataLocationWithoutWaiting(POINTS)).hasValue(metadataFile);
    assertThat(catalog.loadTable(POINTS).properties()).containsEntry("owner", "geo");
  }
}
