package io.lakestream.flight.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/**
 * The tables SQL sees, by Flight SQL's names: a catalog is a warehouse, a schema is a namespace (of
 * one level: SQL names have three parts at most), a table is a table. The server's default
 * warehouse is also what a query reads when it names no catalog. Thread safe.
 */
public final class LakestreamTables {
  /** The table property that marks a streaming table and its kind. */
  public static final String KIND = LakestreamProperties.KIND;

  private static final Set<String> STREAM_KINDS =
      Set.of(TableKind.LOG.value(), TableKind.PRIMARY_KEY.value());

  private final Map<String, Catalog> warehouses;
  private final String defaultWarehouse;
  private final LakeCatalog lake;

  /**
   * @param warehouses per warehouse name, its catalog (one that lists namespaces)
   * @param defaultWarehouse the warehouse of unqualified names; one of {@code warehouses}
   */
  public LakestreamTables(Map<String, ? extends Catalog> warehouses, String defaultWarehouse) {
    requireNonNull(warehouses, "warehouses is null");
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
    if (!warehouses.containsKey(defaultWarehouse)) {
      throw new IllegalArgumentException(
          "Default warehouse " + defaultWarehouse + " is not among " + warehouses.keySet());
    }
    this.warehouses = new LinkedHashMap<>(warehouses);
    Map<String, Catalog> byPath = new LinkedHashMap<>();
    warehouses.forEach(
        (name, catalog) ->
            byPath.put(
                name.equals(defaultWarehouse) ? IcebergLakeCatalog.DEFAULT_WAREHOUSE : name,
                catalog));
    this.lake = new IcebergLakeCatalog(byPath);
  }

  /** The lake side of the tables, keyed the way {@link #path} names them. */
  public LakeCatalog lake() {
    return lake;
  }

  public List<String> warehouses() {
    return List.copyOf(warehouses.keySet());
  }

  String defaultWarehouse() {
    return defaultWarehouse;
  }

  /**
   * The warehouse a query's catalog name means: the default warehouse for none.
   *
   * @throws InvalidQueryException for an unknown warehouse
   */
  public String warehouse(String catalog, Object nameForMessage) {
    if (catalog.isEmpty()) {
      return defaultWarehouse;
    }
    if (!warehouses.containsKey(catalog)) {
      throw new InvalidQueryException(
          "Cannot resolve "
              + nameForMessage
              + ": there is no warehouse (catalog) "
              + catalog
              + "; warehouses are "
              + warehouses.keySet());
    }
    return catalog;
  }

  /** The stream path of a table of a warehouse (the default warehouse has a null warehouse). */
  public TablePath path(String warehouse, List<String> namespace, String table) {
    return new TablePath(warehouse.equals(defaultWarehouse) ? null : warehouse, namespace, table);
  }

  /** Every namespace of a warehouse, nested ones too. */
  public List<Namespace> namespaces(String warehouse) {
    SupportsNamespaces catalog = (SupportsNamespaces) catalog(warehouse);
    List<Namespace> all = new ArrayList<>();
    List<Namespace> pending = new ArrayList<>(catalog.listNamespaces(Namespace.empty()));
    while (!pending.isEmpty()) {
      Namespace namespace = pending.remove(0);
      all.add(namespace);
      try {
        pending.addAll(catalog.listNamespaces(namespace));
      } catch (NoSuchNamespaceException e) {
        // dropped while listing
      }
    }
    return all;
  }

  /** The tables of a namespace, or none when it was dropped meanwhile. */
  public List<TableIdentifier> tables(String warehouse, Namespace namespace) {
    try {
      return catalog(warehouse).listTables(namespace);
    } catch (NoSuchNamespaceException e) {
      return List.of();
    }
  }

  /**
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when the table does not exist
   */
  public Table load(String warehouse, TableIdentifier identifier) {
    return catalog(warehouse).loadTable(identifier);
  }

  /**
   * Whether a table is a streaming table (a log or primary-key table) rather than plain Iceberg.
   */
  public static boolean isStream(Table table) {
    String kind = table.properties().get(KIND);
    return kind != null && STREAM_KINDS.contains(kind);
  }

  private Catalog catalog(String warehouse) {
    Catalog catalog = warehouses.get(warehouse);
    if (catalog == null) {
      throw new IllegalArgumentException("Unknown warehouse " + warehouse);
    }
    return catalog;
  }
}
