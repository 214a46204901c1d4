package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.Factory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A Lakestream server as a Flink catalog: its top-level namespaces are the databases, and the
 * tables in them (streaming or plain Iceberg) the tables, with their Iceberg schemas as Flink
 * columns ({@link TableDefinitions}). Listing and reading definitions go through an Iceberg {@link
 * RESTCatalog} client; creating and dropping tables go through the stream RPC's {@code Admin}, so a
 * dropped streaming table loses its stream data as well.
 *
 * <p>The REST client is made at {@link #open()} (a server that cannot be reached fails {@code
 * CREATE CATALOG}); the stream RPC is connected on first use. Failures name the table or database
 * and the server's reason. Flink calls a catalog from one thread at a time; {@link #close()} may
 * come from another.
 */
public final class LakestreamCatalog extends AbstractCatalog {
  private final ServerAddress server;
  private volatile RESTCatalog rest;
  private Connection connection; // guarded by this

  LakestreamCatalog(String name, String defaultDatabase, ServerAddress server) {
    super(name, defaultDatabase);
    this.server = requireNonNull(server, "server is null");
  }

  @Override
  public void open() throws CatalogException {
    RESTCatalog catalog = new RESTCatalog();
    try {
      catalog.initialize(getName(), server.restCatalogProperties());
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw new CatalogException(
          "Cannot open catalog " + getName() + " on " + server + ": " + e.getMessage(), e);
    }
    rest = catalog;
  }

  @Override
  public void close() throws CatalogException {
    RESTCatalog catalog = rest;
    rest = null;
    Connection open;
    synchronized (this) {
      open = connection;
      connection = null;
    }
    try {
      if (open != null) {
        open.close();
      }
    } finally {
      if (catalog != null) {
        closeQuietly(catalog);
      }
    }
  }

  // ------------------------------------------------------------------ databases (namespaces)

  @Override
  public List<String> listDatabases() throws CatalogException {
    try {
      List<String> names = new ArrayList<>();
      for (Namespace namespace : rest().listNamespaces()) {
        names.add(namespace.level(namespace.length() - 1));
      }
      Collections.sort(names);
      return names;
    } catch (RuntimeException e) {
      throw failed("list the databases", e);
    }
  }

  @Override
  public CatalogDatabase getDatabase(String databaseName)
      throws DatabaseNotExistException, CatalogException {
    try {
      Map<String, String> properties =
          new HashMap<>(rest().loadNamespaceMetadata(Namespace.of(databaseName)));
      String comment = properties.remove(TableDefinitions.COMMENT);
      return new CatalogDatabaseImpl(properties, comment);
    } catch (NoSuchNamespaceException e) {
      throw new DatabaseNotExistException(getName(), databaseName, e);
    } catch (RuntimeException e) {
      throw failed("load database " + databaseName, e);
    }
  }

  @Override
  public boolean databaseExists(String databaseName) throws CatalogException {
    try {
      return rest().namespaceExists(Namespace.of(databaseName));
    } catch (RuntimeException e) {
      throw failed("look up database " + databaseName, e);
    }
  }

  @Override
  public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException, CatalogException {
    Map<String, String> properties = new HashMap<>(database.getProperties());
    if (database.getComment() != null && !database.getComment().isEmpty()) {
      properties.put(TableDefinitions.COMMENT, database.getComment());
    }
    try {
      rest().createNamespace(Namespace.of(name), properties);
    } catch (AlreadyExistsException e) {
      if (!ignoreIfExists) {
        throw new DatabaseAlreadyExistException(getName(), name, e);
      }
    } catch (RuntimeException e) {
      throw failed("create database " + name, e);
    }
  }

  @Override
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
      throws DatabaseNotExistException, DatabaseNotEmptyException, CatalogException {
    List<String> tables;
    try {
      tables = listTables(name);
    } catch (DatabaseNotExistException e) {
      if (ignoreIfNotExists) {
        return;
      }
      throw e;
    }
    if (!tables.isEmpty()) {
      if (!cascade) {
        throw new DatabaseNotEmptyException(getName(), name);
      }
      for (String table : tables) {
        dropStreamOrTable(new ObjectPath(name, table));
      }
    }
    try {
      rest().dropNamespace(Namespace.of(name));
    } catch (NamespaceNotEmptyException e) {
      throw new DatabaseNotEmptyException(getName(), name, e);
    } catch (NoSuchNamespaceException e) {
      if (!ignoreIfNotExists) {
        throw new DatabaseNotExistException(getName(), name, e);
      }
    } catch (RuntimeException e) {
      throw failed("drop database " + name, e);
    }
  }

