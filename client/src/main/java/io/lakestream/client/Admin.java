package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.AdminMessages.CreateTableRequest;
import io.lakestream.client.rpc.AdminMessages.CreateTableResponse;
import io.lakestream.client.rpc.AdminMessages.DescribeTableResponse;
import io.lakestream.client.rpc.AdminMessages.DropTableRequest;
import io.lakestream.client.rpc.AdminMessages.DropTableResponse;
import io.lakestream.client.rpc.AdminMessages.ListTablesResponse;
import io.lakestream.client.rpc.AdminMessages.NamespaceRequest;
import io.lakestream.client.rpc.AdminMessages.TableRequest;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates, lists, describes and drops tables over the stream RPC. The server changes the same
 * catalog its Iceberg REST endpoint serves, so a table created here is visible to REST clients at
 * once, and dropping a streaming table drops its stream data. Grants are the REST catalog's:
 * creating and dropping need write on the namespace, listing needs read.
 *
 * <p>Every method but {@link #describe} is one request and either succeeds or throws {@link
 * RpcException} with a typed {@link ErrorCode}; none is retried automatically, because a create or
 * drop whose response was lost has an unknown outcome ({@code NETWORK_ERROR}). The {@code
 * ...IfNotExists} forms make a repeated call safe: one whose earlier attempt did create the table
 * or namespace returns false instead of failing. Thread safe.
 *
 * <pre>{@code
 * Admin admin = connection.admin();
 * admin.createNamespaceIfNotExists(null, List.of("shop"));
 * admin.createTableIfNotExists(
 *     TablePath.of("shop.users"), TableDescriptor.primaryKeyTable(schema, List.of("user_id"), 4));
 * TableDescription users = admin.describe(TablePath.of("shop.users"));
 * }</pre>
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
   * @param namespace the namespace's levels, outermost first, such as {@code List.of("shop")}
   * @throws RpcException {@code ALREADY_EXISTS}, {@code UNKNOWN_NAMESPACE} (no such warehouse or
   *     parent), {@code INVALID_REQUEST} for an invalid name, {@code NOT_AUTHORIZED} without write
   *     on the parent namespace (the warehouse for a top-level one)
   */
  public void createNamespace(String warehouse, List<String> namespace) {
    connection.call(ApiKey.CREATE_NAMESPACE, new NamespaceRequest(warehouse, namespace).encode());
  }

  /**
   * Creates a namespace unless it exists.
   *
   * @param warehouse the warehouse, or null for the server's default
   * @param namespace the namespace's levels, outermost first, such as {@code List.of("shop")}
   * @return true if this call created it, false if it existed
   * @throws RpcException as {@link #createNamespace}, but not {@code ALREADY_EXISTS}
   */
  public boolean createNamespaceIfNotExists(String warehouse, List<String> namespace) {
    try {
      createNamespace(warehouse, namespace);
      return true;
    } catch (RpcException e) {
      if (e.error() == ErrorCode.ALREADY_EXISTS) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Creates a table.
   *
   * @param path the table's warehouse, namespace and name
   * @param descriptor the schema, partitioning and properties, from {@link
   *     TableDescriptor#logTable} or {@link TableDescriptor#primaryKeyTable}
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
   * Creates a table unless one (streaming or not) of that path exists. An existing table is left as
   * it is, even when its definition differs from {@code descriptor}.
   *
   * @param path the table's warehouse, namespace and name
   * @param descriptor the schema, partitioning and properties of the table to create
   * @return true if this call created the table, false if it existed
   * @throws RpcException as {@link #createTable}, but not {@code ALREADY_EXISTS}
   */
  public boolean createTableIfNotExists(TablePath path, TableDescriptor descriptor) {
    try {
      createTable(path, descriptor);
      return true;
    } catch (RpcException e) {
      if (e.error() == ErrorCode.ALREADY_EXISTS) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Drops a table from the catalog and its stream data; the table's files stay unless {@code
   * purge}.
   *
   * @param path the table's warehouse, namespace and name
   * @param purge whether to delete the table's data and metadata files too
   * @return false when there was no such table
   * @throws RpcException {@code NOT_AUTHORIZED} without write on the namespace
   */
  public boolean dropTable(TablePath path, boolean purge) {
    DropTableRequest request =
        new DropTableRequest(path.warehouse(), path.namespace(), path.name(), purge);
    return DropTableResponse.decode(connection.call(ApiKey.DROP_TABLE, request.encode())).dropped();
  }

  /**
   * Drops a table and its stream data, keeping its files: {@code dropTable(path, false)}.
   *
   * @param path the table's warehouse, namespace and name
   * @return false when there was no such table
   * @throws RpcException {@code NOT_AUTHORIZED} without write on the namespace
   */
  public boolean dropTable(TablePath path) {
    return dropTable(path, false);
  }

  /**
   * The names of a namespace's tables (streaming or not), sorted.
   *
   * @param warehouse the warehouse, or null for the server's default
   * @param namespace the namespace's levels, outermost first, such as {@code List.of("shop")}
   * @return the table names, without the namespace
   * @throws RpcException {@code UNKNOWN_NAMESPACE}, {@code NOT_AUTHORIZED} without read on it
   */
  public List<String> listTables(String warehouse, List<String> namespace) {
    return ListTablesResponse.decode(
            connection.call(
                ApiKey.LIST_TABLES, new NamespaceRequest(warehouse, namespace).encode()))
        .tables();
  }

  /**
   * Whether a table (streaming or not) of that path exists: one request for the table, not a
   * listing of its namespace.
   *
   * @param path the table's warehouse, namespace and name
   * @return false also when its namespace or warehouse does not exist
   * @throws RpcException {@code NOT_AUTHORIZED} without read on the namespace
   */
  public boolean tableExists(TablePath path) {
    try {
      describeEntry(path);
      return true;
    } catch (RpcException e) {
      if (e.error() == ErrorCode.UNKNOWN_TABLE || e.error() == ErrorCode.UNKNOWN_NAMESPACE) {
        return false;
      }
      throw e;
    }
  }

  /**
   * A table's catalog entry (schema, partition spec, properties) and, for a streaming table, each
   * bucket's first offset, high watermark, the offset up to which the lake table holds its rows
   * (from the newest tiering commit in the table's snapshot history) and the lag between the two.
   *
   * <p>A streaming table costs a request for the entry, one for its partitions (if partitioned) and
   * two pipelined ones per bucket of each partition.
   *
   * @param path the table's warehouse, namespace and name
   * @return the description; its bucket map is empty for a table that is not a streaming table
   * @throws RpcException {@code UNKNOWN_TABLE} when there is no such table (also when its namespace
   *     does not exist, as with a REST loadTable), {@code UNKNOWN_NAMESPACE} for a warehouse that
   *     does not exist, {@code NOT_AUTHORIZED} without read on the namespace or the table
   */
  public TableDescription describe(TablePath path) {
    DescribeTableResponse entry = describeEntry(path);
    Map<TableBucket, TableDescription.BucketStatus> buckets = new LinkedHashMap<>();
    if (TableKind.fromValue(entry.properties().get(LakestreamProperties.KIND)).isPresent()) {
      Table table = connection.table(path);
      table
          .offsets(table.partitions())
          .forEach(
              (bucket, offsets) ->
                  buckets.put(
                      bucket,
                      TableDescription.BucketStatus.of(
                          offsets.earliest(),
                          offsets.latest(),
                          entry
                              .tieredOffsets()
                              .getOrDefault(bucket.partition(), Map.of())
                              .getOrDefault(bucket.bucket(), -1L))));
    }
    return new TableDescription(
        path,
        entry.tableId(),
        entry.schemaJson(),
        entry.partitionSpecJson(),
        entry.properties(),
        buckets);
  }

  private DescribeTableResponse describeEntry(TablePath path) {
    TableRequest request = new TableRequest(path.warehouse(), path.namespace(), path.name());
    return DescribeTableResponse.decode(connection.call(ApiKey.DESCRIBE_TABLE, request.encode()));
  }
}
