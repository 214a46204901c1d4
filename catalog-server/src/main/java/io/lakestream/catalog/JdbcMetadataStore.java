package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.ServiceFailureException;

/**
 * {@link MetadataStore} on a relational database: an SQLite file embedded in the process, or
 * PostgreSQL shared by several server processes.
 *
 * <p>Pointer swaps are {@code UPDATE ... WHERE metadata_location = ?} statements inside one
 * transaction, so the database arbitrates every race. On SQLite, write transactions begin {@code
 * IMMEDIATE} (taking the write lock up front) so that two read-then-write transactions cannot
 * deadlock on lock upgrade; reads run in auto-commit mode and never block writers (WAL journal).
 *
 * <p>SQLite has one writer at a time. Write transactions of this process queue for an in-process
 * lock before they begin, rather than meeting SQLite's busy handler, which polls the database lock
 * with sleeps of one to a hundred milliseconds.
 *
 * <p>PostgreSQL runs write transactions at READ COMMITTED, where a check followed by a write is not
 * atomic by itself. Writes that depend on a namespace lock its row: {@code FOR SHARE} to create in
 * it, {@code FOR UPDATE} to drop it or change its properties. Inserts that lose a race on a primary
 * key report the name as taken, and updates and deletes count their rows, since a row can vanish
 * between the check and the write. Multi-entry swaps lock their rows in name order so that two of
 * them cannot deadlock.
 *
 * <p>The placement lock ({@link #underPlacementLock}) is, on PostgreSQL, a transaction-scoped
 * advisory lock ({@code pg_advisory_xact_lock}) per warehouse, taken in a transaction of a
 * connection of its own outside the pool (so that the work under it can use the whole pool) and
 * released when that transaction ends, or when the connection or the process dies. On SQLite, which
 * one process opens, it is the caller's own lock alone.
 *
 * <p>Listings are sorted here rather than by the database, whose collation may differ from {@link
 * String#compareTo}, the order the REST layer's page tokens rely on.
 */
public final class JdbcMetadataStore implements MetadataStore {
  /** Separates namespace levels in the database; cannot occur in a valid level name. */
  static final char LEVEL_SEPARATOR = '\u001f';

  private static final TypeReference<Map<String, String>> PROPERTIES_TYPE =
      new TypeReference<>() {};

  private static final Comparator<PointerSwap> LOCK_ORDER =
      Comparator.comparing((PointerSwap swap) -> encode(swap.identifier().namespace()))
          .thenComparing(swap -> swap.identifier().name());

  private static final String INSERT_ENTITY =
      "INSERT INTO lakestream_entities (warehouse, namespace, name, kind, metadata_location,"
          + " previous_metadata_location) VALUES (?, ?, ?, ?, ?, NULL)";

  private static final String SELECT_ENTITY =
      "SELECT kind, metadata_location, previous_metadata_location FROM lakestream_entities"
          + " WHERE warehouse = ? AND namespace = ? AND name = ?";

  private static final String SWAP_POINTER =
      "UPDATE lakestream_entities SET metadata_location = ?, previous_metadata_location = ?"
          + " WHERE warehouse = ? AND namespace = ? AND name = ? AND kind = ?"
          + " AND metadata_location = ?";

  /** The first key of this store's advisory locks, "LKST", apart from other applications'. */
  private static final int PLACEMENT_LOCK_CLASS = 0x4C4B5354;

  /** How long a placement waits for another process's placement to finish before it fails. */
  private static final int PLACEMENT_LOCK_TIMEOUT_SECONDS = 30;

