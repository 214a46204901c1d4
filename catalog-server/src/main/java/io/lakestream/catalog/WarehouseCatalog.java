package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.view.BaseMetastoreViewCatalog;
import org.apache.iceberg.view.ViewOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg {@link org.apache.iceberg.catalog.Catalog} of one warehouse: namespaces, tables and
 * views whose state lives in the {@link MetadataStore} and whose files live under the warehouse
 * location. Iceberg's REST handlers run on top of it. Thread safe: it holds no mutable state of its
 * own.
 */
public final class WarehouseCatalog extends BaseMetastoreViewCatalog implements SupportsNamespaces {
  private static final Logger LOG = LoggerFactory.getLogger(WarehouseCatalog.class);

  /**
   * The namespace property naming the directory below which the namespace's tables lie unless they
   * are made with a location of their own; every namespace has it.
   */
  public static final String NAMESPACE_LOCATION = "location";

  private final String warehouse;
  private final String location;
  private final MetadataStore store;
  private final FileIO io;
  private final MetadataCache cache;
  private final Map<String, String> clientStorageConfig;
  private final CommitValidator validator;
  private final TablePlacement placement;
  private final TableFileConfinement confinement;
  private final TablePurge tablePurge;
  private final ReentrantLock[] commitLocks = new ReentrantLock[64];
  private volatile java.util.function.Consumer<TableMetadata> dropListener = metadata -> {};
  private volatile java.util.function.Consumer<TableMetadata> commitListener = metadata -> {};

  /**
   * @param clientStorageConfig file-access settings handed to clients that ask for vended
   *     credentials; empty when clients need none (local storage)
   * @param validator checks every table commit before its metadata file is written, after the
   *     catalog's own rule that a table's UUID is a UUID and never changes
   * @param allowedLocations locations besides the warehouse's under which tables, views and
   *     namespaces may be placed (see {@link TablePlacement})
   */
  public WarehouseCatalog(
      String warehouse,
      String location,
      MetadataStore store,
      FileIO io,
      MetadataCache cache,
      Map<String, String> clientStorageConfig,
      CommitValidator validator,
      List<String> allowedLocations) {
    this(
        warehouse,
        location,
        store,
        io,
        cache,
        clientStorageConfig,
        validator,
        allowedLocations,
        true);
  }

  /**
   * @param confineFiles whether commits may name only files in the table's own location (see {@link
   *     TableFileConfinement}); false only for test suites that append made-up paths
   */
  public WarehouseCatalog(
      String warehouse,
      String location,
      MetadataStore store,
      FileIO io,
      MetadataCache cache,
      Map<String, String> clientStorageConfig,
      CommitValidator validator,
      List<String> allowedLocations,
      boolean confineFiles) {
    this.warehouse = requireNonNull(warehouse, "warehouse is null");
    this.location = stripTrailingSlash(requireNonNull(location, "location is null"));
    this.store = requireNonNull(store, "store is null");
    this.io = requireNonNull(io, "io is null");
    this.cache = requireNonNull(cache, "cache is null");
    this.clientStorageConfig = Map.copyOf(clientStorageConfig);
    this.validator =
        CommitValidator.TABLE_UUID.andThen(requireNonNull(validator, "validator is null"));
    this.placement =
        new TablePlacement(
            warehouse, new TableLocations(this.location, allowedLocations), store, io, cache);
    this.confinement = confineFiles ? new TableFileConfinement(placement, io) : null;
    this.tablePurge = new TablePurge(io);
    for (int i = 0; i < commitLocks.length; i++) {
      commitLocks[i] = new ReentrantLock();
    }
  }

  /** Settings a client needs to read and write this warehouse's files; empty for local storage. */
  public Map<String, String> clientStorageConfig() {
    return clientStorageConfig;
  }

  @Override
  public String name() {
    return warehouse;
  }

  public String location() {
    return location;
  }

  public MetadataStore store() {
    return store;
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new StoreTableOperations(
        store,
        warehouse,
        identifier,
        io,
        cache,
        validator,
        placement,
        confinement,
        metadata -> commitListener.accept(metadata));
  }

  @Override
  protected ViewOperations newViewOps(TableIdentifier identifier) {
    return new StoreViewOperations(store, warehouse, identifier, io, cache, placement);
  }

