package io.lakestream.catalog;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/**
 * The durable state of the catalog: warehouses, namespaces with their properties, and for each
 * table and view a pointer to its current metadata file.
 *
 * <p>The metadata files themselves live in the warehouse's storage and are immutable; the store
 * only holds pointers to them. Everything a catalog needs for correctness under concurrency is
 * therefore a compare-and-swap of pointers, which {@link #swap} performs atomically for any number
 * of entries at once.
 *
 * <p><b>Atomicity.</b> Every mutating method is one database transaction: it happens entirely or
 * not at all. A method that throws one of the documented Iceberg exceptions has changed nothing.
 *
 * <p><b>Failure.</b> When a mutating method cannot finish because of the database (it cannot be
 * reached, the connection drops, or the commit itself fails), it throws {@link
 * CommitStateUnknownException}: the change may or may not have been applied, as in Iceberg's {@code
 * TableOperations.commit}. The caller must assume neither outcome; in particular it must not delete
 * metadata files the change refers to. Only the documented Iceberg exceptions, such as {@link
 * CommitFailedException}, mean that nothing changed. Read methods throw {@link
 * org.apache.iceberg.exceptions.ServiceFailureException} when the database fails.
 *
 * <p><b>Concurrency.</b> Implementations are thread safe, and several server processes may share
 * one store (PostgreSQL): the guarantees above hold across processes because they rest on the
 * database's transactions, not on in-process locks.
 *
 * <p><b>Names.</b> Namespaces are hierarchical; a namespace can only be created inside an existing
 * parent and only dropped when it holds no namespace, table or view. Tables and views share one
 * name space: a view cannot take a table's name and vice versa. Names are stored exactly as given
 * (case-sensitive).
 */
public interface MetadataStore extends AutoCloseable {

  /**
   * Creates a warehouse if absent; an existing warehouse keeps its location.
   *
   * @return the warehouse's location (the existing one if it was already there)
   */
  String ensureWarehouse(String warehouse, String location);

  /** The location of a warehouse, if it exists. */
  Optional<String> warehouseLocation(String warehouse);

  /**
   * Creates a namespace.
   *
   * @throws AlreadyExistsException if it exists
   * @throws NoSuchNamespaceException if its parent does not exist
   */
  void createNamespace(String warehouse, Namespace namespace, Map<String, String> properties);

  /** A namespace's properties, or empty if the namespace does not exist. */
  Optional<Map<String, String>> loadNamespace(String warehouse, Namespace namespace);

  /**
   * The direct children of a namespace ({@link Namespace#empty()} for the top level), sorted.
   *
   * @throws NoSuchNamespaceException if {@code parent} is not empty and does not exist
   */
  List<Namespace> listNamespaces(String warehouse, Namespace parent);

  /**
   * Drops an empty namespace.
   *
   * @return false if it did not exist
   * @throws NamespaceNotEmptyException if it holds a namespace, table or view
   */
  boolean dropNamespace(String warehouse, Namespace namespace);

  /**
   * Sets and removes namespace properties in one transaction. A key may not be both set and
   * removed.
   *
   * @return the properties after the change
   * @throws NoSuchNamespaceException if the namespace does not exist
   */
  Map<String, String> updateNamespaceProperties(
      String warehouse, Namespace namespace, Map<String, String> updates, Set<String> removals);

  /** The pointer of a table or view, if one exists under that name. */
  Optional<EntityPointer> loadEntity(String warehouse, TableIdentifier identifier);

  /**
   * What {@link #loadEntity} would return, read without waiting: for a caller that must not block
   * (a network event loop). Empty when the entry does not exist <em>or</em> when the store cannot
   * read it at once (the database is remote, busy or failing); the caller then asks {@link
   * #loadEntity} on a thread that may wait, which also tells the two cases apart. Never throws for
   * a database failure. A present answer is as current as one from {@link #loadEntity}.
   */
  default Optional<EntityPointer> loadEntityWithoutWaiting(
      String warehouse, TableIdentifier identifier) {
    return Optional.empty();
  }

  /**
   * The names of the tables or views in a namespace, sorted.
   *
   * @throws NoSuchNamespaceException if the namespace does not exist
   */
  List<TableIdentifier> listEntities(String warehouse, Namespace namespace, EntityKind kind);

  /**
   * The current metadata file of every table of the warehouse, in all its namespaces, in one read
   * (a namespace's tables together): what the catalog checks a new table's location against. Empty
   * for a warehouse that holds no table.
   */
  Map<TableIdentifier, String> tableMetadataLocations(String warehouse);

  /**
   * Creates a table or view pointing at its first metadata file.
   *
   * @throws AlreadyExistsException if a table or view has that name
   * @throws NoSuchNamespaceException if the namespace does not exist
   */
  void createEntity(
      String warehouse, TableIdentifier identifier, EntityKind kind, String metadataLocation);

  /**
   * Applies every swap or none, in one transaction. A swap that {@linkplain PointerSwap#creates()
   * creates} its entry needs an existing namespace and a name that no table or view has.
   *
   * @throws CommitFailedException if any entry is missing, of another kind, no longer points at its
   *     expected location, or already exists when it is to be created; nothing changed
   * @throws NoSuchNamespaceException if the namespace of an entry to create does not exist; nothing
   *     changed
   */
  void swap(String warehouse, List<PointerSwap> swaps);

  /**
   * Drops a table or view.
   *
   * @return the dropped pointer, or empty if no entry of that kind had that name
   */
  Optional<EntityPointer> dropEntity(String warehouse, TableIdentifier identifier, EntityKind kind);

  /**
   * Renames a table or view, possibly into another namespace of the same warehouse.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if no table has the source name (for
   *     tables)
   * @throws org.apache.iceberg.exceptions.NoSuchViewException if no view has the source name (for
   *     views)
   * @throws NoSuchNamespaceException if the target namespace does not exist
   * @throws AlreadyExistsException if a table or view has the target name
   */
  void renameEntity(String warehouse, TableIdentifier from, TableIdentifier to, EntityKind kind);

  /**
   * Runs {@code work} while no other caller, in this process or in any other server process sharing
   * this store, runs work under the placement lock of the same warehouse. The catalog checks that a
   * table's location overlaps no other table's and writes the table's pointer under it, so that two
   * servers cannot both place tables at overlapping locations.
   *
   * <p>The lock is held until {@code work} returns or throws; what {@code work} writes through this
   * store's other methods is committed before the lock is released. Work must not take the
   * placement lock of another warehouse. The default runs {@code work} at once: right for a store
   * only one process opens (SQLite), where the caller's own lock suffices.
   *
   * @throws org.apache.iceberg.exceptions.ServiceFailureException if the lock cannot be taken (the
   *     database cannot be reached, or another holder keeps it past a timeout); work did not run
   */
  default <T> T underPlacementLock(String warehouse, Supplier<T> work) {
    return work.get();
  }

  /**
   * Whether server processes other than this one may change this store (PostgreSQL shared by
   * several nodes). When false, every change goes through this process, which may keep in memory
   * what it read and follow its own changes. The default, true, is the safe answer.
   */
  default boolean sharedByProcesses() {
    return true;
  }

  /** Releases connections. Idempotent. */
  @Override
  void close();
}
