package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Request and response bodies of the stream RPC's catalog requests ({@link ApiKey#CREATE_NAMESPACE}
 * to {@link ApiKey#LIST_TABLES}, and {@link ApiKey#DESCRIBE_TABLE}), version 0. A namespace is
 * encoded as {@code string warehouse ("" = default) | int32 levels | string level...}, as in {@link
 * Messages.MetadataRequest}.
 *
 * <p>Internal: the wire format shared with the server; not for applications, which use {@link
 * io.lakestream.client.Admin}.
 */
public final class AdminMessages {
  private static final int MAX_LEVELS = 64;
  private static final int MAX_PROPERTIES = 10_000;

  private AdminMessages() {}

  /**
   * A namespace by warehouse (null for the server's default) and levels.
   *
   * @param warehouse the warehouse, or null for the server's default (sent as {@code ""})
   * @param namespace the namespace's levels, outermost first, at most 64
   */
  public record NamespaceRequest(String warehouse, List<String> namespace) {
    /** Copies the collections into immutable ones. */
    public NamespaceRequest {
      namespace = List.copyOf(namespace);
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(namespaceSize(warehouse, namespace));
      putNamespace(buffer, warehouse, namespace);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static NamespaceRequest decode(ByteBuffer buffer) {
      String warehouse = getWarehouse(buffer);
      return new NamespaceRequest(warehouse, getLevels(buffer));
    }
  }

  /**
   * The body of {@link ApiKey#CREATE_TABLE}.
   *
   * @param warehouse the warehouse, or null for the server's default (sent as {@code ""})
   * @param namespace the namespace's levels, outermost first, at most 64
   * @param table the new table's name
   * @param schemaJson the table's Iceberg schema as JSON (Iceberg's {@code SchemaParser} format)
   * @param partitionSpecJson the partition spec as Iceberg JSON, or empty for an unpartitioned
   *     table
   * @param properties table properties, including the {@code lakestream.} ones
   */
  public record CreateTableRequest(
      String warehouse,
      List<String> namespace,
      String table,
      String schemaJson,
      String partitionSpecJson,
      Map<String, String> properties) {
    /**
     * Checks that the reference fields are not null and copies the collections into immutable ones.
     */
    public CreateTableRequest {
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
      requireNonNull(schemaJson, "schemaJson is null");
      requireNonNull(partitionSpecJson, "partitionSpecJson is null");
      properties = Map.copyOf(properties);
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      byte[] schema = schemaJson.getBytes(StandardCharsets.UTF_8);
      byte[] spec = partitionSpecJson.getBytes(StandardCharsets.UTF_8);
      int size =
          namespaceSize(warehouse, namespace)
              + Wire.stringSize(table)
              + 4
              + schema.length
              + 4
              + spec.length
              + 4;
      for (Map.Entry<String, String> property : properties.entrySet()) {
        size += Wire.stringSize(property.getKey()) + Wire.stringSize(property.getValue());
      }
      ByteBuffer buffer = ByteBuffer.allocate(size);
      putNamespace(buffer, warehouse, namespace);
      Wire.putString(buffer, table);
      buffer.putInt(schema.length).put(schema);
      buffer.putInt(spec.length).put(spec);
      buffer.putInt(properties.size());
      properties.forEach(
          (key, value) -> {
            Wire.putString(buffer, key);
            Wire.putString(buffer, value);
          });
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static CreateTableRequest decode(ByteBuffer buffer) {
      String warehouse = getWarehouse(buffer);
      List<String> namespace = getLevels(buffer);
      String table = Wire.getString(buffer);
      String schema = StandardCharsets.UTF_8.decode(Wire.getBytes(buffer)).toString();
      String spec = StandardCharsets.UTF_8.decode(Wire.getBytes(buffer)).toString();
      int count = buffer.getInt();
      if (count < 0 || count > MAX_PROPERTIES) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid property count " + count);
      }
      Map<String, String> properties = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        properties.put(Wire.getString(buffer), Wire.getString(buffer));
      }
      return new CreateTableRequest(warehouse, namespace, table, schema, spec, properties);
    }
  }

  /**
   * The answer to {@link ApiKey#CREATE_TABLE}.
   *
   * @param tableId the new table's id (its Iceberg table UUID)
   */
  public record CreateTableResponse(String tableId) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(Wire.stringSize(tableId));
      Wire.putString(buffer, tableId);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static CreateTableResponse decode(ByteBuffer buffer) {
      return new CreateTableResponse(Wire.getString(buffer));
    }
  }

  /**
   * The body of {@link ApiKey#DROP_TABLE}.
   *
   * @param warehouse the warehouse, or null for the server's default (sent as {@code ""})
   * @param namespace the namespace's levels, outermost first, at most 64
   * @param table the table's name
   * @param purge also delete the table's data and metadata files
   */
  public record DropTableRequest(
      String warehouse, List<String> namespace, String table, boolean purge) {
    /**
     * Checks that the reference fields are not null and copies the collections into immutable ones.
     */
    public DropTableRequest {
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(namespaceSize(warehouse, namespace) + Wire.stringSize(table) + 1);
      putNamespace(buffer, warehouse, namespace);
      Wire.putString(buffer, table);
      buffer.put((byte) (purge ? 1 : 0));
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static DropTableRequest decode(ByteBuffer buffer) {
      String warehouse = getWarehouse(buffer);
      List<String> namespace = getLevels(buffer);
      return new DropTableRequest(warehouse, namespace, Wire.getString(buffer), buffer.get() == 1);
    }
  }

  /**
   * The answer to {@link ApiKey#DROP_TABLE}.
   *
   * @param dropped false when there was no such table
   */
  public record DropTableResponse(boolean dropped) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      return ByteBuffer.allocate(1).put((byte) (dropped ? 1 : 0)).flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static DropTableResponse decode(ByteBuffer buffer) {
      return new DropTableResponse(buffer.get() == 1);
    }
  }

  /**
   * The answer to {@link ApiKey#LIST_TABLES}.
   *
   * @param tables the names of the namespace's tables, sorted
   */
  public record ListTablesResponse(List<String> tables) {
    /** Copies the collections into immutable ones. */
    public ListTablesResponse {
      tables = List.copyOf(tables);
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      int size = 4;
      for (String table : tables) {
        size += Wire.stringSize(table);
      }
      ByteBuffer buffer = ByteBuffer.allocate(size);
      buffer.putInt(tables.size());
      tables.forEach(table -> Wire.putString(buffer, table));
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ListTablesResponse decode(ByteBuffer buffer) {
      int count = buffer.getInt();
      if (count < 0 || count > buffer.remaining() / 2) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid table count " + count);
      }
      List<String> tables = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        tables.add(Wire.getString(buffer));
      }
      return new ListTablesResponse(tables);
    }
  }

  /**
   * A table by warehouse (null for the server's default), namespace and name.
   *
   * @param warehouse the warehouse, or null for the server's default (sent as {@code ""})
   * @param namespace the namespace's levels, outermost first, at most 64
   * @param table the table's name
   */
  public record TableRequest(String warehouse, List<String> namespace, String table) {
    /**
     * Checks that the reference fields are not null and copies the collections into immutable ones.
     */
    public TableRequest {
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
    }

    /**
     * The body, ready to send.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(namespaceSize(warehouse, namespace) + Wire.stringSize(table));
      putNamespace(buffer, warehouse, namespace);
      Wire.putString(buffer, table);
      return buffer.flip();
    }

    /**
     * The request in a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the request
     */
    public static TableRequest decode(ByteBuffer buffer) {
      String warehouse = getWarehouse(buffer);
      List<String> namespace = getLevels(buffer);
      return new TableRequest(warehouse, namespace, Wire.getString(buffer));
    }
  }

  /**
   * A table as the catalog holds it.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param schemaJson the current schema as Iceberg JSON
   * @param partitionSpecJson the default partition spec as Iceberg JSON, empty when unpartitioned
   * @param properties the table properties
   * @param tieredOffsets per partition name ({@code ""} when unpartitioned) and bucket, the next
   *     offset to tier into the lake, from the newest tiering commit in the table's snapshot
   *     history; empty when nothing was tiered
   */
  public record DescribeTableResponse(
      String tableId,
      String schemaJson,
      String partitionSpecJson,
      Map<String, String> properties,
      Map<String, Map<Integer, Long>> tieredOffsets) {
    /**
     * Checks that the reference fields are not null and copies the maps into immutable ones,
     * keeping the order of {@code tieredOffsets}.
     */
    public DescribeTableResponse {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(schemaJson, "schemaJson is null");
      requireNonNull(partitionSpecJson, "partitionSpecJson is null");
      properties = Map.copyOf(properties);
      Map<String, Map<Integer, Long>> copy = new LinkedHashMap<>();
      tieredOffsets.forEach((partition, buckets) -> copy.put(partition, Map.copyOf(buckets)));
      tieredOffsets = java.util.Collections.unmodifiableMap(copy);
    }

    /**
     * The body, ready to send.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      byte[] schema = schemaJson.getBytes(StandardCharsets.UTF_8);
      byte[] spec = partitionSpecJson.getBytes(StandardCharsets.UTF_8);
      int size = Wire.stringSize(tableId) + 4 + schema.length + 4 + spec.length + 4 + 4;
      for (Map.Entry<String, String> property : properties.entrySet()) {
        size += Wire.stringSize(property.getKey()) + Wire.stringSize(property.getValue());
      }
      for (Map.Entry<String, Map<Integer, Long>> partition : tieredOffsets.entrySet()) {
        size += Wire.stringSize(partition.getKey()) + 4 + partition.getValue().size() * 12;
      }
      ByteBuffer buffer = ByteBuffer.allocate(size);
      Wire.putString(buffer, tableId);
      buffer.putInt(schema.length).put(schema);
      buffer.putInt(spec.length).put(spec);
      buffer.putInt(properties.size());
      properties.forEach(
          (key, value) -> {
            Wire.putString(buffer, key);
            Wire.putString(buffer, value);
          });
      buffer.putInt(tieredOffsets.size());
      tieredOffsets.forEach(
          (partition, buckets) -> {
            Wire.putString(buffer, partition);
            buffer.putInt(buckets.size());
            buckets.forEach((bucket, offset) -> buffer.putInt(bucket).putLong(offset));
          });
      return buffer.flip();
    }

    /**
     * The response in a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the response
     * @throws RpcException {@code INVALID_REQUEST} for a count the body cannot hold
     */
    public static DescribeTableResponse decode(ByteBuffer buffer) {
      String tableId = Wire.getString(buffer);
      String schema = StandardCharsets.UTF_8.decode(Wire.getBytes(buffer)).toString();
      String spec = StandardCharsets.UTF_8.decode(Wire.getBytes(buffer)).toString();
      int count = buffer.getInt();
      if (count < 0 || count > MAX_PROPERTIES) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid property count " + count);
      }
      Map<String, String> properties = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        properties.put(Wire.getString(buffer), Wire.getString(buffer));
      }
      int partitions = buffer.getInt();
      if (partitions < 0 || partitions > buffer.remaining() / 6) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid partition count " + partitions);
      }
      Map<String, Map<Integer, Long>> tiered = new LinkedHashMap<>();
      for (int i = 0; i < partitions; i++) {
        String partition = Wire.getString(buffer);
        int buckets = buffer.getInt();
        if (buckets < 0 || buckets > buffer.remaining() / 12) {
          throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid bucket count " + buckets);
        }
        Map<Integer, Long> offsets = new LinkedHashMap<>();
        for (int j = 0; j < buckets; j++) {
          offsets.put(buffer.getInt(), buffer.getLong());
        }
        tiered.put(partition, offsets);
      }
      return new DescribeTableResponse(tableId, schema, spec, properties, tiered);
    }
  }

  private static int namespaceSize(String warehouse, List<String> namespace) {
    int size = Wire.stringSize(warehouse == null ? "" : warehouse) + 4;
    for (String level : namespace) {
      size += Wire.stringSize(level);
    }
    return size;
  }

  private static void putNamespace(ByteBuffer buffer, String warehouse, List<String> namespace) {
    Wire.putString(buffer, warehouse == null ? "" : warehouse);
    buffer.putInt(namespace.size());
    namespace.forEach(level -> Wire.putString(buffer, level));
  }

  private static String getWarehouse(ByteBuffer buffer) {
    String warehouse = Wire.getString(buffer);
    return warehouse.isEmpty() ? null : warehouse;
  }

  private static List<String> getLevels(ByteBuffer buffer) {
    int levels = buffer.getInt();
    if (levels < 0 || levels > MAX_LEVELS) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid namespace depth " + levels);
    }
    List<String> namespace = new ArrayList<>(levels);
    for (int i = 0; i < levels; i++) {
      namespace.add(Wire.getString(buffer));
    }
    return namespace;
  }
}
