package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.BaseViewOperations;
import org.apache.iceberg.view.ViewMetadata;

/** View operations whose commit is a pointer swap in the {@link MetadataStore}. */
final class StoreViewOperations extends BaseViewOperations {
  private final MetadataStore store;
  private final String warehouse;
  private final TableIdentifier identifier;
  private final FileIO io;
  private final MetadataCache cache;
  private final TablePlacement placement;

  StoreViewOperations(
      MetadataStore store,
      String warehouse,
      TableIdentifier identifier,
      FileIO io,
      MetadataCache cache,
      TablePlacement placement) {
    this.store = requireNonNull(store, "store is null");
    this.warehouse = requireNonNull(warehouse, "warehouse is null");
    this.identifier = requireNonNull(identifier, "identifier is null");
    this.io = requireNonNull(io, "io is null");
    this.cache = requireNonNull(cache, "cache is null");
    this.placement = requireNonNull(placement, "placement is null");
  }

  @Override
  protected String viewName() {
    return warehouse + "." + identifier;
  }

  @Override
  protected FileIO io() {
    return io;
  }

  @Override
  protected void doRefresh() {
    EntityPointer pointer = store.loadEntity(warehouse, identifier).orElse(null);
    if (pointer == null || pointer.kind() != EntityKind.VIEW) {
      if (currentMetadataLocation() != null) {
        throw new NoSuchViewException("View does not exist: %s", identifier);
      }
      disableRefresh();
      return;
    }
    refreshFromMetadataLocation(
        pointer.metadataLocation(), null, 3, location -> cache.view(location, io));
  }

  @Override
  protected void doCommit(ViewMetadata base, ViewMetadata metadata) {
    placement.checkView(identifier, base, metadata);
    String newLocation = writeNewMetadataIfRequired(metadata);
    try {
      if (base == null) {
        store.createEntity(warehouse, identifier, EntityKind.VIEW, newLocation);
      } else {
        store.swap(
            warehouse,
            List.of(
                new PointerSwap(
                    identifier, EntityKind.VIEW, base.metadataFileLocation(), newLocation)));
      }
    } catch (RuntimeException e) {
      if (StoreTableOperations.isDefiniteFailure(e)) {
        io.deleteFile(newLocation);
      }
      throw e;
    }
    requestRefresh();
  }
}