  private final HikariDataSource dataSource;
  private final LockConnections lockConnections;
  private final ReentrantLock placementLock = new ReentrantLock();
  private Connection placementConnection;
  private final boolean rowLocks;
  private final Lock writeLock;
  private final ObjectMapper json = new ObjectMapper();
  private final StatementCache statements = new StatementCache();
  private final String localUrl;
  private final ThreadLocal<PreparedStatement> ownReaders = new ThreadLocal<>();
  private final Set<Connection> ownReaderConnections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * @param localUrl the URL of a database file in this process (SQLite) that a thread can read
   *     through a connection of its own without waiting, or null for a database across the network
   */
  private JdbcMetadataStore(
      HikariDataSource dataSource,
      boolean rowLocks,
      Lock writeLock,
      String localUrl,
      LockConnections lockConnections) {
    this.dataSource = requireNonNull(dataSource, "dataSource is null");
    this.lockConnections = lockConnections;
    this.rowLocks = rowLocks;
    this.writeLock = requireNonNull(writeLock, "writeLock is null");
    this.localUrl = localUrl;
  }

  /** How a read inside a write transaction locks the namespace row it finds. */
  private enum RowLock {
    NONE(""),
    SHARE(" FOR SHARE"),
    UPDATE(" FOR UPDATE");

    private final String clause;

    RowLock(String clause) {
      this.clause = clause;
    }
  }

  /**
   * Opens the store at a JDBC URL ({@code jdbc:sqlite:...} or {@code jdbc:postgresql:...}) and
   * brings its schema up to date.
   *
   * @throws IllegalArgumentException for a URL of another database
   * @throws ServiceFailureException if the database cannot be reached or migrated
   */
  public static JdbcMetadataStore open(String url, String user, String password, int poolSize) {
    requireNonNull(url, "url is null");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName("lakestream-catalog");
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(-1);
    if (url.startsWith("jdbc:sqlite:")) {
      Properties sqlite = new Properties();
      sqlite.setProperty("journal_mode", "WAL");
      sqlite.setProperty("synchronous", "FULL");
      sqlite.setProperty("busy_timeout", "10000");
      sqlite.setProperty("foreign_keys", "true");
      sqlite.setProperty("transaction_mode", "IMMEDIATE");
      config.setDataSourceProperties(sqlite);
      config.setMaximumPoolSize(poolSize);
    } else if (url.startsWith("jdbc:postgresql:")) {
      if (user != null) {
        config.setUsername(user);
      }
      if (password != null) {
        config.setPassword(password);
      }
      config.setMaximumPoolSize(poolSize);
    } else {
      throw new IllegalArgumentException(
          "Unsupported catalog database URL (use jdbc:sqlite: or jdbc:postgresql:): "
              + url.replaceAll("\\?.*", ""));
    }
    HikariDataSource dataSource = new HikariDataSource(config);
    try {
      MetadataSchema.migrate(dataSource);
    } catch (SQLException | RuntimeException e) {
      dataSource.close();
      throw new ServiceFailureException(
          e, "Cannot open the catalog database %s: %s", redact(url), e.getMessage());
    }
    boolean postgres = url.startsWith("jdbc:postgresql:");
    LockConnections lockConnections = null;
    if (postgres) {
      Properties credentials = new Properties();
      if (user != null) {
        credentials.setProperty("user", user);
      }
      if (password != null) {
        credentials.setProperty("password", password);
      }
      lockConnections = () -> java.sql.DriverManager.getConnection(url, credentials);
    }
    return new JdbcMetadataStore(
        dataSource,
        postgres,
        postgres ? NoLock.INSTANCE : new ReentrantLock(),
        postgres ? null : url,
        lockConnections);
  }

  /** Opens the connection outside the pool that holds the placement lock. */
  private interface LockConnections {
    Connection open() throws SQLException;
  }

