package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
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
  private final CapturingFileIO io;
  private final MetadataCache cache;
  private final CommitValidator validator;
  private final TablePlacement placement;

  /** Null when commits are not confined to the table's files. */
  private final TableFileConfinement confinement;

  private String committedLocation;

  /** Told of each table metadata this commits, once its pointer is swapped in. */
  private final java.util.function.Consumer<TableMetadata> committedListener;

  StoreTableOperations(
      MetadataStore store,
      String warehouse,
      TableIdentifier identifier,
      FileIO io,
      MetadataCache cache,
      CommitValidator validator,
      TablePlacement placement,
      TableFileConfinement confinement,
      java.util.function.Consumer<TableMetadata> committedListener) {
    this.store = requireNonNull(store, "store is null");
    this.warehouse = requireNonNull(warehouse, "warehouse is null");
    this.identifier = requireNonNull(identifier, "identifier is null");
    this.io = new CapturingFileIO(requireNonNull(io, "io is null"));
    this.cache = requireNonNull(cache, "cache is null");
    this.validator = requireNonNull(validator, "validator is null");
    this.placement = requireNonNull(placement, "placement is null");
    this.confinement = confinement;
    this.committedListener = requireNonNull(committedListener, "committedListener is null");
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
    String committed = committedLocation;
    if (committed != null) {
      // The first refresh after a commit serves what it committed (the commit's answer), not
      // whatever a concurrent commit made current since; the metadata is in the cache.
      committedLocation = null;
      refreshFromMetadataLocation(committed, null, 3, location -> cache.table(location, io));
      return;
    }
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
    placement.placing(
        TablePlacement.places(base, metadata),
        () -> {
          commitPlaced(base, metadata);
          return null;
        });
    requestRefresh();
  }

  private void commitPlaced(TableMetadata base, TableMetadata metadata) {
    boolean creating = base == null;
    // A create whose metadata already has a file location registers that file (Iceberg writes no
    // new one for it).
    boolean registering = creating && metadata.metadataFileLocation() != null;
    placement.checkTable(identifier, base, metadata, registering);
    boolean places = TablePlacement.places(base, metadata);
    List<String> occupied = places ? TablePlacement.occupied(metadata) : List.of();
    if (confinement != null) {
      confinement.check(identifier, base, metadata);
    }
    validator.validate(base, metadata);
    TableMetadata written = located(metadata, writeNewMetadataIfRequired(creating, metadata));
    String newLocation = written.metadataFileLocation();
    // Cached before the commit so that the answer prepared next copies the file's text. A file is
    // immutable, so an entry for a commit that then fails is only unused.
    cache.putTable(newLocation, written, io.written(newLocation));
    IdempotencyClaim.unrecorded().ifPresent(claim -> claim.prepareAnswer(written));
    if (places) {
      placement.claim(identifier, occupied);
    }
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
    if (places) {
      placement.placed(identifier, occupied);
    }
    committedLocation = newLocation;
    committedListener.accept(written);
  }

  /**
   * Writes the metadata file of a commit without committing it, and returns the metadata as a
   * reader of that file gets it (with its location).
   */
  TableMetadata writeMetadata(TableMetadata metadata) {
    return located(metadata, writeNewMetadataIfRequired(false, metadata));
  }

  /**
   * The metadata as a reader of the file at {@code location} gets it: {@code metadata} itself,
   * written there, with that location and without the changes that made it, which a file does not
   * hold. It is not parsed back from the file (about a tenth of a commit's catalog work for a table
   * of a few hundred snapshots); a test holds that it serializes to exactly the file's text.
   */
  private TableMetadata located(TableMetadata metadata, String location) {
    if (location.equals(metadata.metadataFileLocation())) {
      return metadata;
    }
    if (io.written(location) == null) {
      return TableMetadataParser.read(io, location);
    }
    return TableMetadata.buildFrom(metadata)
        .discardChanges()
        .withMetadataLocation(location)
        .build();
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
