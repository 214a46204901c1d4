package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The warehouses of this server, each with its {@link WarehouseCatalog}, and which one serves
 * requests that name none. Immutable and thread safe.
 */
public final class Warehouses {
  private final Map<String, WarehouseCatalog> catalogs;
  private final String defaultWarehouse;

  public Warehouses(Map<String, WarehouseCatalog> catalogs, String defaultWarehouse) {
    this.catalogs = Map.copyOf(new LinkedHashMap<>(catalogs));
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
    if (!this.catalogs.containsKey(defaultWarehouse)) {
      throw new IllegalArgumentException(
          "Default warehouse is not configured: " + defaultWarehouse);
    }
  }

  /**
   * The catalog of a warehouse.
   *
   * @param warehouse a warehouse name, or null for the default warehouse
   * @throws NoSuchWarehouseException if there is no such warehouse
   */
  public WarehouseCatalog catalog(String warehouse) {
    String name = warehouse == null ? defaultWarehouse : warehouse;
    WarehouseCatalog catalog = catalogs.get(name);
    if (catalog == null) {
      throw new NoSuchWarehouseException(name);
    }
    return catalog;
  }

  public String defaultWarehouse() {
    return defaultWarehouse;
  }

  public Set<String> names() {
    return catalogs.keySet();
  }
}
