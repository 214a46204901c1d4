package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.PartitionField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Request and response bodies of the stream RPC, in every version a server still reads. Each record
 * encodes its own body and decodes it from a buffer positioned at the body; the frame header is
 * {@link Wire}'s.
 *
 * <p>Internal: the wire format shared with the server; not for applications. A truncated body fails
 * to decode with {@link java.nio.BufferUnderflowException}, a malformed length or count with {@link
 * RpcException} {@code INVALID_REQUEST}; the server answers both with {@code INVALID_REQUEST}.
 */
public final class Messages {
  private Messages() {}

  /**
   * The {@link ListOffsetsRequest#spec()} that asks for a bucket's first offset (its log start).
   */
  public static final long EARLIEST = -2;

  /** The {@link ListOffsetsRequest#spec()} that asks for a bucket's high watermark. */
  public static final long LATEST = -1;

  /** The partition name of a table without partitions. */
  public static final String UNPARTITIONED = "";

  /**
   * The body of {@link ApiKey#AUTHENTICATE}: {@code int32 length | UTF-8 token}.
   *
   * @param token the bearer token
   */
  public record AuthenticateRequest(String token) {
    /** Checks that the reference fields are not null. */
    public AuthenticateRequest {
      requireNonNull(token, "token is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      byte[] bytes = token.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      ByteBuffer buffer = ByteBuffer.allocate(4 + bytes.length);
      buffer.putInt(bytes.length).put(bytes);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static AuthenticateRequest decode(ByteBuffer buffer) {
      ByteBuffer bytes = Wire.getBytes(buffer);
      return new AuthenticateRequest(
          java.nio.charset.StandardCharsets.UTF_8.decode(bytes).toString());
    }
  }

  /**
   * The answer to {@link ApiKey#AUTHENTICATE}.
   *
   * @param principal the principal the connection now acts for
   */
  public record AuthenticateResponse(String principal) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(Wire.stringSize(principal));
      Wire.putString(buffer, principal);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static AuthenticateResponse decode(ByteBuffer buffer) {
      return new AuthenticateResponse(Wire.getString(buffer));
    }
  }

  /**
   * A table by its catalog path; a null warehouse is the server's default warehouse.
   *
   * @param warehouse the warehouse, or null for the default (sent as {@code ""})
   * @param namespace the namespace's levels, at most 64
   * @param table the table's name
   */
  public record MetadataRequest(String warehouse, List<String> namespace, String table) {
    /**
     * Checks that the reference fields are not null and copies the collections into immutable ones.
     */
    public MetadataRequest {
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      String wh = warehouse == null ? "" : warehouse;
      int size = Wire.stringSize(wh) + 4 + Wire.stringSize(table);
      for (String level : namespace) {
        size += Wire.stringSize(level);
      }
      ByteBuffer buffer = ByteBuffer.allocate(size);
      Wire.putString(buffer, wh);
      buffer.putInt(namespace.size());
      namespace.forEach(level -> Wire.putString(buffer, level));
      Wire.putString(buffer, table);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static MetadataRequest decode(ByteBuffer buffer) {
      String warehouse = Wire.getString(buffer);
      int levels = buffer.getInt();
      if (levels < 0 || levels > 64) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid namespace depth " + levels);
      }
      List<String> namespace = new ArrayList<>();
      for (int i = 0; i < levels; i++) {
        namespace.add(Wire.getString(buffer));
      }
      return new MetadataRequest(
          warehouse.isEmpty() ? null : warehouse, namespace, Wire.getString(buffer));
    }
  }

