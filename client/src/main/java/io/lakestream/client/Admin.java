package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.AdminMessages.CreateTableRequest;
import io.lakestream.client.rpc.AdminMessages.CreateTableResponse;
import io.lakestream.client.rpc.AdminMessages.DropTableRequest;
import io.lakestream.client.rpc.AdminMessages.DropTableResponse;
import io.lakestream.client.rpc.AdminMessages.ListTablesResponse;
import io.lakestream.client.rpc.AdminMessages.NamespaceRequest;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.util.List;

/**
 * Creates, lists and drops tables over the stream RPC. The server changes the same catalog its
 * Iceberg REST endpoint serves, so a table created here is visible to REST clients at once, and
 * dropping a streaming table drops its stream data. Grants are the REST catalog's: creating and
 * dropping need write on the namespace, listing needs read.
 *
 * <p>Every method is one request and either succeeds or throws {@link RpcException} with a typed
 * {@link ErrorCode}; none is retried automatically, because a create or drop whose response was
 * lost has an unknown outcome ({@code NETWORK_ERROR}). Thread safe.
 */
public final class Admin {
  private final Connection connection;

  Admin(Connection connection) {
    this.connection = requireNonNull(connection, "connection is null");
  }

  /**
   * Creates a namespace.
   *
   * @param warehouse the warehouse, or null for the server's default
   * @throws RpcException {@code ALREADY_EXISTS}, {@code UNKNOWN_NAMESPACE} (no such warehouse or
   *     parent), {@code INVALID_REQUEST} for an invalid name, {@code NOT_AUTHORIZED} without write
   *     on the parent namespace (the warehouse for a top-level one)
   */
  public void createNamespace(String warehouse, List<String> namespace) {
    connection.call(ApiKey.CREATE_NAMESPACE, new NamespaceRequest(warehouse, namespace).encode());
  }

  /**
   * Creates a table.
   *
   * @return the table's id (its Iceberg table UUID)
   * @throws RpcException {@code ALREADY_EXISTS}, {@code UNKNOWN_NAMESPACE}, {@code
   *     INVALID_TABLE_DEFINITION} for a schema, partition spec or {@code lakestream.} property the
   *     server refuses (the message names it), {@code NOT_AUTHORIZED} without write on the
   *     namespace
   */
  public String createTable(TablePath path, TableDescriptor descriptor) {
    CreateTableRequest request =
        new CreateTableRequest(
            path.warehouse(),
            path.namespace(),
            path.name(),
            descriptor.schemaJson(),
            descriptor.partitionSpecJson(),
            descriptor.properties());
    return CreateTableResponse.decode(connection.call(ApiKey.CREATE_TABLE, request.encode()))
        .tableId();
  }

  /**
   * Drops a table from the catalog and its stream data; the table's files stay unless {@code
   * purge}.
   *
   * @return false when there was no such table
   * @throws RpcException {@code NOT_AUTHORIZED} without write on the namespace
   */
  public boolean dropTable(TablePath path, boolean purge) {
    DropTableRequest request =
        new DropTableRequest(path.warehouse(), path.namespace(), path.name(), purge);
    return DropTableResponse.decode(connection.call(ApiKey.DROP_TABLE, request.encode())).dropped();
  }

  /** Drops a table and its stream data, keeping its files. */
  public boolean dropTable(TablePath path) {
    return dropTable(path, false);
  }

  /**
   * The names of a namespace's tables (streaming or not), sorted.
   *
   * @param warehouse the warehouse, or null for the server's default
   * @throws RpcException {@code UNKNOWN_NAMESPACE}, {@code NOT_AUTHORIZED} without read on it
   */
  public List<String> listTables(String warehouse, List<String> namespace) {
    return ListTablesResponse.decode(
            connection.call(
                ApiKey.LIST_TABLES, new NamespaceRequest(warehouse, namespace).encode()))
        .tables();
  }

  /** Whether a table (streaming or not) of that path exists; false if its namespace does not. */
  public boolean tableExists(TablePath path) {
    try {
      return listTables(path.warehouse(), path.namespace()).contains(path.name());
    } catch (RpcException e) {
      if (e.error() == ErrorCode.UNKNOWN_NAMESPACE) {
        return false;
      }
      throw e;
    }
  }
}