  /**
   * Runs a commit to one table while no other commit to that table runs through this catalog
   * object. The metadata store still arbitrates every commit (other processes may share it); this
   * only keeps concurrent commits in one process from each writing a metadata file of which at most
   * one can win the pointer swap: a commit that waited reads the new current metadata, and if its
   * requirements no longer hold it fails before writing anything.
   */
  public <T> T commitExclusively(TableIdentifier identifier, Supplier<T> commit) {
    ReentrantLock lock = commitLock(identifier);
    lock.lock();
    try {
      return commit.get();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits while a commit to the table runs through this catalog object (see {@link
   * #commitExclusively}); returns at once when none does. A client loads a table before it commits:
   * loaded during a commit, it would get the metadata that commit is replacing and its own commit
   * would be bound to fail its requirements; loaded after, it gets the commit's result. A commit
   * takes milliseconds, so the wait is short; a load never blocks a commit.
   */
  public void awaitRunningCommit(TableIdentifier identifier) {
    ReentrantLock lock = commitLock(identifier);
    if (lock.isLocked()) {
      lock.lock();
      lock.unlock();
    }
  }

  private ReentrantLock commitLock(TableIdentifier identifier) {
    return commitLocks[Math.floorMod(identifier.hashCode(), commitLocks.length)];
  }

  /**
   * The current metadata of a table from one pointer read, without building table operations: the
   * fast path of loadTable. The metadata may come from memory, but only while its file exists (see
   * {@link #metadataFileExists}).
   *
   * @throws NotFoundException if the table's current metadata file is gone (deleted or moved
   *     outside the catalog), as a load that read the file would fail
   */
  public Optional<TableMetadata> currentTableMetadata(TableIdentifier identifier) {
    return store
        .loadEntity(warehouse, identifier)
        .filter(pointer -> pointer.kind() == EntityKind.TABLE)
        .map(
            pointer -> {
              String metadataLocation = pointer.metadataLocation();
              if (!metadataFileExists(metadataLocation)) {
                throw new NotFoundException(
                    "Failed to open input stream for file: %s (the current metadata file of %s"
                        + " is missing)",
                    metadataLocation, identifier);
              }
              return cache.table(metadataLocation, io);
            });
  }

  /**
   * Whether the metadata file at {@code location} still exists. Answers kept in memory for a
   * metadata file (parsed metadata, serialized loadTable bodies) must not outlive the file: a
   * client given one would fail to read the table anyway, and Iceberg's catalogs fail such a load.
   * One file system call on local storage, one HEAD request on object storage; far cheaper than the
   * read and parse the memory saves.
   */
  public boolean metadataFileExists(String location) {
    return io.newInputFile(location).exists();
  }

  /**
   * Whether {@link #metadataFileExists} costs no more than a local file system call, so that a
   * caller which must not wait (an event loop) may ask it.
   */
  public boolean checksFilesLocally() {
    return io instanceof LocalFileIO;
  }

  /**
   * The current metadata file location of a table, if it can be read without waiting (see {@link
   * MetadataStore#loadEntityWithoutWaiting}) and no commit of this process is changing the table
   * right now. Empty tells nothing: ask {@link #currentTableMetadata} on a thread that may wait.
   */
  public Optional<String> currentMetadataLocationWithoutWaiting(TableIdentifier identifier) {
    if (commitLock(identifier).isLocked()) {
      return Optional.empty();
    }
    return store
        .loadEntityWithoutWaiting(warehouse, identifier)
        .filter(pointer -> pointer.kind() == EntityKind.TABLE)
        .map(EntityPointer::metadataLocation);
  }

  /**
   * The JSON text of the table metadata file at {@code location}, byte for byte, if the catalog
   * holds it in memory (it does for the current metadata of a table it served or committed lately,
   * unless the file is compressed). Never reads the file.
   */
  public Optional<byte[]> cachedTableJson(String location) {
    return cache.tableJson(location);
  }

  /**
   * The location of a table made without one: {@code <namespace location>/<table name>} (the name
   * as {@link TableLocations#segment} spells it in a location), below the namespace's {@value
   * #NAMESPACE_LOCATION} property (see {@link #loadNamespaceMetadata}), with a unique suffix when
   * another table occupies that directory.
   *
   * @throws NoSuchNamespaceException if the table's namespace does not exist
   */
  @Override
  protected String defaultWarehouseLocation(TableIdentifier identifier) {
    String namespaceLocation =
        loadNamespaceMetadata(identifier.namespace()).get(NAMESPACE_LOCATION);
    String location =
        stripTrailingSlash(namespaceLocation) + "/" + TableLocations.segment(identifier.name());
    if (placement.isFree(identifier, location)) {
      return location;
    }
    // Another table still lives there (renamed away, or made there with an explicit location):
    // a suffix keeps the two apart, as Trino's unique table locations do.
    return location + "-" + UUID.randomUUID().toString().replace("-", "");
  }

  /**
   * The location a namespace gets when it is made without one, and shows when it was stored without
   * one: {@code <warehouse location>/<level>/<level>...} (each level as {@link
   * TableLocations#segment} spells it), e.g. {@code file:/data/warehouse/sales/eu} for {@code
   * sales.eu}.
   */
  public String defaultNamespaceLocation(Namespace namespace) {
    StringBuilder path = new StringBuilder(location);
    for (String level : namespace.levels()) {
      path.append('/').append(TableLocations.segment(level));
    }
    return path.toString();
  }

  /** The properties with {@value #NAMESPACE_LOCATION} set to the default if they lack one. */
  private Map<String, String> withNamespaceLocation(
      Namespace namespace, Map<String, String> properties) {
    String own = properties.get(NAMESPACE_LOCATION);
    if (own != null && !own.isBlank()) {
      return properties;
    }
    Map<String, String> result = new HashMap<>(properties);
    result.put(NAMESPACE_LOCATION, defaultNamespaceLocation(namespace));
    return result;
  }

  /**
   * Registers a table from an existing metadata file, which must lie in the namespace's directory
   * of the warehouse, as must the table's location (see {@link TablePlacement}); a {@code local:}
   * location is read as the {@code file:} one it names.
   *
   * @throws org.apache.iceberg.exceptions.ForbiddenException if the file or the table's location
   *     lies elsewhere or the location overlaps another table's
   */
  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    if (metadataFileLocation == null || metadataFileLocation.isEmpty()) {
      throw new BadRequestException("Cannot register %s: no metadata file location", identifier);
    }
    placement.checkRegistered(identifier, metadataFileLocation);
    return super.registerTable(identifier, TableLocations.readable(metadataFileLocation));
  }

  /**
   * Checks, before anything is written, that a table could be placed at {@code location} with these
   * properties (see {@link TablePlacement}): what a stage-create answers at once, rather than at
   * its commit (which checks again).
   *
   * @throws BadRequestException if the location lies outside the allowed locations
   * @throws org.apache.iceberg.exceptions.ForbiddenException if it overlaps another table's
   */
  public void checkTableLocation(
      TableIdentifier identifier, String location, Map<String, String> properties) {
    placement.checkTableLocation(identifier, location, properties, false);
  }

  @Override
  protected boolean isValidIdentifier(TableIdentifier identifier) {
    return !identifier.namespace().isEmpty();
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return store.listEntities(warehouse, namespace, EntityKind.TABLE);
  }

  /** Runs after a table is dropped, with its last metadata (the server drops its stream data). */
  public void onTableDropped(java.util.function.Consumer<TableMetadata> listener) {
    this.dropListener = requireNonNull(listener, "listener is null");
  }

  /**
   * Tells {@code listener} of the new metadata of every table commit (creates included), once the
   * commit is in. It runs in the committing thread: it must be quick and must not throw.
   */
  public void onTableCommitted(java.util.function.Consumer<TableMetadata> listener) {
    this.commitListener = requireNonNull(listener, "listener is null");
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    Optional<EntityPointer> dropped =
        placement.dropping(
            identifier, () -> store.dropEntity(warehouse, identifier, EntityKind.TABLE));
    if (dropped.isEmpty()) {
      return false;
    }
    try {
      dropListener.accept(cache.table(dropped.get().metadataLocation(), io));
    } catch (RuntimeException e) {
      LOG.warn("Dropped table {} but its drop listener failed", identifier, e);
    }
    if (purge) {
      try {
        TableMetadata metadata = cache.table(dropped.get().metadataLocation(), io);
        // Read after the drop: the dropped table is no longer among the others.
        tablePurge.purge(identifier, metadata, placement.tableLocations());
      } catch (NotFoundException | UnsupportedOperationException e) {
        LOG.warn("Dropped table {} but could not purge all of its files", identifier, e);
      }
    }
    return true;
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    placement.renaming(from, to, () -> store.renameEntity(warehouse, from, to, EntityKind.TABLE));
  }

  /**
   * Commits changes to several tables atomically: every table's requirements are checked against
   * its current metadata and every new metadata file is written first, then all pointers swap in
   * one database transaction. Either every table changes or none does.
   *
   * <p>A change whose requirements include {@code assert-create} creates its table: its updates
   * apply to empty metadata, and the table must not exist when the transaction commits. This is how
   * Iceberg clients create tables inside a transaction.
   *
   * @throws CommitFailedException if a requirement fails, a table changed concurrently or a table
   *     to create exists; nothing changed
   * @throws NoSuchTableException if a table to change does not exist
   * @throws NoSuchNamespaceException if the namespace of a table to create does not exist
   * @throws CommitStateUnknownException if the database failed while committing; the new metadata
   *     files are kept, since the catalog may point at them
   */
  public void commitTransaction(List<UpdateTableRequest> changes) {
    boolean placing =
        changes.stream()
                .flatMap(change -> change.updates().stream())
                .anyMatch(
                    update ->
                        update instanceof MetadataUpdate.SetLocation
                            || update instanceof MetadataUpdate.SetProperties
                            || update instanceof MetadataUpdate.RemoveProperties)
            || changes.stream()
                .flatMap(change -> change.requirements().stream())
                .anyMatch(
                    requirement ->
                        requirement instanceof UpdateRequirement.AssertTableDoesNotExist);
    placement.placing(
        placing,
        () -> {
          commitTransactionPlaced(changes);
          return null;
        });
  }

  private void commitTransactionPlaced(List<UpdateTableRequest> changes) {
    Set<TableIdentifier> seen = new HashSet<>();
    // The tables this transaction places, so that two of them cannot claim overlapping locations.
    Map<TableIdentifier, List<String>> placed = new java.util.HashMap<>();
    List<String> written = new ArrayList<>();
    List<PointerSwap> swaps = new ArrayList<>();
    List<TableMetadata> committed = new ArrayList<>();
    try {
      for (UpdateTableRequest change : changes) {
        TableIdentifier identifier = change.identifier();
        if (identifier == null) {
          throw new BadRequestException("Invalid table change: it names no table");
        }
        if (!seen.add(identifier)) {
          throw new BadRequestException(
              "Invalid transaction: table %s appears more than once", identifier);
        }
        StoreTableOperations operations = (StoreTableOperations) newTableOps(identifier);
        TableMetadata base = operations.refresh();
        for (UpdateRequirement requirement : change.requirements()) {
          requirement.validate(base);
        }
        boolean creates =
            change.requirements().stream()
                .anyMatch(
                    requirement ->
                        requirement instanceof UpdateRequirement.AssertTableDoesNotExist);
        if (base == null && !creates) {
          throw new NoSuchTableException("Table does not exist: %s", identifier);
        }
        TableMetadata updated = creates ? created(identifier, change) : updated(base, change);
        if (!creates && updated.changes().isEmpty()) {
          continue;
        }
        placement.checkTable(identifier, creates ? null : base, updated, false, placed);
        if (confinement != null) {
          confinement.check(identifier, creates ? null : base, updated);
        }
        if (TablePlacement.places(creates ? null : base, updated)) {
          placed.put(identifier, TablePlacement.occupied(updated));
        }
        try {
          validator.validate(creates ? null : base, updated);
        } catch (BadRequestException e) {
          throw new BadRequestException("Cannot commit %s: %s", identifier, e.getMessage());
        }
        TableMetadata file = operations.writeMetadata(updated);
        String location = file.metadataFileLocation();
        written.add(location);
        committed.add(file);
        swaps.add(
            creates
                ? PointerSwap.create(identifier, EntityKind.TABLE, location)
                : new PointerSwap(
                    identifier, EntityKind.TABLE, base.metadataFileLocation(), location));
      }
    } catch (RuntimeException e) {
      written.forEach(io::deleteFile);
      throw e;
    }
    if (swaps.isEmpty()) {
      return;
    }
    IdempotencyClaim.unrecorded().ifPresent(claim -> claim.prepareAnswer(null));
    placed.forEach(placement::claim);
    try {
      store.swap(warehouse, swaps);
    } catch (RuntimeException e) {
      if (StoreTableOperations.isDefiniteFailure(e)) {
        written.forEach(io::deleteFile);
      }
      throw e;
    }
    placed.forEach(placement::placed);
    committed.forEach(file -> cache.putTable(file.metadataFileLocation(), file, null));
    committed.forEach(file -> commitListener.accept(file));
  }

  private static TableMetadata updated(TableMetadata base, UpdateTableRequest change) {
    TableMetadata.Builder builder = TableMetadata.buildFrom(base);
    try {
      for (MetadataUpdate update : change.updates()) {
        update.applyTo(builder);
      }
      return builder.build();
    } catch (RuntimeException e) {
      // Iceberg's builder checks the updates as it applies them, some with exceptions that name
      // no condition (an unknown spec id is a NullPointerException): all are the client's mistake.
      throw new BadRequestException(
          e, "Cannot apply the updates to %s: %s", change.identifier(), describe(e));
    }
  }

  /** The first metadata of a table created in a transaction: its updates on empty metadata. */
  private static TableMetadata created(TableIdentifier identifier, UpdateTableRequest change) {
    TableMetadata.Builder builder =
        change.updates().stream()
            .filter(update -> update instanceof MetadataUpdate.UpgradeFormatVersion)
            .map(update -> ((MetadataUpdate.UpgradeFormatVersion) update).formatVersion())
            .findFirst()
            .map(TableMetadata::buildFromEmpty)
            .orElseGet(TableMetadata::buildFromEmpty);
    TableMetadata metadata;
    try {
      for (MetadataUpdate update : change.updates()) {
        update.applyTo(builder);
      }
      metadata = builder.build();
    } catch (RuntimeException e) {
      throw new BadRequestException(e, "Cannot create %s: %s", identifier, describe(e));
    }
    // Updates that change nothing build no metadata at all (null).
    if (metadata == null || metadata.location() == null || metadata.schemas().isEmpty()) {
      throw new BadRequestException(
          "Cannot create %s: the changes must set a location and a schema", identifier);
    }
    return metadata;
  }

  /** An exception's message when it says what is wrong, else its class and message. */
  private static String describe(RuntimeException e) {
    boolean speaks =
        e instanceof IllegalArgumentException
            || e instanceof IllegalStateException
            || e instanceof org.apache.iceberg.exceptions.ValidationException;
    return speaks && e.getMessage() != null ? e.getMessage() : e.toString();
  }

  @Override
  public List<TableIdentifier> listViews(Namespace namespace) {
    return store.listEntities(warehouse, namespace, EntityKind.VIEW);
  }

  @Override
  public boolean dropView(TableIdentifier identifier) {
    return store.dropEntity(warehouse, identifier, EntityKind.VIEW).isPresent();
  }

  @Override
  public void renameView(TableIdentifier from, TableIdentifier to) {
    store.renameEntity(warehouse, from, to, EntityKind.VIEW);
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    placement.checkNamespace(namespace, metadata);
    store.createNamespace(warehouse, namespace, withNamespaceLocation(namespace, metadata));
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return store.listNamespaces(warehouse, namespace);
  }

  /**
   * The namespace's properties, always with {@value #NAMESPACE_LOCATION}: a namespace stored
   * without one (made before namespaces got one) shows {@link #defaultNamespaceLocation}.
   */
  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    Map<String, String> properties =
        store
            .loadNamespace(warehouse, namespace)
            .orElseThrow(
                () -> new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
    return withNamespaceLocation(namespace, properties);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    return store.dropNamespace(warehouse, namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    placement.checkNamespace(namespace, properties);
    store.updateNamespaceProperties(warehouse, namespace, properties, Set.of());
    return true;
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    Map<String, String> before =
        store
            .loadNamespace(warehouse, namespace)
            .orElseThrow(
                () -> new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
    store.updateNamespaceProperties(warehouse, namespace, Map.of(), properties);
    return properties.stream().anyMatch(before::containsKey);
  }

  private static String stripTrailingSlash(String path) {
    String result = path;
    while (result.length() > 1 && result.endsWith("/")) {
      result = result.substring(0, result.length() - 1);
    }
    return result;
  }
}