  /**
   * The answer to {@link ApiKey#METADATA}: what a client needs to write and read the table.
   *
   * @param tableId the table's stable id (its Iceberg table UUID)
   * @param kind {@code log} or {@code primary-key}
   * @param buckets the number of buckets of each partition
   * @param schemaId the id of the current schema
   * @param schemaJson the current Iceberg schema as JSON
   * @param arrowSchemas every schema the table has had, by schema id, as Arrow schema JSON: batches
   *     carry the id of the schema they were written with
   * @param bucketKey the bucket-key columns (a primary-key table's primary key unless its
   *     properties name a bucket key); empty for a log table without one
   * @param partitionFields the partition spec's fields; empty for an unpartitioned table (version
   *     1; version 0 has none)
   * @param primaryKey the primary-key columns of a primary-key table, in schema order (version 1)
   */
  public record MetadataResponse(
      String tableId,
      String kind,
      int buckets,
      int schemaId,
      String schemaJson,
      java.util.Map<Integer, String> arrowSchemas,
      List<String> bucketKey,
      List<PartitionField> partitionFields,
      List<String> primaryKey) {
    /**
     * Checks that the reference fields are not null and copies the collections into immutable ones.
     */
    public MetadataResponse {
      primaryKey = List.copyOf(primaryKey);
      requireNonNull(tableId, "tableId is null");
      requireNonNull(kind, "kind is null");
      requireNonNull(schemaJson, "schemaJson is null");
      arrowSchemas = java.util.Map.copyOf(arrowSchemas);
      bucketKey = List.copyOf(bucketKey);
      partitionFields = List.copyOf(partitionFields);
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      return encode(ApiKey.METADATA.latestVersion());
    }

    /**
     * Encodes the body in a version of the message.
     *
     * @param version a version the message has
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode(short version) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
        out.writeUTF(tableId);
        out.writeUTF(kind);
        out.writeInt(buckets);
        out.writeInt(schemaId);
        writeLong(out, schemaJson);
        out.writeInt(arrowSchemas.size());
        for (java.util.Map.Entry<Integer, String> entry : arrowSchemas.entrySet()) {
          out.writeInt(entry.getKey());
          writeLong(out, entry.getValue());
        }
        out.writeInt(bucketKey.size());
        for (String column : bucketKey) {
          out.writeUTF(column);
        }
        if (version >= 1) {
          out.writeInt(partitionFields.size());
          for (PartitionField field : partitionFields) {
            out.writeUTF(field.name());
            out.writeInt(field.sourceFieldId());
            out.writeUTF(field.sourceColumn());
            out.writeUTF(field.transform());
          }
          out.writeInt(primaryKey.size());
          for (String column : primaryKey) {
            out.writeUTF(column);
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return ByteBuffer.wrap(bytes.toByteArray());
    }

    private static void writeLong(java.io.DataOutputStream out, String text)
        throws java.io.IOException {
      byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeInt(utf8.length);
      out.write(utf8);
    }

    private static String readLong(java.io.DataInputStream in) throws java.io.IOException {
      byte[] utf8 = new byte[in.readInt()];
      in.readFully(utf8);
      return new String(utf8, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static MetadataResponse decode(ByteBuffer buffer) {
      return decode(buffer, ApiKey.METADATA.latestVersion());
    }

    /**
     * Decodes a body of a version.
     *
     * @param buffer positioned at the body; advanced past it
     * @param version the version from the request's frame header
     * @return the message
     */
    public static MetadataResponse decode(ByteBuffer buffer, short version) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      try (java.io.DataInputStream in =
          new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
        String tableId = in.readUTF();
        String kind = in.readUTF();
        int buckets = in.readInt();
        int schemaId = in.readInt();
        String schemaJson = readLong(in);
        int schemas = in.readInt();
        java.util.Map<Integer, String> arrowSchemas = new java.util.HashMap<>();
        for (int i = 0; i < schemas; i++) {
          arrowSchemas.put(in.readInt(), readLong(in));
        }
        int keys = in.readInt();
        List<String> bucketKey = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
          bucketKey.add(in.readUTF());
        }
        List<PartitionField> partitionFields = new ArrayList<>();
        List<String> primaryKey = new ArrayList<>();
        if (version >= 1) {
          int fields = in.readInt();
          for (int i = 0; i < fields; i++) {
            partitionFields.add(
                new PartitionField(in.readUTF(), in.readInt(), in.readUTF(), in.readUTF()));
          }
          int keyColumns = in.readInt();
          for (int i = 0; i < keyColumns; i++) {
            primaryKey.add(in.readUTF());
          }
        }
        return new MetadataResponse(
            tableId,
            kind,
            buckets,
            schemaId,
            schemaJson,
            arrowSchemas,
            bucketKey,
            partitionFields,
            primaryKey);
      } catch (java.io.IOException e) {
        throw new RpcException(
            ErrorCode.INVALID_REQUEST, "Malformed metadata response: " + e.getMessage());
      }
    }
  }

  /**
   * One encoded log batch for a bucket of a partition ({@link #UNPARTITIONED} for a table without
   * partitions; version 0 has no partition field and means that).
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param batch the encoded log batch
   */
  public record ProduceRequest(String tableId, String partition, int bucket, ByteBuffer batch) {
    /** Checks that the reference fields are not null. */
    public ProduceRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
      requireNonNull(batch, "batch is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer prefix = encodePrefix();
      ByteBuffer buffer = ByteBuffer.allocate(prefix.remaining() + batch.remaining());
      buffer.put(prefix).put(batch.duplicate());
      return buffer.flip();
    }

    /**
     * The encoding up to the batch bytes: sending this and then {@link #batch()} is the same as
     * sending {@link #encode()}, without copying the batch.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encodePrefix() {
      ByteBuffer buffer =
          ByteBuffer.allocate(Wire.stringSize(tableId) + Wire.stringSize(partition) + 4 + 4);
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket);
      buffer.putInt(batch.remaining());
      return buffer.flip();
    }

    /**
     * Decodes a body of a version.
     *
     * @param buffer positioned at the body; advanced past it
     * @param version the version from the request's frame header
     * @return the message
     */
    public static ProduceRequest decode(ByteBuffer buffer, short version) {
      String tableId = Wire.getString(buffer);
      String partition = version >= 1 ? Wire.getString(buffer) : UNPARTITIONED;
      return new ProduceRequest(tableId, partition, buffer.getInt(), Wire.getBytes(buffer));
    }
  }

  /**
   * The answer to {@link ApiKey#PRODUCE} and {@link ApiKey#PUT_KV}: where the batch was stored.
   *
   * @param baseOffset the offset of the batch's first row
   * @param lastOffset the offset of its last row
   * @param duplicate the batch was a retry of one already written; the offsets are the original's
   */
  public record ProduceResponse(long baseOffset, long lastOffset, boolean duplicate) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      return ByteBuffer.allocate(17)
          .putLong(baseOffset)
          .putLong(lastOffset)
          .put((byte) (duplicate ? 1 : 0))
          .flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ProduceResponse decode(ByteBuffer buffer) {
      return new ProduceResponse(buffer.getLong(), buffer.getLong(), buffer.get() == 1);
    }
  }

  /**
   * The body of {@link ApiKey#FETCH}: batches of a bucket from an offset.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param offset the first offset wanted
   * @param maxBytes about how many bytes of batches to return; at least one batch is returned when
   *     there is one
   * @param maxWaitMillis how long to wait for data when {@code offset} is the high watermark
   * @param projection top-level column indexes to return, in order; empty for all columns
   * @param filter encoded batch filter; empty for none
   */
  public record FetchRequest(
      String tableId,
      String partition,
      int bucket,
      long offset,
      int maxBytes,
      int maxWaitMillis,
      int[] projection,
      ByteBuffer filter) {
    /** Checks that the reference fields are not null. */
    public FetchRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
      requireNonNull(projection, "projection is null");
      requireNonNull(filter, "filter is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(
              Wire.stringSize(tableId)
                  + Wire.stringSize(partition)
                  + 4
                  + 8
                  + 4
                  + 4
                  + 4
                  + 4 * projection.length
                  + 4
                  + filter.remaining());
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket).putLong(offset).putInt(maxBytes).putInt(maxWaitMillis);
      Wire.putInts(buffer, projection);
      Wire.putBytes(buffer, filter);
      return buffer.flip();
    }

    /**
     * Decodes a body of a version.
     *
     * @param buffer positioned at the body; advanced past it
     * @param version the version from the request's frame header
     * @return the message
     */
    public static FetchRequest decode(ByteBuffer buffer, short version) {
      return new FetchRequest(
          Wire.getString(buffer),
          version >= 1 ? Wire.getString(buffer) : UNPARTITIONED,
          buffer.getInt(),
          buffer.getLong(),
          buffer.getInt(),
          buffer.getInt(),
          Wire.getInts(buffer),
          Wire.getBytes(buffer));
    }
  }

  /**
   * The answer to {@link ApiKey#FETCH}.
   *
   * @param highWatermark the bucket's high watermark
   * @param logStartOffset the bucket's first offset
   * @param nextOffset where the next fetch continues: after the last batch read, even when a filter
   *     dropped it
   * @param batches whole encoded batches, back to back, starting with the one that holds the
   *     requested offset
   */
  public record FetchResponse(
      long highWatermark, long logStartOffset, long nextOffset, ByteBuffer batches) {
    /** Checks that the reference fields are not null. */
    public FetchResponse {
      requireNonNull(batches, "batches is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(8 + 8 + 8 + 4 + batches.remaining());
      buffer.putLong(highWatermark).putLong(logStartOffset).putLong(nextOffset);
      Wire.putBytes(buffer, batches);
      return buffer.flip();
    }

    /**
     * The encoding up to the batch bytes, for a server that sends {@code batchesSize} bytes of
     * batches after it without joining them.
     *
     * @param highWatermark the bucket's high watermark
     * @param logStartOffset the bucket's first offset
     * @param nextOffset where the next fetch continues
     * @param batchesSize the bytes of batches that follow
     * @return a new buffer positioned at the body's start
     */
    public static ByteBuffer encodePrefix(
        long highWatermark, long logStartOffset, long nextOffset, int batchesSize) {
      return ByteBuffer.allocate(8 + 8 + 8 + 4)
          .putLong(highWatermark)
          .putLong(logStartOffset)
          .putLong(nextOffset)
          .putInt(batchesSize)
          .flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static FetchResponse decode(ByteBuffer buffer) {
      return new FetchResponse(
          buffer.getLong(), buffer.getLong(), buffer.getLong(), Wire.getBytes(buffer));
    }
  }

  /**
   * The body of {@link ApiKey#LIST_OFFSETS}: one offset of a bucket.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param spec {@link #EARLIEST}, {@link #LATEST} (the high watermark), or a timestamp in epoch
   *     milliseconds
   */
  public record ListOffsetsRequest(String tableId, String partition, int bucket, long spec) {
    /** Checks that the reference fields are not null. */
    public ListOffsetsRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(Wire.stringSize(tableId) + Wire.stringSize(partition) + 4 + 8);
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket).putLong(spec);
      return buffer.flip();
    }

    /**
     * Decodes a body of a version.
     *
     * @param buffer positioned at the body; advanced past it
     * @param version the version from the request's frame header
     * @return the message
     */
    public static ListOffsetsRequest decode(ByteBuffer buffer, short version) {
      String tableId = Wire.getString(buffer);
      String partition = version >= 1 ? Wire.getString(buffer) : UNPARTITIONED;
      return new ListOffsetsRequest(tableId, partition, buffer.getInt(), buffer.getLong());
    }
  }

  /**
   * The answer to {@link ApiKey#LIST_OFFSETS}.
   *
   * @param offset the offset asked for; for a timestamp, the first offset committed at or after it,
   *     or the high watermark when there is none
   */
  public record ListOffsetsResponse(long offset) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      return ByteBuffer.allocate(8).putLong(offset).flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ListOffsetsResponse decode(ByteBuffer buffer) {
      return new ListOffsetsResponse(buffer.getLong());
    }
  }

  /**
   * The body of {@link ApiKey#LIST_PARTITIONS}.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   */
  public record ListPartitionsRequest(String tableId) {
    /** Checks that the reference fields are not null. */
    public ListPartitionsRequest {
      requireNonNull(tableId, "tableId is null");
    }

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
    public static ListPartitionsRequest decode(ByteBuffer buffer) {
      return new ListPartitionsRequest(Wire.getString(buffer));
    }
  }

  /**
   * The answer to {@link ApiKey#LIST_PARTITIONS}.
   *
   * @param partitions the names of the table's partitions, sorted
   */
  public record ListPartitionsResponse(List<String> partitions) {
    /** Copies the collections into immutable ones. */
    public ListPartitionsResponse {
      partitions = List.copyOf(partitions);
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      int size = 4;
      for (String partition : partitions) {
        size += Wire.stringSize(partition);
      }
      ByteBuffer buffer = ByteBuffer.allocate(size);
      buffer.putInt(partitions.size());
      partitions.forEach(partition -> Wire.putString(buffer, partition));
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ListPartitionsResponse decode(ByteBuffer buffer) {
      int count = buffer.getInt();
      if (count < 0) {
        throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid partition count " + count);
      }
      List<String> partitions = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        partitions.add(Wire.getString(buffer));
      }
      return new ListPartitionsResponse(partitions);
    }
  }

  /**
   * Writes to a bucket of a primary-key table. The batch is a log batch (header with writer id and
   * sequence for idempotent retries) whose rows have the table's current schema; {@code ops} holds
   * one byte per row: 0 upsert, 1 delete (only the key columns of a deleted row count).
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param targetColumns the columns a partial update writes (with every key column); empty for
   *     whole rows
   * @param ops one operation code per row, {@link #UPSERT} or {@link #DELETE}
   * @param batch the encoded log batch
   */
  public record PutKvRequest(
      String tableId,
      String partition,
      int bucket,
      int[] targetColumns,
      ByteBuffer ops,
      ByteBuffer batch) {
    /** The operation code of a row to insert or update. */
    public static final byte UPSERT = 0;

    /** The operation code of a row whose key is deleted. */
    public static final byte DELETE = 1;

    /** Checks that the reference fields are not null. */
    public PutKvRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
      requireNonNull(targetColumns, "targetColumns is null");
      requireNonNull(ops, "ops is null");
      requireNonNull(batch, "batch is null");
    }

    /**
     * The encoding up to the batch bytes, which follow it on the wire.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encodePrefix() {
      ByteBuffer buffer =
          ByteBuffer.allocate(
              Wire.stringSize(tableId)
                  + Wire.stringSize(partition)
                  + 4
                  + 4
                  + 4 * targetColumns.length
                  + 4
                  + ops.remaining()
                  + 4);
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket);
      Wire.putInts(buffer, targetColumns);
      Wire.putBytes(buffer, ops);
      buffer.putInt(batch.remaining());
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static PutKvRequest decode(ByteBuffer buffer) {
      return new PutKvRequest(
          Wire.getString(buffer),
          Wire.getString(buffer),
          buffer.getInt(),
          Wire.getInts(buffer),
          Wire.getBytes(buffer),
          Wire.getBytes(buffer));
    }
  }

  /**
   * Keys to look up in a bucket of a primary-key table, or with {@code prefix} one bucket-key
   * prefix whose rows are all wanted.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param keys {@link RowValues} of the primary-key columns (or of the bucket-key columns for a
   *     prefix lookup), in schema order
   */
  public record LookupRequest(String tableId, String partition, int bucket, ByteBuffer keys) {
    /** Checks that the reference fields are not null. */
    public LookupRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
      requireNonNull(keys, "keys is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(
              Wire.stringSize(tableId) + Wire.stringSize(partition) + 4 + 4 + keys.remaining());
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket);
      Wire.putBytes(buffer, keys);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static LookupRequest decode(ByteBuffer buffer) {
      return new LookupRequest(
          Wire.getString(buffer), Wire.getString(buffer), buffer.getInt(), Wire.getBytes(buffer));
    }
  }

  /**
   * The answer to {@link ApiKey#LOOKUP} and {@link ApiKey#PREFIX_LOOKUP}.
   *
   * @param schemaId the schema the rows have
   * @param found per key whether it has a row (for a prefix lookup: all true, one per row)
   * @param rows {@link RowValues} of the rows found, in key order
   */
  public record LookupResponse(int schemaId, byte[] found, ByteBuffer rows) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(4 + 4 + found.length + 4 + rows.remaining());
      buffer.putInt(schemaId);
      Wire.putBytes(buffer, ByteBuffer.wrap(found));
      Wire.putBytes(buffer, rows);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static LookupResponse decode(ByteBuffer buffer) {
      int schemaId = buffer.getInt();
      ByteBuffer found = Wire.getBytes(buffer);
      byte[] flags = new byte[found.remaining()];
      found.get(flags);
      return new LookupResponse(schemaId, flags, Wire.getBytes(buffer));
    }
  }

  /**
   * The next page of a snapshot scan of a primary-key table's bucket.
   *
   * @param tableId the table's id (its Iceberg table UUID)
   * @param partition the partition's name ({@link #UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param scanId 0 to start a scan; then the id the first response gave
   * @param maxRows the most rows one response carries
   */
  public record ScanKvRequest(
      String tableId, String partition, int bucket, long scanId, int maxRows) {
    /** Checks that the reference fields are not null. */
    public ScanKvRequest {
      requireNonNull(tableId, "tableId is null");
      requireNonNull(partition, "partition is null");
    }

    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer =
          ByteBuffer.allocate(Wire.stringSize(tableId) + Wire.stringSize(partition) + 4 + 8 + 4);
      Wire.putString(buffer, tableId);
      Wire.putString(buffer, partition);
      buffer.putInt(bucket).putLong(scanId).putInt(maxRows);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ScanKvRequest decode(ByteBuffer buffer) {
      return new ScanKvRequest(
          Wire.getString(buffer),
          Wire.getString(buffer),
          buffer.getInt(),
          buffer.getLong(),
          buffer.getInt());
    }
  }

  /**
   * The answer to {@link ApiKey#SCAN_KV}: one page of rows.
   *
   * @param scanId the scan's id, for the next page
   * @param offset the log offset the snapshot is consistent to: it holds exactly the changelog
   *     below it
   * @param schemaId the schema the rows have
   * @param done whether this is the last page (the server has closed the scan)
   * @param rows {@link RowValues} of the rows of this page, in key order
   */
  public record ScanKvResponse(
      long scanId, long offset, int schemaId, boolean done, ByteBuffer rows) {
    /**
     * Encodes the body.
     *
     * @return a new buffer positioned at the body's start
     */
    public ByteBuffer encode() {
      ByteBuffer buffer = ByteBuffer.allocate(8 + 8 + 4 + 1 + 4 + rows.remaining());
      buffer.putLong(scanId).putLong(offset).putInt(schemaId).put((byte) (done ? 1 : 0));
      Wire.putBytes(buffer, rows);
      return buffer.flip();
    }

    /**
     * Decodes a body.
     *
     * @param buffer positioned at the body; advanced past it
     * @return the message
     */
    public static ScanKvResponse decode(ByteBuffer buffer) {
      return new ScanKvResponse(
          buffer.getLong(),
          buffer.getLong(),
          buffer.getInt(),
          buffer.get() == 1,
          Wire.getBytes(buffer));
    }
  }
}
