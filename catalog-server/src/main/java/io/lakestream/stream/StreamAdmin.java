package io.lakestream.stream;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.NoSuchWarehouseException;
import io.lakestream.catalog.WarehouseCatalog;
import io.lakestream.catalog.Warehouses;
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
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.rest.IcebergRestHandlers;
import io.lakestream.store.StreamAccess;
import io.lakestream.store.TableAdmin;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * The stream RPC's catalog requests on the warehouses the REST catalog serves: a table created here
 * is the same catalog entry a REST {@code createTable} makes (same validation of names and {@code
 * lakestream.} properties, same Iceberg create path), and a drop runs the catalog's drop listener,
 * which deletes the stream data. Grants match the REST routes: creating a namespace needs write on
 * its parent, creating and dropping a table write on its namespace, listing and describing read.
 *
 * <p>This class is the one place that maps catalog exceptions to wire error codes for these
 * requests. Thread safe.
 */
public final class StreamAdmin implements TableAdmin {
  private final Warehouses warehouses;
  private final StreamAccess access;

  public StreamAdmin(Warehouses warehouses, StreamAccess access) {
    this.warehouses = requireNonNull(warehouses, "warehouses is null");
    this.access = requireNonNull(access, "access is null");
  }

  @Override
  public ByteBuffer handle(String principal, ApiKey key, ByteBuffer body) {
    try {
      return switch (key) {
        case CREATE_NAMESPACE -> createNamespace(principal, NamespaceRequest.decode(body));
        case CREATE_TABLE -> createTable(principal, CreateTableRequest.decode(body));
        case DROP_TABLE -> dropTable(principal, DropTableRequest.decode(body));
        case LIST_TABLES -> listTables(principal, NamespaceRequest.decode(body));
        case DESCRIBE_TABLE -> describeTable(principal, TableRequest.decode(body));
        default -> throw new IllegalArgumentException(key + " is not a catalog request");
      };
    } catch (AlreadyExistsException e) {
      throw new RpcException(ErrorCode.ALREADY_EXISTS, e.getMessage());
    } catch (NoSuchNamespaceException e) {
      throw new RpcException(ErrorCode.UNKNOWN_NAMESPACE, e.getMessage());
    } catch (NoSuchWarehouseException e) {
      throw new RpcException(ErrorCode.UNKNOWN_NAMESPACE, e.getMessage());
    }
  }

  private ByteBuffer createNamespace(String principal, NamespaceRequest request) {
    Namespace namespace = namespace(request.namespace());
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    List<String> levels = request.namespace();
    access.checkNamespace(
        principal, catalog.name(), levels.subList(0, Math.max(0, levels.size() - 1)), true);
    catalog.createNamespace(namespace, Map.of());
    return ByteBuffer.allocate(0);
  }

  private ByteBuffer createTable(String principal, CreateTableRequest request) {
    Namespace namespace = namespace(request.namespace());
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    access.checkNamespace(principal, catalog.name(), request.namespace(), true);
    validName(request.table());
    Schema schema;
    PartitionSpec spec;
    try {
      schema = SchemaParser.fromJson(request.schemaJson());
      spec =
          request.partitionSpecJson().isEmpty()
              ? PartitionSpec.unpartitioned()
              : PartitionSpecParser.fromJson(schema, request.partitionSpecJson());
    } catch (RuntimeException e) {
      throw new RpcException(
          ErrorCode.INVALID_TABLE_DEFINITION,
          "Invalid schema or partition spec for "
              + namespace
              + "."
              + request.table()
              + ": "
              + e.getMessage());
    }
    LoadTableResponse response;
    try {
      StreamTableProperties.validateCreate(request.properties(), schema);
      response =
          CatalogHandlers.createTable(
              catalog,
              namespace,
              org.apache.iceberg.rest.requests.CreateTableRequest.builder()
                  .withName(request.table())
                  .withSchema(schema)
                  .withPartitionSpec(spec)
                  .setProperties(new java.util.HashMap<>(request.properties()))
                  .build());
    } catch (BadRequestException | IllegalArgumentException | IllegalStateException e) {
      // Iceberg refuses a schema its format version cannot hold (a column default before v3) with
      // an IllegalStateException.
      throw new RpcException(
          ErrorCode.INVALID_TABLE_DEFINITION,
          "Cannot create " + namespace + "." + request.table() + ": " + e.getMessage());
    }
    return new CreateTableResponse(response.tableMetadata().uuid()).encode();
  }

  private ByteBuffer dropTable(String principal, DropTableRequest request) {
    Namespace namespace = namespace(request.namespace());
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    access.checkNamespace(principal, catalog.name(), request.namespace(), true);
    validName(request.table());
    boolean dropped =
        catalog.dropTable(TableIdentifier.of(namespace, request.table()), request.purge());
    return new DropTableResponse(dropped).encode();
  }

  private ByteBuffer listTables(String principal, NamespaceRequest request) {
    Namespace namespace = namespace(request.namespace());
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    access.checkNamespace(principal, catalog.name(), request.namespace(), false);
    return new ListTablesResponse(
            catalog.listTables(namespace).stream().map(TableIdentifier::name).toList())
        .encode();
  }

  /** Read on the namespace, as a REST loadTable of the table needs. */
  private ByteBuffer describeTable(String principal, TableRequest request) {
    Namespace namespace = namespace(request.namespace());
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    access.checkNamespace(principal, catalog.name(), request.namespace(), false);
    validName(request.table());
    TableMetadata metadata;
    try {
      metadata =
          catalog.currentTableMetadata(TableIdentifier.of(namespace, request.table())).orElse(null);
    } catch (NotFoundException e) {
      metadata = null;
    }
    if (metadata == null) {
      throw new RpcException(
          ErrorCode.UNKNOWN_TABLE, "Table does not exist: " + namespace + "." + request.table());
    }
    TieredOffsets tiered;
    try {
      tiered = TieredOffsets.committedIn(metadata);
    } catch (IllegalArgumentException e) {
      throw new RpcException(
          ErrorCode.UNKNOWN_SERVER_ERROR,
          "Cannot read the tiered offsets of "
              + namespace
              + "."
              + request.table()
              + ": "
              + e.getMessage());
    }
    return new DescribeTableResponse(
            metadata.uuid(),
            SchemaParser.toJson(metadata.schema()),
            metadata.spec().isUnpartitioned() ? "" : PartitionSpecParser.toJson(metadata.spec()),
            metadata.properties(),
            tiered.partitions())
        .encode();
  }

  private static Namespace namespace(List<String> levels) {
    Namespace namespace = Namespace.of(levels.toArray(String[]::new));
    try {
      IcebergRestHandlers.validateNamespace(namespace);
    } catch (BadRequestException e) {
      throw new RpcException(
          ErrorCode.INVALID_REQUEST,
          "Invalid namespace " + Arrays.toString(levels.toArray()) + ": " + e.getMessage());
    }
    return namespace;
  }

  private static void validName(String name) {
    try {
      IcebergRestHandlers.validateName(name);
    } catch (BadRequestException e) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid table name: " + e.getMessage());
    }
  }
}
