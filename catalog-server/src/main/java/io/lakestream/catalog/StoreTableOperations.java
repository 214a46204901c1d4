package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;

/**
 * Table operations whose commit is a pointer swap in the {@link MetadataStore}: write the new
 * metadata file, then swap the pointer from the metadata the commit started from to the new file. A
 * lost race surfaces as {@link CommitFailedException}, which clients retry.
 */
final class StoreTableOperations extends BaseMetastoreTableOperations {
  private final MetadataStore store;
  private final String warehouse;
  private final TableIdentifier identifier;
  private final FileIO io;
  private final MetadataCache cache;

  StoreTableOperations(
      MetadataStore store,
      String warehouse,
      TableIdentifier identifier,
      FileIO io,
      MetadataCache cache) {
    this.store = requireNonNull(store, "store is null");
    this.warehouse = requireNonNull(warehouse, "warehouse is null");
    this.identifier = requireNonNull(identifier, "identifier is null");
    this.io = requireNonNull(io, "io is null");
    this.cache = requireNonNull(cache, "cache is null");
  }

  @Override
  protected String tableName() {
    return warehouse + "." + identifier;
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  protected void doRefresh() {
    EntityPointer pointer = store.loadEntity(warehouse, identifier).orElse(null);
    if (pointer == null || pointer.kind() != EntityKind.TABLE) {
      if (currentMetadataLocation() != null) {
        throw new NoSuchTableException("Table does not exist: %s", identifier);
      }
      disableRefresh();
      return;
    }
    refreshFromMetadataLocation(
        pointer.metadataLocation(), null, 3, location -> cache.table(location, io));
  }

  @Override
  protected void doCommit(TableMetadata base, TableMetadata metadata) {
    boolean creating = base == null;
    String newLocation = writeNewMetadataIfRequired(creating, metadata);
    try {
      if (creating) {
        store.createEntity(warehouse, identifier, EntityKind.TABLE, newLocation);
      } else {
        store.swap(
            warehouse,
            List.of(
                new PointerSwap(
                    identifier, EntityKind.TABLE, base.metadataFileLocation(), newLocation)));
      }
    } catch (RuntimeException e) {
      if (isDefiniteFailure(e)) {
        io.deleteFile(newLocation);
      }
      throw e;
    }
    requestRefresh();
  }

  /** Writes the metadata file of a commit and returns its location, without committing it. */
  String writeMetadata(TableMetadata metadata) {
    return writeNewMetadataIfRequired(false, metadata);
  }

  /**
   * Whether a commit certainly did not happen, so that its new metadata file can be deleted. An
   * unknown outcome keeps the file: the catalog may point at it.
   */
  static boolean isDefiniteFailure(RuntimeException e) {
    return e instanceof CommitFailedException
        || e instanceof AlreadyExistsException
        || e instanceof NoSuchNamespaceException
        || e instanceof IdempotencyStore.KeyClaimedException;
  }
}
