package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules for where the tables, views and namespaces of one warehouse put their files, checked
 * before a commit writes anything:
 *
 * <ul>
 *   <li>every location (a table's {@code location}, its {@code write.data.path}, {@code
 *       write.metadata.path} and object-storage path, a view's location, a namespace's {@code
 *       location} property) lies under the warehouse or an allowed location ({@link
 *       TableLocations#checkAllowed}); a table's data and metadata paths lie under its own
 *       location;
 *   <li>no table's location is, lies inside or contains another table's location (or its data or
 *       metadata path), in any namespace of the warehouse, so no table can reach another's files; a
 *       view or namespace location may not lie inside a table's;
 *   <li>a table is registered only from a metadata file in its namespace's directory of the
 *       warehouse ({@link TableLocations#namespaceDirectory}), and only if its location lies there
 *       too.
 * </ul>
 *
 * <p>A violation of the first rule is a {@link BadRequestException} (400); a location that would
 * reach another table's files or another namespace's metadata is a {@link ForbiddenException}
 * (403). Both name the location and the rule.
 *
 * <p><b>Concurrency.</b> Commits that place a table (create, register, or change a location) run
 * their check and their pointer write under one lock per warehouse ({@link #placing}): this
 * process's own lock, and inside it the metadata store's placement lock ({@link
 * MetadataStore#underPlacementLock}), which server processes sharing one PostgreSQL database share.
 * So no two creates, in one process or in several, can both claim overlapping locations.
 *
 * <p>The overlap check looks at the tables that may overlap the location, found in a {@link
 * PlacementIndex} when the store is this process's alone (SQLite), so that a create costs the same
 * at 100,000 tables as at 100. With a store other processes share (PostgreSQL), it reads the
 * current metadata location of every table of the warehouse (one query) instead, a microsecond or
 * so per table. Either way the locations a table's metadata file names are read once and kept.
 * Thread safe.
 */
final class TablePlacement {
  private static final Logger LOG = LoggerFactory.getLogger(TablePlacement.class);

  /** The table properties that name where a table's files go, besides its location. */
  static final List<String> PATH_PROPERTIES =
      List.of(
          TableProperties.WRITE_DATA_LOCATION,
          TableProperties.WRITE_METADATA_LOCATION,
          "write.object-storage.path",
          "write.folder-storage.path");

  /**
   * For how many tables the locations their metadata files name are kept: a warehouse of this many
   * tables is checked without reading any metadata file (an entry takes a few hundred bytes).
   */
  static final int MAX_KEPT_TABLES = 200_000;

  private final String warehouse;
  private final TableLocations locations;
  private final MetadataStore store;
  private final FileIO io;
  private final MetadataCache cache;
  private final ReentrantLock lock = new ReentrantLock();
  // Per table, the locations named by the metadata file it pointed at when last checked. A metadata
  // file never changes once a table points at it, so an entry is true while the table still points
  // there (checked on every use); the map is emptied when full.
  private final Map<TableIdentifier, Occupied> occupiedByTable = new ConcurrentHashMap<>();
  private volatile Map<TableIdentifier, List<String>> firstLocations;
  // Where the tables lie, when the store is this process's alone (see tablesNear); built on first
  // use, then changed only under the lock.
  private final boolean indexed;
  private volatile PlacementIndex index;

  TablePlacement(
      String warehouse,
      TableLocations locations,
      MetadataStore store,
      FileIO io,
      MetadataCache cache) {
    this.warehouse = requireNonNull(warehouse, "warehouse is null");
    this.locations = requireNonNull(locations, "locations is null");
    this.store = requireNonNull(store, "store is null");
    this.io = requireNonNull(io, "io is null");
    this.cache = requireNonNull(cache, "cache is null");
    this.indexed = !store.sharedByProcesses();
  }

  TableLocations locations() {
    return locations;
  }

  /**
   * Whether no table of the warehouse but {@code identifier} occupies {@code location}, lies in it
   * or around it: a default location that is taken (a table renamed away keeps its directory) is
   * made unique instead of refusing the create.
   */
  boolean isFree(TableIdentifier identifier, String location) {
    String canonical = TableLocations.canonical(location);
    for (Map.Entry<TableIdentifier, List<String>> table :
        tablesNear(List.of(canonical)).entrySet()) {
      if (table.getKey().equals(identifier)) {
        continue;
      }
      for (String occupied : table.getValue()) {
        if (TableLocations.overlap(occupied, canonical)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether a commit from {@code base} (null: a create) to {@code updated} places the table. */
  static boolean places(TableMetadata base, TableMetadata updated) {
    if (base == null) {
      return true;
    }
    if (!Objects.equals(base.location(), updated.location())) {
      return true;
    }
    for (String property : PATH_PROPERTIES) {
      if (!Objects.equals(base.properties().get(property), updated.properties().get(property))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs {@code commit} under the warehouse's placement lock when {@code placing}, else at once.
   */
  <T> T placing(boolean placing, Supplier<T> commit) {
    if (!placing) {
      return commit.get();
    }
    lock.lock();
    try {
      return store.underPlacementLock(warehouse, commit);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The canonical locations of other tables that lie inside {@code own} (the locations of table
   * {@code identifier}), where the table's files must not be: the location rules refuse such
   * nesting, so only tables placed before them can have it. The warehouse's table locations are
   * read once, when first asked, and kept: a table placed later can neither lie in nor contain
   * another, so the answer can only lose tables (dropped since), which makes it stricter, never
   * laxer. A location equal to one of {@code own} is the table's own (under a name it had before a
   * rename) and left out.
   */
  List<String> locationsNestedIn(TableIdentifier identifier, List<String> own) {
    Map<TableIdentifier, List<String>> tables = firstLocations;
    if (tables == null) {
      tables = Map.copyOf(tableLocations());
      firstLocations = tables;
    }
    List<String> nested = new ArrayList<>();
    for (Map.Entry<TableIdentifier, List<String>> table : tables.entrySet()) {
      if (table.getKey().equals(identifier)) {
        continue;
      }
      for (String location : table.getValue()) {
        if (!own.contains(location) && TableFiles.liesIn(location, own)) {
          nested.add(location);
        }
      }
    }
    return nested;
  }

  /**
   * Checks where a table commit puts the table's files; does nothing for a commit that changes no
   * location.
   *
   * @param registering whether the commit registers an existing metadata file
   */
  void checkTable(
      TableIdentifier identifier, TableMetadata base, TableMetadata updated, boolean registering) {
    checkTable(identifier, base, updated, registering, Map.of());
  }

  /**
   * Like {@link #checkTable(TableIdentifier, TableMetadata, TableMetadata, boolean)}, also against
   * tables placed earlier in the same multi-table transaction.
   *
   * @param pending the tables of the transaction checked so far, with the locations they will
   *     occupy (see {@link #occupied(TableMetadata)}); they replace what the store holds for them
   */
  void checkTable(
      TableIdentifier identifier,
      TableMetadata base,
      TableMetadata updated,
      boolean registering,
      Map<TableIdentifier, List<String>> pending) {
    if (!places(base, updated)) {
      return;
    }
    checkTableLocation(identifier, updated.location(), updated.properties(), registering, pending);
  }

  /**
   * Checks a table's location and path properties against the rules, as a commit that places the
   * table there would (see {@link #checkTable}).
   */
  void checkTableLocation(
      TableIdentifier identifier,
      String location,
      Map<String, String> properties,
      boolean registering) {
    checkTableLocation(identifier, location, properties, registering, Map.of());
  }

  private void checkTableLocation(
      TableIdentifier identifier,
      String location,
      Map<String, String> properties,
      boolean registering,
      Map<TableIdentifier, List<String>> pending) {
    String what = "table " + identifier;
    if (location == null) {
      throw new BadRequestException("Invalid %s: it has no location", what);
    }
    String canonical = locations.checkAllowed(location, what);
    // Canonical location -> as the client spelled it, for the messages.
    Map<String, String> claimed = new LinkedHashMap<>();
    claimed.put(canonical, location);
    for (String property : PATH_PROPERTIES) {
      String path = properties.get(property);
      if (path == null) {
        continue;
      }
      String canonicalPath = locations.checkAllowed(path, what + " (" + property + ")");
      if (!TableLocations.contains(canonical, canonicalPath)) {
        throw new BadRequestException(
            "Invalid %s '%s' of %s: it must lie under the table's location '%s'",
            property, path, what, location);
      }
      claimed.put(canonicalPath, path);
    }
    if (registering) {
      String directory = locations.namespaceDirectory(identifier.namespace());
      if (!TableLocations.contains(directory, canonical) || directory.equals(canonical)) {
        throw new ForbiddenException(
            "Cannot register %s at location '%s': a registered table must lie in its namespace's"
                + " directory '%s'",
            identifier, location, directory);
      }
    }
    Map<TableIdentifier, List<String>> others = tablesNear(claimed.keySet());
    others.putAll(pending);
    for (Map.Entry<TableIdentifier, List<String>> other : others.entrySet()) {
      if (other.getKey().equals(identifier)) {
        continue;
      }
      for (String occupied : other.getValue()) {
        for (Map.Entry<String, String> mine : claimed.entrySet()) {
          if (TableLocations.overlap(occupied, mine.getKey())) {
            throw new ForbiddenException(
                "Invalid location '%s' (%s) for %s: it overlaps location '%s' of table %s; a"
                    + " table's location may not be, lie in or contain another table's",
                mine.getValue(), mine.getKey(), what, occupied, other.getKey());
          }
        }
      }
    }
  }

  /** Checks a view's location: allowed, and not in or at a table's location. */
  void checkView(TableIdentifier identifier, ViewMetadata base, ViewMetadata updated) {
    if (base != null && Objects.equals(base.location(), updated.location())) {
      return;
    }
    if (base == null && store.loadEntity(warehouse, identifier).isPresent()) {
      return; // the create fails as a name taken, which says more than its default location
    }
    String what = "view " + identifier;
    if (updated.location() == null) {
      throw new BadRequestException("Invalid %s: it has no location", what);
    }
    checkNotInTable(locations.checkAllowed(updated.location(), what), updated.location(), what);
  }

  /** Checks a namespace's {@code location} property, if set: allowed and not in a table. */
  void checkNamespace(Namespace namespace, Map<String, String> properties) {
    String location = properties.get("location");
    if (location == null) {
      return;
    }
    String what = "namespace " + namespace;
    checkNotInTable(locations.checkAllowed(location, what), location, what);
  }

  /**
   * Checks the metadata file a table is to be registered from, before it is read: it must lie in
   * the namespace's directory of the warehouse.
   */
  void checkRegistered(TableIdentifier identifier, String metadataFileLocation) {
    String canonical = TableLocations.canonical(metadataFileLocation);
    String directory = locations.namespaceDirectory(identifier.namespace());
    if (!TableLocations.contains(directory, canonical) || directory.equals(canonical)) {
      throw new ForbiddenException(
          "Cannot register %s from metadata file '%s': it must lie in the namespace's directory"
              + " '%s'",
          identifier, metadataFileLocation, directory);
    }
  }

  private void checkNotInTable(String canonical, String location, String what) {
    for (Map.Entry<TableIdentifier, List<String>> table :
        tablesNear(List.of(canonical)).entrySet()) {
      for (String occupied : table.getValue()) {
        if (TableLocations.contains(occupied, canonical)) {
          throw new ForbiddenException(
              "Invalid location '%s' for %s: it lies in location '%s' of table %s",
              location, what, occupied, table.getKey());
        }
      }
    }
  }

  /**
   * The canonical locations occupied by every table that may have a location overlapping one of
   * {@code canonicalLocations}: all tables, when other processes may place tables in the store;
   * else only the candidates of the {@link PlacementIndex}, each with the locations of its current
   * metadata (a candidate that is no longer a table is left out). The caller checks overlaps on
   * what this returns, so the index only has to hold every table that does lie there.
   */
  private Map<TableIdentifier, List<String>> tablesNear(Collection<String> canonicalLocations) {
    if (!indexed) {
      return tableLocations();
    }
    Map<TableIdentifier, List<String>> near = new LinkedHashMap<>();
    for (TableIdentifier table : index().overlapping(canonicalLocations)) {
      store
          .loadEntity(warehouse, table)
          .filter(pointer -> pointer.kind() == EntityKind.TABLE)
          .ifPresent(pointer -> near.put(table, occupied(table, pointer.metadataLocation())));
    }
    return near;
  }

  /** The index, built from every table's locations when first asked. */
  private PlacementIndex index() {
    PlacementIndex current = index;
    if (current != null) {
      return current;
    }
    lock.lock();
    try {
      if (index == null) {
        PlacementIndex built = new PlacementIndex();
        tableLocations().forEach(built::add);
        index = built;
      }
      return index;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records, before the commit that places {@code table} at {@code occupied} (and under the lock
   * {@link #placing} holds), that it lies there: a check running meanwhile must find it whether the
   * commit lands or not.
   */
  void claim(TableIdentifier table, List<String> occupied) {
    PlacementIndex current = index;
    if (current != null) {
      current.add(table, occupied);
    }
  }

  /**
   * Records, after a commit placed {@code table} at {@code occupied} (under the lock {@link
   * #placing} holds), that it lies there alone: its locations before the commit are free.
   */
  void placed(TableIdentifier table, List<String> occupied) {
    PlacementIndex current = index;
    if (current != null) {
      current.set(table, occupied);
    }
  }

  /**
   * Runs the drop of {@code table} under the placement lock, and forgets its locations once it is
   * dropped.
   */
  <T> Optional<T> dropping(TableIdentifier table, Supplier<Optional<T>> drop) {
    if (!indexed) {
      return drop.get();
    }
    lock.lock();
    try {
      Optional<T> dropped = drop.get();
      PlacementIndex current = index;
      if (dropped.isPresent() && current != null) {
        current.remove(table);
      }
      return dropped;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs the rename of table {@code from} to {@code to} under the placement lock: its locations are
   * recorded under the new name before, and forgotten under the old one only after the rename.
   */
  void renaming(TableIdentifier from, TableIdentifier to, Runnable rename) {
    if (!indexed) {
      rename.run();
      return;
    }
    lock.lock();
    try {
      PlacementIndex current = index;
      if (current != null) {
        current.copy(from, to);
      }
      rename.run();
      if (current != null) {
        current.remove(from);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The canonical locations every table of the warehouse occupies: its location and its data and
   * metadata paths. A table whose metadata cannot be read (dropped meanwhile) is left out. One read
   * of the store; the locations a metadata file names are worked out once and kept.
   */
  Map<TableIdentifier, List<String>> tableLocations() {
    Map<TableIdentifier, String> tables = store.tableMetadataLocations(warehouse);
    Map<TableIdentifier, List<String>> result = new LinkedHashMap<>(tables.size() * 2);
    for (Map.Entry<TableIdentifier, String> table : tables.entrySet()) {
      result.put(table.getKey(), occupied(table.getKey(), table.getValue()));
    }
    return result;
  }

  private List<String> occupied(TableIdentifier table, String metadataLocation) {
    // Keyed by the table, whose name hashes faster than its metadata file's location.
    Occupied known = occupiedByTable.get(table);
    if (known != null && known.metadataLocation().equals(metadataLocation)) {
      return known.locations();
    }
    TableMetadata metadata;
    try {
      metadata = cache.table(metadataLocation, io);
    } catch (NotFoundException e) {
      LOG.debug("Cannot read the metadata of {} to check locations against it", table, e);
      return List.of();
    }
    List<String> occupied = List.copyOf(occupied(metadata));
    if (occupiedByTable.size() >= MAX_KEPT_TABLES) {
      occupiedByTable.clear();
    }
    occupiedByTable.put(table, new Occupied(metadataLocation, occupied));
    return occupied;
  }

  /** The canonical locations that a table's metadata file names. */
  private record Occupied(String metadataLocation, List<String> locations) {}

  /** The canonical locations a table with this metadata occupies. */
  static List<String> occupied(TableMetadata metadata) {
    List<String> occupied = new ArrayList<>();
    addCanonical(occupied, metadata.location());
    for (String property : PATH_PROPERTIES) {
      addCanonical(occupied, metadata.properties().get(property));
    }
    return occupied;
  }

  private static void addCanonical(List<String> occupied, String location) {
    if (location == null) {
      return;
    }
    try {
      occupied.add(TableLocations.canonical(location));
    } catch (BadRequestException e) {
      occupied.add(location); // a location of another scheme can only collide with itself
    }
  }
}
