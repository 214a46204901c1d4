package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every namespace has a {@code location} property, as clients such as Trino 476 expect (they put a
 * new table in a directory below it, and without one fail on a non-empty table directory), and a
 * table made without a location lies below its namespace's location.
 */
class NamespaceLocationTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private WarehouseCatalog catalog;
  private String warehouse;

  @BeforeEach
  void open() throws IOException {
    store = LocalWarehouse.openStore(directory);
    // With a trailing slash, as a file URI of a directory comes; the catalog strips it.
    String location = Files.createDirectories(directory.resolve("warehouse")).toUri().toString();
    assertThat(location).endsWith("/");
    warehouse = location.substring(0, location.length() - 1);
    catalog = LocalWarehouse.catalog(location, store, 16);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * A namespace made without a location gets {@code <warehouse location>/<level>/...}, stored with
   * its other properties, and its tables' default locations lie below it.
   */
  @Test
  void namespaceMadeWithoutLocationGetsOneInTheWarehouse() {
    catalog.createNamespace(Namespace.of("sales"), Map.of("owner", "ann"));
    catalog.createNamespace(Namespace.of("sales", "eu"), Map.of());

    assertThat(catalog.loadNamespaceMetadata(Namespace.of("sales")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("owner", "ann", "location", warehouse + "/sales"));
    assertThat(catalog.loadNamespaceMetadata(Namespace.of("sales", "eu")))
        .containsExactlyEntriesOf(Map.of("location", warehouse + "/sales/eu"));
    assertThat(store.loadNamespace("main", Namespace.of("sales", "eu")))
        .as("stored")
        .hasValue(Map.of("location", warehouse + "/sales/eu"));

    assertThat(catalog.createTable(TableIdentifier.of("sales", "eu", "orders"), SCHEMA).location())
        .isEqualTo(warehouse + "/sales/eu/orders");
  }

  /** A namespace's own location is kept, and tables made without a location lie below it. */
  @Test
  void namespaceKeepsItsOwnLocationAndItsTablesLieBelowIt() {
    String own = warehouse + "/elsewhere/finance/";
    catalog.createNamespace(Namespace.of("finance"), Map.of("location", own));

    assertThat(catalog.loadNamespaceMetadata(Namespace.of("finance")))
        .containsExactlyEntriesOf(Map.of("location", own));
    assertThat(catalog.createTable(TableIdentifier.of("finance", "ledger"), SCHEMA).location())
        .isEqualTo(warehouse + "/elsewhere/finance/ledger");
  }

  /**
   * A namespace stored without a location (made before namespaces got one) shows the location its
   * tables' default locations lie below, without rewriting it.
   */
  @Test
  void namespaceStoredWithoutLocationShowsTheDefault() {
    store.createNamespace("main", Namespace.of("legacy"), Map.of("owner", "bob"));

    assertThat(catalog.loadNamespaceMetadata(Namespace.of("legacy")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("owner", "bob", "location", warehouse + "/legacy"));
    assertThat(store.loadNamespace("main", Namespace.of("legacy")))
        .hasValue(Map.of("owner", "bob"));
    assertThat(catalog.createTable(TableIdentifier.of("legacy", "events"), SCHEMA).location())
        .isEqualTo(warehouse + "/legacy/events");
  }

  /**
   * Names are any strings to Iceberg: namespaces and tables whose names hold characters that a
   * location URI cannot (quotes, {@code #}, {@code %}, {@code ?}, braces, a backslash), spaces or
   * non-ASCII letters are made like any other, their files lie in directories of their own under
   * the warehouse, and two names that differ only in such characters never share a directory.
   */
  @Test
  void namesWithCharactersALocationCannotHoldGetDirectoriesOfTheirOwn() throws IOException {
    List<String> names =
        List.of(
            "say \"hi\"",
            "say _hi_",
            "a#b",
            "a?b",
            "100%",
            "100%25",
            "{x|y}",
            "back\\slash",
            "caf\u00e9",
            "tab\there",
            "..",
            ".");
    java.util.Set<String> directories = new java.util.HashSet<>();
    catalog.createNamespace(Namespace.of("odd"), Map.of());
    for (String name : names) {
      Namespace namespace = Namespace.of("odd", name);
      catalog.createNamespace(namespace, Map.of());
      org.apache.iceberg.Table table =
          catalog.createTable(TableIdentifier.of(namespace, name), SCHEMA);
      Path tableDirectory = LocalFileIO.toPath(table.location());
      Path metadata =
          LocalFileIO.toPath(
              ((org.apache.iceberg.HasTableOperations) table)
                  .operations()
                  .current()
                  .metadataFileLocation());
      assertThat(metadata).as("metadata of %s", name).exists().startsWith(tableDirectory);
      assertThat(tableDirectory.normalize())
          .as("directory of %s", name)
          .startsWith(directory.resolve("warehouse").resolve("odd").toRealPath());
      assertThat(directories.add(tableDirectory.normalize().toString()))
          .as("directory of %s is its own: %s", name, tableDirectory)
          .isTrue();
      assertThat(catalog.loadTable(TableIdentifier.of(namespace, name)).location())
          .isEqualTo(table.location());
    }
  }
}