  private static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  @Override
  public String ensureWarehouse(String warehouse, String location) {
    return write(
        connection -> {
          // Servers starting together on a fresh database all insert; the losers keep the winner's.
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO lakestream_warehouses (warehouse, location) VALUES (?, ?)"
                      + " ON CONFLICT (warehouse) DO NOTHING")) {
            insert.setString(1, warehouse);
            insert.setString(2, location);
            insert.executeUpdate();
          }
          return warehouseLocation(connection, warehouse).orElseThrow();
        });
  }

  @Override
  public Optional<String> warehouseLocation(String warehouse) {
    return read(connection -> warehouseLocation(connection, warehouse));
  }

  private static Optional<String> warehouseLocation(Connection connection, String warehouse)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT location FROM lakestream_warehouses WHERE warehouse = ?")) {
      select.setString(1, warehouse);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
      }
    }
  }

  @Override
  public void createNamespace(
      String warehouse, Namespace namespace, Map<String, String> properties) {
    String encoded = encode(namespace);
    String propertiesJson = toJson(properties);
    write(
        connection -> {
          Namespace parent = parent(namespace);
          if (!parent.isEmpty()
              && namespaceProperties(connection, warehouse, parent, RowLock.SHARE).isEmpty()) {
            throw new NoSuchNamespaceException(
                "Cannot create namespace %s: parent namespace %s does not exist",
                namespace, parent);
          }
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO lakestream_namespaces (warehouse, namespace, parent, properties)"
                      + " VALUES (?, ?, ?, ?)")) {
            insert.setString(1, warehouse);
            insert.setString(2, encoded);
            insert.setString(3, encode(parent));
            insert.setString(4, propertiesJson);
            insertUnique(
                insert,
                () -> new AlreadyExistsException("Namespace already exists: %s", namespace));
          }
          return null;
        });
  }

  @Override
  public Optional<Map<String, String>> loadNamespace(String warehouse, Namespace namespace) {
    return read(connection -> namespaceProperties(connection, warehouse, namespace, RowLock.NONE));
  }

  private Optional<Map<String, String>> namespaceProperties(
      Connection connection, String warehouse, Namespace namespace, RowLock lock)
      throws SQLException {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT properties FROM lakestream_namespaces WHERE warehouse = ? AND namespace = ?"
                + (rowLocks ? lock.clause : ""))) {
      select.setString(1, warehouse);
      select.setString(2, encode(namespace));
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(fromJson(rows.getString(1))) : Optional.empty();
      }
    }
  }

  @Override
  public List<Namespace> listNamespaces(String warehouse, Namespace parent) {
    return read(
        connection -> {
          requireNamespace(connection, warehouse, parent);
          List<Namespace> children = new ArrayList<>();
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT namespace FROM lakestream_namespaces WHERE warehouse = ? AND parent = ?")) {
            select.setString(1, warehouse);
            select.setString(2, encode(parent));
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                children.add(decode(rows.getString(1)));
              }
            }
          }
          // Siblings share every level but the last.
          children.sort(Comparator.comparing(child -> child.level(child.length() - 1)));
          return children;
        });
  }

  private void requireNamespace(Connection connection, String warehouse, Namespace namespace)
      throws SQLException {
    if (!namespace.isEmpty()
        && namespaceProperties(connection, warehouse, namespace, RowLock.NONE).isEmpty()) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
    }
  }

  @Override
  public boolean dropNamespace(String warehouse, Namespace namespace) {
    String encoded = encode(namespace);
    return write(
        connection -> {
          if (namespaceProperties(connection, warehouse, namespace, RowLock.UPDATE).isEmpty()) {
            return false;
          }
          if (exists(
                  connection,
                  "SELECT 1 FROM lakestream_namespaces WHERE warehouse = ? AND parent = ?",
                  warehouse,
                  encoded)
              || exists(
                  connection,
                  "SELECT 1 FROM lakestream_entities WHERE warehouse = ? AND namespace = ?",
                  warehouse,
                  encoded)) {
            throw new NamespaceNotEmptyException(
                "Namespace %s is not empty: it holds namespaces, tables or views", namespace);
          }
          try (PreparedStatement delete =
              connection.prepareStatement(
                  "DELETE FROM lakestream_namespaces WHERE warehouse = ? AND namespace = ?")) {
            delete.setString(1, warehouse);
            delete.setString(2, encoded);
            return delete.executeUpdate() == 1;
          }
        });
  }

  @Override
  public Map<String, String> updateNamespaceProperties(
      String warehouse, Namespace namespace, Map<String, String> updates, Set<String> removals) {
    return write(
        connection -> {
          Map<String, String> properties =
              namespaceProperties(connection, warehouse, namespace, RowLock.UPDATE)
                  .orElseThrow(
                      () ->
                          new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
          Map<String, String> updated = new TreeMap<>(properties);
          removals.forEach(updated::remove);
          updated.putAll(updates);
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE lakestream_namespaces SET properties = ?"
                      + " WHERE warehouse = ? AND namespace = ?")) {
            update.setString(1, toJson(updated));
            update.setString(2, warehouse);
            update.setString(3, encode(namespace));
            update.executeUpdate();
          }
          return updated;
        });
  }

  @Override
  public Optional<EntityPointer> loadEntity(String warehouse, TableIdentifier identifier) {
    return read(
        connection -> {
          PreparedStatement select = statements.get(connection, SELECT_ENTITY);
          bindEntityKey(select, warehouse, identifier);
          try (ResultSet rows = select.executeQuery()) {
            return pointer(rows);
          }
        });
  }

  /**
   * On SQLite, reads through a connection of the calling thread's own, opened without a busy
   * timeout: in WAL mode a read does not wait for writers, and if the database is busy anyway the
   * read fails at once and the answer is empty. On PostgreSQL every read crosses the network, so
   * the answer is always empty.
   */
  @Override
  public Optional<EntityPointer> loadEntityWithoutWaiting(
      String warehouse, TableIdentifier identifier) {
    if (localUrl == null || closed) {
      return Optional.empty();
    }
    try {
      PreparedStatement select = ownReader();
      bindEntityKey(select, warehouse, identifier);
      try (ResultSet rows = select.executeQuery()) {
        return pointer(rows);
      }
    } catch (SQLException e) {
      return Optional.empty();
    }
  }

  private PreparedStatement ownReader() throws SQLException {
    PreparedStatement select = ownReaders.get();
    if (select != null) {
      return select;
    }
    Properties settings = new Properties();
    settings.setProperty("busy_timeout", "0");
    Connection connection = java.sql.DriverManager.getConnection(localUrl, settings);
    ownReaderConnections.add(connection);
    if (closed) { // close() may have run before the connection was listed
      closeQuietly(connection);
      throw new SQLException("The catalog database is closed");
    }
    select = connection.prepareStatement(SELECT_ENTITY);
    ownReaders.set(select);
    return select;
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // closing at shutdown; nothing is left to release
    }
  }

  private static Optional<EntityPointer> entity(
      Connection connection, String warehouse, TableIdentifier identifier) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(SELECT_ENTITY)) {
      bindEntityKey(select, warehouse, identifier);
      try (ResultSet rows = select.executeQuery()) {
        return pointer(rows);
      }
    }
  }

  private static void bindEntityKey(
      PreparedStatement select, String warehouse, TableIdentifier identifier) throws SQLException {
    select.setString(1, warehouse);
    select.setString(2, encode(identifier.namespace()));
    select.setString(3, identifier.name());
  }

  private static Optional<EntityPointer> pointer(ResultSet rows) throws SQLException {
    if (!rows.next()) {
      return Optional.empty();
    }
    return Optional.of(
        new EntityPointer(
            EntityKind.valueOf(rows.getString(1)), rows.getString(2), rows.getString(3)));
  }

  @Override
  public List<TableIdentifier> listEntities(
      String warehouse, Namespace namespace, EntityKind kind) {
    return read(
        connection -> {
          if (namespace.isEmpty()) {
            throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
          }
          requireNamespace(connection, warehouse, namespace);
          List<TableIdentifier> identifiers = new ArrayList<>();
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT name FROM lakestream_entities WHERE warehouse = ? AND namespace = ?"
                      + " AND kind = ?")) {
            select.setString(1, warehouse);
            select.setString(2, encode(namespace));
            select.setString(3, kind.name());
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                identifiers.add(TableIdentifier.of(namespace, rows.getString(1)));
              }
            }
          }
          identifiers.sort(Comparator.comparing(TableIdentifier::name));
          return identifiers;
        });
  }

  /** Only PostgreSQL is shared: SQLite's file is opened by this process alone. */
  @Override
  public boolean sharedByProcesses() {
    return postgres();
  }

  @Override
  public Map<TableIdentifier, String> tableMetadataLocations(String warehouse) {
    return read(
        connection -> {
          Map<TableIdentifier, String> tables = new LinkedHashMap<>();
          // Tables of a namespace come together: its levels are split once.
          Map<String, Namespace> namespaces = new HashMap<>();
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT namespace, name, metadata_location FROM lakestream_entities"
                      + " WHERE warehouse = ? AND kind = ? ORDER BY namespace, name")) {
            select.setString(1, warehouse);
            select.setString(2, EntityKind.TABLE.name());
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                Namespace namespace =
                    namespaces.computeIfAbsent(rows.getString(1), JdbcMetadataStore::decode);
                tables.put(TableIdentifier.of(namespace, rows.getString(2)), rows.getString(3));
              }
            }
          }
          return tables;
        });
  }

  @Override
  public void createEntity(
      String warehouse, TableIdentifier identifier, EntityKind kind, String metadataLocation) {
    write(
        connection -> {
          requireNamespaceForEntity(connection, warehouse, identifier);
          Optional<EntityPointer> existing = entity(connection, warehouse, identifier);
          if (existing.isPresent()) {
            throw alreadyExists(identifier, kind, existing.get().kind());
          }
          try (PreparedStatement insert = connection.prepareStatement(INSERT_ENTITY)) {
            bindEntity(insert, warehouse, identifier, kind, metadataLocation);
            insertUnique(insert, () -> alreadyExists(identifier, kind, kind));
          }
          return null;
        });
  }

  private static void bindEntity(
      PreparedStatement insert,
      String warehouse,
      TableIdentifier identifier,
      EntityKind kind,
      String metadataLocation)
      throws SQLException {
    insert.setString(1, warehouse);
    insert.setString(2, encode(identifier.namespace()));
    insert.setString(3, identifier.name());
    insert.setString(4, kind.name());
    insert.setString(5, metadataLocation);
  }

  private void requireNamespaceForEntity(
      Connection connection, String warehouse, TableIdentifier identifier) throws SQLException {
    if (identifier.namespace().isEmpty()
        || namespaceProperties(connection, warehouse, identifier.namespace(), RowLock.SHARE)
            .isEmpty()) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", identifier.namespace());
    }
  }

  /**
   * The conflict of creating a {@code created} entry under a name an {@code existing} entry holds,
   * in the words of Iceberg's own catalogs, which its clients and its compatibility kit expect:
   * "Table already exists: ns.t" for the same kind, "View with same name already exists: ns.t" for
   * the other.
   */
  private static AlreadyExistsException alreadyExists(
      TableIdentifier identifier, EntityKind created, EntityKind existing) {
    return created == existing
        ? new AlreadyExistsException("%s already exists: %s", kindName(existing), identifier)
        : new AlreadyExistsException(
            "%s with same name already exists: %s", kindName(existing), identifier);
  }

  /** The conflict of renaming onto a name an {@code existing} entry holds, in Iceberg's words. */
  private static AlreadyExistsException renameTargetExists(
      TableIdentifier from, TableIdentifier to, EntityKind existing) {
    return new AlreadyExistsException(
        "Cannot rename %s to %s. %s already exists", from, to, kindName(existing));
  }

  private static String kindName(EntityKind kind) {
    return kind == EntityKind.VIEW ? "View" : "Table";
  }

  @Override
  public void swap(String warehouse, List<PointerSwap> swaps) {
    write(
        connection -> {
          PreparedStatement update = statements.get(connection, SWAP_POINTER);
          PreparedStatement insert = statements.get(connection, INSERT_ENTITY);
          for (PointerSwap swap : swaps.stream().sorted(LOCK_ORDER).toList()) {
            if (swap.creates()) {
              create(connection, warehouse, swap, insert);
              continue;
            }
            update.setString(1, swap.newLocation());
            update.setString(2, swap.expectedLocation());
            update.setString(3, warehouse);
            update.setString(4, encode(swap.identifier().namespace()));
            update.setString(5, swap.identifier().name());
            update.setString(6, swap.kind().name());
            update.setString(7, swap.expectedLocation());
            if (update.executeUpdate() != 1) {
              throw new CommitFailedException(
                  "Cannot commit %s: its metadata changed concurrently (expected %s)",
                  swap.identifier(), swap.expectedLocation());
            }
          }
          return null;
        });
  }

  /** The create of a multi-entry swap: a taken name is a failed requirement, not a 409 create. */
  private void create(
      Connection connection, String warehouse, PointerSwap swap, PreparedStatement insert)
      throws SQLException {
    requireNamespaceForEntity(connection, warehouse, swap.identifier());
    Supplier<CommitFailedException> taken =
        () ->
            new CommitFailedException(
                "Cannot create %s: a table or view with that name already exists",
                swap.identifier());
    if (entity(connection, warehouse, swap.identifier()).isPresent()) {
      throw taken.get();
    }
    bindEntity(insert, warehouse, swap.identifier(), swap.kind(), swap.newLocation());
    try {
      insert.executeUpdate();
    } catch (SQLException e) {
      if (isConstraintViolation(e)) {
        throw taken.get();
      }
      throw e;
    }
  }

  @Override
  public Optional<EntityPointer> dropEntity(
      String warehouse, TableIdentifier identifier, EntityKind kind) {
    return write(
        connection -> {
          Optional<EntityPointer> existing = entity(connection, warehouse, identifier);
          if (existing.isEmpty() || existing.get().kind() != kind) {
            return Optional.empty();
          }
          try (PreparedStatement delete =
              connection.prepareStatement(
                  "DELETE FROM lakestream_entities WHERE warehouse = ? AND namespace = ?"
                      + " AND name = ? AND kind = ?")) {
            delete.setString(1, warehouse);
            delete.setString(2, encode(identifier.namespace()));
            delete.setString(3, identifier.name());
            delete.setString(4, kind.name());
            // A concurrent drop may have deleted the row since it was read.
            return delete.executeUpdate() == 1 ? existing : Optional.<EntityPointer>empty();
          }
        });
  }

  @Override
  public void renameEntity(
      String warehouse, TableIdentifier from, TableIdentifier to, EntityKind kind) {
    write(
        connection -> {
          Optional<EntityPointer> source = entity(connection, warehouse, from);
          if (source.isEmpty() || source.get().kind() != kind) {
            throw noSuchEntity(from, kind);
          }
          requireNamespaceForEntity(connection, warehouse, to);
          Optional<EntityPointer> target = entity(connection, warehouse, to);
          if (target.isPresent()) {
            throw renameTargetExists(from, to, target.get().kind());
          }
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE lakestream_entities SET namespace = ?, name = ?"
                      + " WHERE warehouse = ? AND namespace = ? AND name = ? AND kind = ?")) {
            update.setString(1, encode(to.namespace()));
            update.setString(2, to.name());
            update.setString(3, warehouse);
            update.setString(4, encode(from.namespace()));
            update.setString(5, from.name());
            update.setString(6, kind.name());
            int renamed;
            try {
              renamed = update.executeUpdate();
            } catch (SQLException e) {
              if (isConstraintViolation(e)) {
                throw renameTargetExists(from, to, kind);
              }
              throw e;
            }
            // A concurrent rename or drop may have moved the row since it was read.
            if (renamed != 1) {
              throw noSuchEntity(from, kind);
            }
          }
          return null;
        });
  }

  private static RuntimeException noSuchEntity(TableIdentifier identifier, EntityKind kind) {
    return kind == EntityKind.VIEW
        ? new NoSuchViewException("View does not exist: %s", identifier)
        : new NoSuchTableException("Table does not exist: %s", identifier);
  }

  /** Runs an insert; a concurrent insert of the same key makes it throw {@code alreadyExists}. */
  private static void insertUnique(
      PreparedStatement insert, Supplier<AlreadyExistsException> alreadyExists)
      throws SQLException {
    try {
      insert.executeUpdate();
    } catch (SQLException e) {
      if (isConstraintViolation(e)) {
        throw alreadyExists.get();
      }
      throw e;
    }
  }

  /** The statements this store's hot paths reuse, for the idempotency store beside it. */
  StatementCache statements() {
    return statements;
  }

  /** Whether the database is PostgreSQL (else SQLite). */
  boolean postgres() {
    return rowLocks;
  }

  /** The connection pool, shared with the other stores kept in the same database. */
  javax.sql.DataSource dataSource() {
    return dataSource;
  }

  /**
   * Held by every write transaction of this process on a database with one writer at a time
   * (SQLite), including those of the stores sharing its connection pool; a lock that does nothing
   * on PostgreSQL.
   */
  Lock writeLock() {
    return writeLock;
  }

  /** The write lock of a database that arbitrates concurrent writers itself. */
  private enum NoLock implements Lock {
    INSTANCE;

    @Override
    public void lock() {}

    @Override
    public void lockInterruptibly() {}

    @Override
    public boolean tryLock() {
      return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
      return true;
    }

    @Override
    public void unlock() {}

    @Override
    public Condition newCondition() {
      throw new UnsupportedOperationException("No conditions on a lock that does nothing");
    }
  }

  @Override
  public <T> T underPlacementLock(String warehouse, Supplier<T> work) {
    requireNonNull(warehouse, "warehouse is null");
    requireNonNull(work, "work is null");
    if (lockConnections == null) {
      return work.get();
    }
    placementLock.lock();
    try {
      Connection connection = lockPlacement(warehouse);
      try {
        return work.get();
      } finally {
        try {
          connection.rollback(); // ends the transaction, which releases the lock
        } catch (SQLException e) {
          discardPlacementConnection(); // closing it releases the lock as well
        }
      }
    } finally {
      placementLock.unlock();
    }
  }

  /** Takes the warehouse's advisory lock in a new transaction of the placement connection. */
  private Connection lockPlacement(String warehouse) {
    try {
      Connection connection = placementConnection;
      if (connection != null && !connection.isValid(PLACEMENT_LOCK_TIMEOUT_SECONDS)) {
        discardPlacementConnection();
        connection = null;
      }
      if (connection == null) {
        connection = lockConnections.open();
        placementConnection = connection;
      }
      connection.setAutoCommit(false);
      try (java.sql.Statement timeout = connection.createStatement()) {
        timeout.execute("SET LOCAL lock_timeout = '" + PLACEMENT_LOCK_TIMEOUT_SECONDS + "s'");
      }
      try (PreparedStatement lock =
          connection.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
        lock.setInt(1, PLACEMENT_LOCK_CLASS);
        lock.setInt(2, warehouse.hashCode());
        lock.execute();
      }
      return connection;
    } catch (SQLException e) {
      discardPlacementConnection();
      throw new ServiceFailureException(
          e, "Cannot take the placement lock of warehouse %s: %s", warehouse, e.getMessage());
    }
  }

  private void discardPlacementConnection() {
    Connection connection = placementConnection;
    placementConnection = null;
    if (connection != null) {
      closeQuietly(connection);
    }
  }

  @Override
  public void close() {
    placementLock.lock();
    try {
      discardPlacementConnection();
    } finally {
      placementLock.unlock();
    }
    closed = true;
    ownReaderConnections.forEach(JdbcMetadataStore::closeQuietly);
    dataSource.close();
    statements.clear();
  }

  private static boolean exists(Connection connection, String sql, String... parameters)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        select.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = select.executeQuery()) {
        return rows.next();
      }
    }
  }

  static String encode(Namespace namespace) {
    return String.join(String.valueOf(LEVEL_SEPARATOR), namespace.levels());
  }

  static Namespace decode(String encoded) {
    if (encoded.isEmpty()) {
      return Namespace.empty();
    }
    return Namespace.of(encoded.split(String.valueOf(LEVEL_SEPARATOR), -1));
  }

  private static Namespace parent(Namespace namespace) {
    String[] levels = namespace.levels();
    return Namespace.of(Arrays.copyOf(levels, levels.length - 1));
  }

  private String toJson(Map<String, String> properties) {
    try {
      return json.writeValueAsString(new TreeMap<>(properties));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialize namespace properties", e);
    }
  }

  private Map<String, String> fromJson(String text) {
    try {
      return new LinkedHashMap<>(json.readValue(text, PROPERTIES_TYPE));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Corrupt namespace properties in the catalog database", e);
    }
  }

  private interface SqlWork<T> {
    T run(Connection connection) throws SQLException;
  }

  private <T> T read(SqlWork<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      return work.run(connection);
    } catch (SQLException e) {
      throw new ServiceFailureException(e, "Catalog database read failed: %s", e.getMessage());
    }
  }

  /**
   * Runs work in one transaction, together with the idempotency claim of the request being served
   * if it has not been recorded yet, and the answer that request prepared for this change, if any.
   * Iceberg exceptions thrown by the work roll it back and pass through; any failure of the
   * database makes the outcome unknown.
   */
  private <T> T write(SqlWork<T> work) {
    IdempotencyClaim claim = IdempotencyClaim.unrecorded().orElse(null);
    IdempotencyStore.Outcome answer = claim == null ? null : claim.takePreparedAnswer();
    T result;
    writeLock.lock();
    try (Connection connection = dataSource.getConnection()) {
      result = commit(connection, work, claim, answer, statements);
    } catch (SQLException e) {
      throw new CommitStateUnknownException(
          "Catalog database failed during a change: " + e.getMessage(), e);
    } finally {
      writeLock.unlock();
    }
    if (claim != null) {
      claim.markRecorded(answer);
    }
    return result;
  }

  private static <T> T commit(
      Connection connection,
      SqlWork<T> work,
      IdempotencyClaim claim,
      IdempotencyStore.Outcome answer,
      StatementCache statements)
      throws SQLException {
    T result;
    try {
      connection.setAutoCommit(false);
      result = work.run(connection);
      if (claim != null) {
        JdbcIdempotencyStore.insertClaim(connection, statements, claim, answer);
      }
    } catch (SQLException | RuntimeException e) {
      try {
        connection.rollback();
      } catch (SQLException rollback) {
        e.addSuppressed(rollback);
      }
      if (e instanceof SQLException sql && isConstraintViolation(sql)) {
        throw new CommitFailedException(
            sql, "Concurrent change to the same catalog entry: %s", sql.getMessage());
      }
      throw e;
    }
    connection.commit();
    return result;
  }

  private static boolean isConstraintViolation(SQLException e) {
    String state = e.getSQLState();
    return (state != null && state.startsWith("23"))
        || (e.getMessage() != null && e.getMessage().contains("SQLITE_CONSTRAINT"));
  }
}
