package io.lakestream.lake.iceberg;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A {@link LakeCatalog} over Iceberg catalogs, one per warehouse. Listing walks every namespace
 * (nested ones too) and loads each table to read its properties.
 */
public final class IcebergLakeCatalog implements LakeCatalog {
  private static final String KIND = LakestreamProperties.KIND;
  private static final java.util.Set<String> STREAM_KINDS =
      java.util.Set.of(TableKind.LOG.value(), TableKind.PRIMARY_KEY.value());

  private final Map<String, Catalog> catalogs;

  /**
   * @param catalogs per warehouse name, a catalog that also lists namespaces; the name goes into
   *     the {@link TablePath}s, so use the names the stream RPC knows (or a single catalog under
   *     {@link #DEFAULT_WAREHOUSE} for the server's default warehouse)
   */
  public IcebergLakeCatalog(Map<String, ? extends Catalog> catalogs) {
    requireNonNull(catalogs, "catalogs is null");
    catalogs.forEach(
        (name, catalog) -> {
          if (!(catalog instanceof SupportsNamespaces)) {
            throw new IllegalArgumentException(
                "Catalog of warehouse " + name + " cannot list namespaces");
          }
        });
    this.catalogs = new LinkedHashMap<>(catalogs);
  }

  /** The warehouse key that stands for the server's default warehouse (a null warehouse path). */
  public static final String DEFAULT_WAREHOUSE = "";

  /** A lake catalog of one catalog, the server's default warehouse (a {@code RESTCatalog}). */
  public static IcebergLakeCatalog of(Catalog catalog) {
    return new IcebergLakeCatalog(Map.of(DEFAULT_WAREHOUSE, catalog));
  }

  @Override
  public List<StreamTable> listStreamTables() {
    List<StreamTable> tables = new ArrayList<>();
    for (Map.Entry<String, Catalog> entry : catalogs.entrySet()) {
      Catalog catalog = entry.getValue();
      String warehouse = entry.getKey().equals(DEFAULT_WAREHOUSE) ? null : entry.getKey();
      List<Namespace> pending = new ArrayList<>(listNamespaces(catalog, Namespace.empty()));
      while (!pending.isEmpty()) {
        Namespace namespace = pending.remove(pending.size() - 1);
        pending.addAll(listNamespaces(catalog, namespace));
        List<TableIdentifier> identifiers;
        try {
          identifiers = catalog.listTables(namespace);
        } catch (NoSuchNamespaceException e) {
          continue; // dropped while listing
        }
        for (TableIdentifier identifier : identifiers) {
          Table table;
          try {
            table = catalog.loadTable(identifier);
          } catch (NoSuchTableException e) {
            continue;
          }
          String kind = table.properties().get(KIND);
          if (kind != null && STREAM_KINDS.contains(kind)) { // Set.of rejects contains(null)
            tables.add(
                new StreamTable(
                    new TablePath(warehouse, Arrays.asList(namespace.levels()), identifier.name()),
                    table.properties()));
          }
        }
      }
    }
    return tables;
  }

  private static List<Namespace> listNamespaces(Catalog catalog, Namespace parent) {
    try {
      return ((SupportsNamespaces) catalog).listNamespaces(parent);
    } catch (NoSuchNamespaceException e) {
      return List.of();
    }
  }

  @Override
  public Table loadTable(TablePath path) {
    Catalog catalog = catalogs.get(path.warehouse() == null ? DEFAULT_WAREHOUSE : path.warehouse());
    if (catalog == null) {
      throw new NoSuchTableException("Table %s: no catalog for its warehouse", path);
    }
    return catalog.loadTable(
        TableIdentifier.of(Namespace.of(path.namespace().toArray(String[]::new)), path.name()));
  }
}