  @Override
  public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists)
      throws DatabaseNotExistException, CatalogException {
    Namespace namespace = Namespace.of(name);
    try {
      Map<String, String> current = rest().loadNamespaceMetadata(namespace);
      Map<String, String> wanted = new HashMap<>(newDatabase.getProperties());
      if (newDatabase.getComment() != null && !newDatabase.getComment().isEmpty()) {
        wanted.put(TableDefinitions.COMMENT, newDatabase.getComment());
      }
      Set<String> removed = new HashSet<>(current.keySet());
      removed.removeAll(wanted.keySet());
      // The server's own namespace properties (its location) stay.
      removed.remove("location");
      if (!removed.isEmpty()) {
        rest().removeProperties(namespace, removed);
      }
      if (!wanted.isEmpty()) {
        rest().setProperties(namespace, wanted);
      }
    } catch (NoSuchNamespaceException e) {
      if (!ignoreIfNotExists) {
        throw new DatabaseNotExistException(getName(), name, e);
      }
    } catch (RuntimeException e) {
      throw failed("alter database " + name, e);
    }
  }

  // ------------------------------------------------------------------ tables

  @Override
  public List<String> listTables(String databaseName)
      throws DatabaseNotExistException, CatalogException {
    try {
      List<String> names = new ArrayList<>();
      for (TableIdentifier identifier : rest().listTables(Namespace.of(databaseName))) {
        names.add(identifier.name());
      }
      Collections.sort(names);
      return names;
    } catch (NoSuchNamespaceException e) {
      throw new DatabaseNotExistException(getName(), databaseName, e);
    } catch (RuntimeException e) {
      throw failed("list the tables of database " + databaseName, e);
    }
  }

  @Override
  public List<String> listViews(String databaseName)
      throws DatabaseNotExistException, CatalogException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return List.of();
  }

  @Override
  public CatalogBaseTable getTable(ObjectPath tablePath)
      throws TableNotExistException, CatalogException {
    org.apache.iceberg.Table table;
    try {
      table = rest().loadTable(identifier(tablePath));
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      throw new TableNotExistException(getName(), tablePath, e);
    } catch (RuntimeException e) {
      throw failed("load table " + tablePath.getFullName(), e);
    }
    try {
      return TableDefinitions.toFlink(table);
    } catch (FlinkTypes.UnsupportedTypeException e) {
      throw new CatalogException(
          "Table " + tablePath.getFullName() + " of catalog " + getName() + ": " + e.getMessage(),
          e);
    }
  }

  @Override
  public boolean tableExists(ObjectPath tablePath) throws CatalogException {
    try {
      return rest().tableExists(identifier(tablePath));
    } catch (RuntimeException e) {
      throw failed("look up table " + tablePath.getFullName(), e);
    }
  }

  @Override
  public void dropTable(ObjectPath tablePath, boolean ignoreIfNotExists)
      throws TableNotExistException, CatalogException {
    if (!dropStreamOrTable(tablePath) && !ignoreIfNotExists) {
      throw new TableNotExistException(getName(), tablePath);
    }
  }

  /** Drops a table and, for a streaming table, its stream data; false when there was none. */
  private boolean dropStreamOrTable(ObjectPath tablePath) {
    try {
      return connection().admin().dropTable(path(tablePath));
    } catch (RpcException e) {
      if (e.error() == ErrorCode.UNKNOWN_NAMESPACE || e.error() == ErrorCode.UNKNOWN_TABLE) {
        return false;
      }
      throw failed("drop table " + tablePath.getFullName(), e);
    }
  }

  @Override
  public void renameTable(ObjectPath tablePath, String newTableName, boolean ignoreIfNotExists)
      throws TableNotExistException, TableAlreadyExistException, CatalogException {
    TableIdentifier to = TableIdentifier.of(tablePath.getDatabaseName(), newTableName);
    try {
      rest().renameTable(identifier(tablePath), to);
    } catch (NoSuchTableException e) {
      if (!ignoreIfNotExists) {
        throw new TableNotExistException(getName(), tablePath, e);
      }
    } catch (AlreadyExistsException e) {
      throw new TableAlreadyExistException(
          getName(), new ObjectPath(tablePath.getDatabaseName(), newTableName), e);
    } catch (RuntimeException e) {
      throw failed("rename table " + tablePath.getFullName() + " to " + newTableName, e);
    }
  }

  @Override
  public void createTable(ObjectPath tablePath, CatalogBaseTable table, boolean ignoreIfExists)
      throws TableAlreadyExistException, DatabaseNotExistException, CatalogException {
    if (!(table instanceof ResolvedCatalogTable resolved)) {
      throw new CatalogException(
          "Cannot create "
              + tablePath.getFullName()
              + " in catalog "
              + getName()
              + ": only tables can be created (not views), got a "
              + table.getTableKind());
    }
    TableDescriptor descriptor = TableDefinitions.toDescriptor(tablePath.getFullName(), resolved);
    try {
      connection().admin().createTable(path(tablePath), descriptor);
    } catch (RpcException e) {
      if (e.error() == ErrorCode.ALREADY_EXISTS) {
        if (ignoreIfExists) {
          return;
        }
        throw new TableAlreadyExistException(getName(), tablePath, e);
      }
      if (e.error() == ErrorCode.UNKNOWN_NAMESPACE) {
        throw new DatabaseNotExistException(getName(), tablePath.getDatabaseName(), e);
      }
      if (e.error() == ErrorCode.INVALID_TABLE_DEFINITION
          || e.error() == ErrorCode.INVALID_REQUEST) {
        throw new ValidationException(
            "Cannot create " + tablePath.getFullName() + ": " + e.getMessage(), e);
      }
      throw failed("create table " + tablePath.getFullName(), e);
    }
  }

  @Override
  public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("ALTER TABLE " + tablePath.getFullName());
  }

  // ------------------------------------------------------------------ partitions

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath)
      throws TableNotExistException, TableNotPartitionedException, CatalogException {
    throw notPartitioned(tablePath);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws TableNotExistException, TableNotPartitionedException, CatalogException {
    throw notPartitioned(tablePath);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitionsByFilter(
      ObjectPath tablePath, List<Expression> filters)
      throws TableNotExistException, TableNotPartitionedException, CatalogException {
    throw notPartitioned(tablePath);
  }

  private TableNotPartitionedException notPartitioned(ObjectPath tablePath)
      throws TableNotExistException {
    if (!tableExists(tablePath)) {
      throw new TableNotExistException(getName(), tablePath);
    }
    return new TableNotPartitionedException(getName(), tablePath);
  }

  @Override
  public CatalogPartition getPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws PartitionNotExistException, CatalogException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public boolean partitionExists(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws CatalogException {
    return false;
  }

  @Override
  public void createPartition(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogPartition partition,
      boolean ignoreIfExists)
      throws CatalogException {
    throw unsupported("Creating partitions");
  }

  @Override
  public void dropPartition(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec, boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Dropping partitions");
  }

  @Override
  public void alterPartition(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogPartition newPartition,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Altering partitions");
  }

  // ------------------------------------------------------------------ functions (none)

  @Override
  public List<String> listFunctions(String dbName)
      throws DatabaseNotExistException, CatalogException {
    if (!databaseExists(dbName)) {
      throw new DatabaseNotExistException(getName(), dbName);
    }
    return List.of();
  }

  @Override
  public CatalogFunction getFunction(ObjectPath functionPath)
      throws FunctionNotExistException, CatalogException {
    throw new FunctionNotExistException(getName(), functionPath);
  }

  @Override
  public boolean functionExists(ObjectPath functionPath) throws CatalogException {
    return false;
  }

  @Override
  public void createFunction(
      ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists)
      throws CatalogException {
    throw unsupported("Functions");
  }

  @Override
  public void alterFunction(
      ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Functions");
  }

  @Override
  public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists)
      throws FunctionNotExistException, CatalogException {
    if (!ignoreIfNotExists) {
      throw new FunctionNotExistException(getName(), functionPath);
    }
  }

  // ------------------------------------------------------------------ statistics (none kept)

  @Override
  public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) throws CatalogException {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath)
      throws CatalogException {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public CatalogTableStatistics getPartitionStatistics(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec) throws CatalogException {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getPartitionColumnStatistics(
      ObjectPath tablePath, CatalogPartitionSpec partitionSpec) throws CatalogException {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public void alterTableStatistics(
      ObjectPath tablePath, CatalogTableStatistics tableStatistics, boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Table statistics");
  }

  @Override
  public void alterTableColumnStatistics(
      ObjectPath tablePath, CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Column statistics");
  }

  @Override
  public void alterPartitionStatistics(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogTableStatistics partitionStatistics,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Partition statistics");
  }

  @Override
  public void alterPartitionColumnStatistics(
      ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec,
      CatalogColumnStatistics columnStatistics,
      boolean ignoreIfNotExists)
      throws CatalogException {
    throw unsupported("Partition statistics");
  }

  // ------------------------------------------------------------------ access to the server

  /** The factory of the sinks of this catalog's tables. */
  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(new LakestreamTableFactory(server));
  }

  /** The address of the server this catalog is of (for the tables' sources and sinks). */
  ServerAddress server() {
    return server;
  }

  private RESTCatalog rest() {
    RESTCatalog catalog = rest;
    if (catalog == null) {
      throw new CatalogException("Catalog " + getName() + " is not open");
    }
    return catalog;
  }

  /** The stream RPC, connected (and authenticated) on first use. */
  private synchronized Connection connection() {
    if (connection == null) {
      try {
        connection = server.connect();
      } catch (RuntimeException e) {
        throw new CatalogException(
            "Cannot connect catalog " + getName() + " to " + server + ": " + e.getMessage(), e);
      }
    }
    return connection;
  }

  private TablePath path(ObjectPath tablePath) {
    return new TablePath(
        server.warehouse(), List.of(tablePath.getDatabaseName()), tablePath.getObjectName());
  }

  private static TableIdentifier identifier(ObjectPath tablePath) {
    return TableIdentifier.of(tablePath.getDatabaseName(), tablePath.getObjectName());
  }

  private CatalogException failed(String action, RuntimeException e) {
    return new CatalogException(
        "Cannot " + action + " in catalog " + getName() + ": " + e.getMessage(), e);
  }

  private CatalogException unsupported(String what) {
    return new CatalogException(what + " is not supported by Lakestream catalog " + getName());
  }

  private static void closeQuietly(RESTCatalog catalog) {
    try {
      catalog.close();
    } catch (IOException | RuntimeException e) {
      // Nothing is left to release that a new client would need.
    }
  }
}
