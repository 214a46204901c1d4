package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.Messages;
import io.lakestream.client.rpc.Messages.FetchRequest;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.client.rpc.Messages.ListOffsetsRequest;
import io.lakestream.client.rpc.Messages.ListOffsetsResponse;
import io.lakestream.client.rpc.Messages.MetadataResponse;
import io.lakestream.client.rpc.Messages.ProduceRequest;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A streaming table as seen through a {@link Connection}: its shape and the bucket-level operations
 * that writers and scanners build on.
 *
 * <p>A table is looked up with {@link Connection#table(TablePath)}; it keeps the table's metadata
 * (buckets, schemas, partition spec) as the server answered then, and looks the table up again when
 * it meets a schema id it does not know. Writers, scanners and lookupers made here share the
 * table's connection.
 *
 * <p>Thread safe. The methods that return a value directly are one or a few requests that wait up
 * to 60 s for their response; they throw {@link io.lakestream.client.rpc.RpcException} with the
 * server's {@link io.lakestream.client.rpc.ErrorCode} ({@code NETWORK_ERROR} when the connection is
 * closed or cannot reconnect). The methods that return a future complete it exceptionally with that
 * exception instead.
 */
public final class Table {
  private final Connection connection;
  private final TablePath path;
  private volatile MetadataResponse metadata;
  private final Map<Integer, Schema> arrowSchemas = new java.util.concurrent.ConcurrentHashMap<>();

  Table(Connection connection, TablePath path, MetadataResponse metadata) {
    this.connection = requireNonNull(connection, "connection is null");
    this.path = requireNonNull(path, "path is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
  }

  Connection connection() {
    return connection;
  }

  /**
   * The table's warehouse, namespace and name.
   *
   * @return the path it was looked up by
   */
  public TablePath path() {
    return path;
  }

  /**
   * The table's stable id (its Iceberg table UUID).
   *
   * @return the id, which the server uses in every request on the table
   */
  public String id() {
    return metadata.tableId();
  }

  /**
   * The table's kind, the value of its {@code lakestream.kind} property.
   *
   * @return {@code log} or {@code primary-key} (see {@link TableKind})
   */
  public String kind() {
    return metadata.kind();
  }

  /**
   * The number of buckets of each partition, fixed when the table was created.
   *
   * @return the bucket count
   */
  public int buckets() {
    return metadata.buckets();
  }

  /**
   * The id of the table's current schema, which writers write with.
   *
   * @return the current schema id
   */
  public int schemaId() {
    return metadata.schemaId();
  }

  /**
   * The current schema as Iceberg JSON.
   *
   * @return the schema, parseable with Iceberg's {@code SchemaParser}
   */
  public String schemaJson() {
    return metadata.schemaJson();
  }

  /**
   * The columns whose values choose a row's bucket: the table's {@code lakestream.bucket-key}
   * property, else a primary-key table's primary key.
   *
   * @return the bucket key's column names; empty for a log table without a bucket key, whose rows
   *     are spread over the buckets without one
   */
  public List<String> bucketKey() {
    return metadata.bucketKey();
  }

  /**
   * The partition spec's fields; empty when the table is not partitioned.
   *
   * @return the fields in spec order
   */
  public List<PartitionField> partitionFields() {
    return metadata.partitionFields();
  }

  /**
   * Whether the table has a partition spec.
   *
   * @return {@code true} if {@link #partitionFields()} is not empty
   */
  public boolean isPartitioned() {
    return !metadata.partitionFields().isEmpty();
  }

  /**
   * How rows of the current schema are placed in partitions.
   *
   * @return the partitioning; {@link Partitioning#UNPARTITIONED}'s for a table without a spec
   */
  public Partitioning partitioning() {
    return Partitioning.of(metadata.partitionFields(), arrowSchema(schemaId()));
  }

  /**
   * The partitions the table has now, sorted by name: each was created by its first write and lives
   * until retention expires it. An unpartitioned table has one, {@link Partitioning#UNPARTITIONED}.
   *
   * @return the partition names; one request for a partitioned table, none otherwise
   */
  public List<String> partitions() {
    if (!isPartitioned()) {
      return List.of(Partitioning.UNPARTITIONED);
    }
    return Messages.ListPartitionsResponse.decode(
            connection.call(
                ApiKey.LIST_PARTITIONS, new Messages.ListPartitionsRequest(id()).encode()))
        .partitions();
  }

  /**
   * The Arrow schema batches of a schema id were written with. Cached; an id the table's metadata
   * does not have makes the table look itself up again once.
   *
   * @param schemaId a schema id, such as a batch's {@code schemaId}
   * @return the Arrow schema (for a primary-key table it ends with the change-type column; see
   *     {@link #rowSchema})
   * @throws IllegalArgumentException for an id the table does not have (refresh the table)
   */
  public Schema arrowSchema(int schemaId) {
    return arrowSchemas.computeIfAbsent(
        schemaId,
        id -> {
          String json = metadata.arrowSchemas().get(id);
          if (json == null) {
            // A batch written after this view was taken: the table evolved, so look it up again.
            metadata = connection.table(path).metadata;
            json = metadata.arrowSchemas().get(id);
          }
          if (json == null) {
            throw new IllegalArgumentException(
                "Table "
                    + path
                    + " has no schema "
                    + id
                    + " (it has "
                    + metadata.arrowSchemas().keySet()
                    + ")");
          }
          try {
            return connection.arrowSchema(json);
          } catch (java.io.IOException e) {
            throw new IllegalStateException("Malformed schema " + id + " from the server", e);
          }
        });
  }

  /**
   * A writer of a log table with the default options ({@link WriterOptions#defaults()}).
   *
   * @return a new writer; close it to flush its last rows
   * @throws IllegalStateException if the table is not a log table
   */
  public AppendWriter newAppendWriter() {
    return newAppendWriter(WriterOptions.defaults());
  }

  /**
   * A writer of a log table.
   *
   * @param options batching, linger and in-flight limits
   * @return a new writer; close it to flush its last rows
   * @throws IllegalStateException if the table is not a log table
   */
  public AppendWriter newAppendWriter(WriterOptions options) {
    if (!TableKind.LOG.is(kind())) {
      throw new IllegalStateException(
          "Table " + path + " is a " + kind() + " table, not a log table");
    }
    return new AppendWriter(this, options, false);
  }

  /**
   * A writer of a log table that sends nothing: its rows come back from {@link
   * AppendWriter#prepare()} as {@link PreparedBatch}es, for {@link #send(PreparedBatch)}.
   *
   * @param options batching options
   * @return a new preparing writer
   * @throws IllegalStateException if the table is not a log table
   */
  public AppendWriter newPreparingAppendWriter(WriterOptions options) {
    if (!TableKind.LOG.is(kind())) {
      throw new IllegalStateException(
          "Table " + path + " is a " + kind() + " table, not a log table");
    }
    return new AppendWriter(this, options, true);
  }

  /**
   * A preparing writer (as {@link #newPreparingAppendWriter(WriterOptions)}) whose batches carry
   * {@code writerId} instead of a random id, for a caller that must produce the very same batches
   * again after a crash, such as a loader that may be run twice on one file: the same rows appended
   * in the same order with the same options, and {@link AppendWriter#prepare()} called after the
   * same rows, give the same batches with the same sequences, which the server then stores once
   * (see {@link PreparedBatch}). Two writers that share an id and write different rows lose rows:
   * derive the id from what is written, for example from a digest of the rows.
   *
   * @param options batching options (their linger does not apply: a preparing writer cuts a batch
   *     when it is full or at {@code prepare()})
   * @param writerId the id, at least 0
   * @return a new preparing writer
   * @throws IllegalStateException if the table is not a log table
   * @throws IllegalArgumentException if {@code writerId} is negative
   */
  public AppendWriter newPreparingAppendWriter(WriterOptions options, long writerId) {
    if (!TableKind.LOG.is(kind())) {
      throw new IllegalStateException(
          "Table " + path + " is a " + kind() + " table, not a log table");
    }
    return new AppendWriter(this, options, true, writerId);
  }

  /**
   * A writer of a primary-key table's upserts and deletes of whole rows that sends nothing: its
   * writes come back from {@link UpsertWriter#prepare()} as {@link PreparedBatch}es, for {@link
   * #send(PreparedBatch)}.
   *
   * @param options batching options
   * @return a new preparing writer
   * @throws IllegalStateException if the table is not a primary-key table
   */
  public UpsertWriter newPreparingUpsertWriter(WriterOptions options) {
    return new UpsertWriter(this, options, List.of(), true);
  }

  /**
   * A preparing writer (as {@link #newPreparingUpsertWriter(WriterOptions)}) of partial updates:
   * its upserts change only {@code targetColumns} (which must include the primary key).
   *
   * @param targetColumns the columns the upserts set, by name
   * @param options batching options
   * @return a new preparing writer
   * @throws IllegalStateException if the table is not a primary-key table
   * @throws IllegalArgumentException if a target column is not a column of the table
   */
  public UpsertWriter newPreparingUpsertWriter(List<String> targetColumns, WriterOptions options) {
    return new UpsertWriter(this, options, targetColumns, true);
  }

  /**
   * Sends a prepared batch (see {@link PreparedBatch} for the order its writer's batches must keep
   * and for resends); completes once it is durable, with its offsets ({@code duplicate} when the
   * server had stored it already), or exceptionally with an {@link
   * io.lakestream.client.rpc.RpcException}: {@code DUPLICATE_SEQUENCE} when it was stored too long
   * ago for its offsets to be known, retriable codes when its outcome is in doubt (send it again:
   * the connection reconnects).
   *
   * @param batch a batch from a preparing writer of this table
   * @return the batch's offsets once it is durable
   */
  public CompletableFuture<ProduceResponse> send(PreparedBatch batch) {
    return batch.keyValue()
        ? putKv(
            batch.partition(),
            batch.bucket(),
            batch.targetColumns(),
            batch.operations(),
            batch.framed())
        : append(batch.partition(), batch.bucket(), batch.framed());
  }

  /**
   * Sends prepared batches and resends them until each is stored or refused: the batches of each
   * writer and bucket in sequence order, each after the one before it was answered, the buckets at
   * once. A batch the server had stored before (a resend of one of the writer's last batches, or an
   * older one it reports as {@code DUPLICATE_SEQUENCE}) counts as {@link
   * PreparedBatch.Outcome#ALREADY_STORED}; a retriable failure is resent after a growing backoff,
   * up to 6 attempts.
   *
   * @param batches batches from preparing writers of this table, in any order
   * @return each batch's outcome, in the order of {@code batches}; or, exceptionally, an {@link
   *     io.lakestream.client.rpc.RpcException} naming the first batch that could not be stored (the
   *     batches of its bucket after it are then not sent; other buckets' batches may be)
   */
  public CompletableFuture<List<PreparedBatch.Outcome>> sendInOrder(List<PreparedBatch> batches) {
    return OrderedSend.send(this, batches);
  }

  /**
   * A scanner of all columns, without a filter.
   *
   * @return a new scanner with no subscriptions; close it to release its Arrow memory
   */
  public LogScanner newScanner() {
    return new LogScanner(this, List.of(), io.lakestream.client.arrow.BatchFilter.MATCH_ALL, null);
  }

  /**
   * A scanner of some columns whose server skips batches that cannot match {@code filter} (rows of
   * batches that might match are all returned: the filter prunes, it does not select).
   *
   * @param columns the columns to read, by name; empty for all
   * @param filter the batches to skip by their statistics; {@link
   *     io.lakestream.client.arrow.BatchFilter#MATCH_ALL} for none
   * @return a new scanner with no subscriptions; close it to release its Arrow memory
   * @throws IllegalArgumentException if a column is not a column of the table's current schema, or
   *     a predicate of the filter does not fit it
   */
  public LogScanner newScanner(
      List<String> columns, io.lakestream.client.arrow.BatchFilter filter) {
    return new LogScanner(this, columns, filter, null);
  }

  /**
   * Like {@link #newScanner(List, io.lakestream.client.arrow.BatchFilter)}, decoding batches into
   * {@code allocator}, which the caller owns and closes after the last batch: a consumer whose own
   * Arrow memory shares that allocator's root can then take a batch's buffers over (an Arrow {@code
   * TransferPair}) instead of copying them.
   *
   * @param columns the columns to read, by name; empty for all
   * @param filter the batches to skip by their statistics
   * @param allocator where decoded batches are allocated; owned by the caller
   * @return a new scanner with no subscriptions
   * @throws IllegalArgumentException if a column is not a column of the table's current schema, or
   *     a predicate of the filter does not fit it
   */
  public LogScanner newScanner(
      List<String> columns,
      io.lakestream.client.arrow.BatchFilter filter,
      org.apache.arrow.memory.BufferAllocator allocator) {
    return new LogScanner(
        this, columns, filter, java.util.Objects.requireNonNull(allocator, "allocator is null"));
  }

  /**
   * Appends one encoded batch to a bucket; completes once the batch is durable, with its offsets. A
   * batch with a writer id and the sequence of an earlier batch is a retry and is not appended
   * twice.
   *
   * @param bucket the bucket of an unpartitioned table
   * @param batch an encoded batch whose rows belong to the bucket
   * @return the batch's offsets once it is durable
   */
  public CompletableFuture<ProduceResponse> append(int bucket, LogBatch batch) {
    return append(Partitioning.UNPARTITIONED, bucket, batch);
  }

  /**
   * As {@link #append(int, LogBatch)}, to a bucket of a partition; the server creates the partition
   * on its first write and refuses a batch whose rows do not all belong to it.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param batch an encoded batch whose rows belong to the bucket
   * @return the batch's offsets once it is durable
   */
  public CompletableFuture<ProduceResponse> append(String partition, int bucket, LogBatch batch) {
    ProduceRequest request = new ProduceRequest(id(), partition, bucket, batch.buffer());
    return connection
        .send(ApiKey.PRODUCE, request.encodePrefix(), request.batch())
        .thenApply(ProduceResponse::decode);
  }

  /**
   * Writes rows to a bucket of a primary-key table (see {@link Messages.PutKvRequest}); completes
   * once their changelog is durable, with its offsets.
   */
  CompletableFuture<ProduceResponse> putKv(
      String partition, int bucket, int[] targetColumns, byte[] operations, LogBatch batch) {
    Messages.PutKvRequest request =
        new Messages.PutKvRequest(
            id(), partition, bucket, targetColumns, ByteBuffer.wrap(operations), batch.buffer());
    return connection
        .send(ApiKey.PUT_KV, request.encodePrefix(), request.batch())
        .thenApply(ProduceResponse::decode);
  }

  /** Looks up keys (or one bucket-key prefix) in a bucket of a primary-key table. */
  CompletableFuture<Messages.LookupResponse> lookup(
      String partition, int bucket, ByteBuffer keys, boolean prefix) {
    return connection
        .send(
            prefix ? ApiKey.PREFIX_LOOKUP : ApiKey.LOOKUP,
            new Messages.LookupRequest(id(), partition, bucket, keys).encode())
        .thenApply(Messages.LookupResponse::decode);
  }

  /**
   * The primary-key columns of a primary-key table, in schema order; empty for a log table.
   *
   * @return the key's column names
   */
  public List<String> primaryKey() {
    return metadata.primaryKey();
  }

  /**
   * The schema of the rows of a primary-key table (its changelog batches add a change-type column),
   * or of a log table.
   *
   * @param schemaId a schema id of the table
   * @return the Arrow schema without the change-type column
   * @throws IllegalArgumentException for an id the table does not have
   */
  public Schema rowSchema(int schemaId) {
    Schema schema = arrowSchema(schemaId);
    if (!TableKind.PRIMARY_KEY.is(kind())) {
      return schema;
    }
    return new Schema(schema.getFields().subList(0, schema.getFields().size() - 1));
  }

  /**
   * A writer of upserts and deletes of whole rows, with the default options.
   *
   * @return a new writer; close it to flush its last rows
   * @throws IllegalStateException if the table is not a primary-key table
   */
  public UpsertWriter newUpsertWriter() {
    return newUpsertWriter(WriterOptions.defaults());
  }

  /**
   * A writer of upserts and deletes of whole rows.
   *
   * @param options batching, linger and in-flight limits
   * @return a new writer; close it to flush its last rows
   * @throws IllegalStateException if the table is not a primary-key table
   */
  public UpsertWriter newUpsertWriter(WriterOptions options) {
    return new UpsertWriter(this, options, List.of(), false);
  }

  /**
   * A writer of partial updates: its upserts change only {@code targetColumns} (which must include
   * the primary key), other columns keep their values; its deletes remove whole rows.
   *
   * @param targetColumns the columns the upserts set, by name
   * @param options batching, linger and in-flight limits
   * @return a new writer; close it to flush its last rows
   * @throws IllegalStateException if the table is not a primary-key table
   * @throws IllegalArgumentException if a target column is not a column of the table
   */
  public UpsertWriter newUpsertWriter(List<String> targetColumns, WriterOptions options) {
    return new UpsertWriter(this, options, targetColumns, false);
  }

  /**
   * Every row of a bucket of a primary-key table from one consistent snapshot, with the changelog
   * offset it is consistent to.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @return the snapshot, its first page already fetched; close it when stopping early
   * @throws io.lakestream.client.rpc.RpcException if the first page's request fails
   */
  public StateSnapshot snapshot(String partition, int bucket) {
    return new StateSnapshot(this, new TableBucket(partition, bucket));
  }

  /**
   * Point and prefix lookups of a primary-key table.
   *
   * @return a new lookuper
   * @throws IllegalStateException if the table is not a primary-key table
   */
  public Lookuper newLookuper() {
    return new Lookuper(this);
  }

  /**
   * Reads batches of a bucket of an unpartitioned table from an offset: the low-level call that
   * {@link LogScanner} builds on.
   *
   * @param bucket the bucket
   * @param offset the first offset wanted
   * @param maxBytes about how many bytes of batches to return; at least one batch is returned when
   *     there is one, however large
   * @param maxWaitMillis how long the server may wait for data when there is none yet
   * @param projection top-level column indexes to return; empty for all
   * @param filter an encoded {@link io.lakestream.client.arrow.BatchFilter}; empty for none
   * @return the fetched batches and the bucket's offsets
   */
  public CompletableFuture<FetchResponse> fetch(
      int bucket,
      long offset,
      int maxBytes,
      int maxWaitMillis,
      int[] projection,
      ByteBuffer filter) {
    return fetch(
        Partitioning.UNPARTITIONED,
        bucket,
        offset,
        maxBytes,
        maxWaitMillis,
        projection,
        filter,
        null);
  }

  /**
   * A fetch from a bucket of a partition whose response is read into {@code memory} (null for a new
   * heap array). A response body that does not decode goes back to the memory.
   */
  CompletableFuture<FetchResponse> fetch(
      String partition,
      int bucket,
      long offset,
      int maxBytes,
      int maxWaitMillis,
      int[] projection,
      ByteBuffer filter,
      io.lakestream.client.rpc.ResponseMemory memory) {
    return connection
        .send(
            ApiKey.FETCH,
            memory,
            new FetchRequest(
                    id(), partition, bucket, offset, maxBytes, maxWaitMillis, projection, filter)
                .encode())
        .thenApply(
            body -> {
              try {
                return FetchResponse.decode(body);
              } catch (RuntimeException e) {
                if (memory != null) {
                  memory.discard(body);
                }
                throw e;
              }
            });
  }

  /**
   * The first offset of a bucket of an unpartitioned table: the log start, which retention moves.
   *
   * @param bucket the bucket
   * @return the first offset still in the log
   */
  public long earliestOffset(int bucket) {
    return earliestOffset(Partitioning.UNPARTITIONED, bucket);
  }

  /**
   * The high watermark of a bucket of an unpartitioned table: the offset the next visible record
   * will take.
   *
   * @param bucket the bucket
   * @return the high watermark
   */
  public long latestOffset(int bucket) {
    return latestOffset(Partitioning.UNPARTITIONED, bucket);
  }

  /**
   * The first offset of a bucket of an unpartitioned table committed at or after a time.
   *
   * @param bucket the bucket
   * @param timestamp epoch milliseconds, compared with batches' commit timestamps
   * @return the offset, or the high watermark when nothing was committed at or after the time
   */
  public long offsetForTimestamp(int bucket, long timestamp) {
    return offsetForTimestamp(Partitioning.UNPARTITIONED, bucket, timestamp);
  }

  /**
   * The first offset of a bucket of a partition: the log start, which retention moves.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @return the first offset still in the log
   */
  public long earliestOffset(String partition, int bucket) {
    return listOffsets(partition, bucket, Messages.EARLIEST);
  }

  /**
   * The high watermark of a bucket of a partition: the offset the next visible record will take.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @return the high watermark
   */
  public long latestOffset(String partition, int bucket) {
    return listOffsets(partition, bucket, Messages.LATEST);
  }

  /**
   * The first offset of a bucket of a partition committed at or after a time.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param timestamp epoch milliseconds, compared with batches' commit timestamps
   * @return the offset, or the high watermark when nothing was committed at or after the time
   */
  public long offsetForTimestamp(String partition, int bucket, long timestamp) {
    return listOffsets(partition, bucket, timestamp);
  }

  /**
   * When the record at an offset of a bucket was appended: the commit timestamp (epoch
   * milliseconds, the server's clock) of the batch that holds it. Reads one batch of one column, so
   * it is cheap enough to ask for every bucket of a table, for example to tell how old the oldest
   * row not yet tiered is.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for none)
   * @param bucket the bucket within the partition
   * @param offset the record's offset
   * @return the commit timestamp, or -1 when the bucket has no record at that offset (yet)
   * @throws io.lakestream.client.rpc.RpcException when the offset is out of the log's range
   */
  public long commitTimestamp(String partition, int bucket, long offset) {
    FetchResponse response =
        Connection.await(
            fetch(
                partition,
                bucket,
                offset,
                1,
                0,
                new int[] {0},
                ByteBuffer.wrap(io.lakestream.client.arrow.BatchFilter.MATCH_ALL.serialize()),
                null));
    ByteBuffer bytes = response.batches();
    while (bytes.remaining() >= LogBatch.HEADER_SIZE) {
      int size = LogBatch.LOG_OVERHEAD + bytes.getInt(bytes.position() + LogBatch.LENGTH);
      LogBatch batch = LogBatch.wrap(bytes.slice(bytes.position(), size));
      bytes.position(bytes.position() + size);
      if (batch.nextOffset() > offset) {
        return batch.commitTimestamp();
      }
    }
    return -1;
  }

  /**
   * The first offset and the high watermark of a bucket.
   *
   * @param earliest the first offset still in the log
   * @param latest the high watermark: the offset the next visible record will take
   */
  public record BucketOffsets(long earliest, long latest) {}

  /**
   * The first offset and the high watermark of every bucket of some partitions. The requests go out
   * together, pipelined on the connection, instead of one round trip after another; each bucket's
   * high watermark is asked before its first offset, as {@link #latestOffset} and {@link
   * #earliestOffset} called in that order would.
   *
   * @param partitions the partitions, such as {@link #partitions()}
   * @return per bucket, in the order of {@code partitions} and then of bucket numbers
   */
  public Map<TableBucket, BucketOffsets> offsets(List<String> partitions) {
    Map<TableBucket, List<CompletableFuture<ByteBuffer>>> pending = new LinkedHashMap<>();
    for (String partition : partitions) {
      for (int bucket = 0; bucket < buckets(); bucket++) {
        pending.put(
            new TableBucket(partition, bucket),
            List.of(
                listOffsetsAsync(partition, bucket, Messages.LATEST),
                listOffsetsAsync(partition, bucket, Messages.EARLIEST)));
      }
    }
    Map<TableBucket, BucketOffsets> offsets = new LinkedHashMap<>();
    pending.forEach(
        (bucket, answers) -> {
          long latest = ListOffsetsResponse.decode(Connection.await(answers.get(0))).offset();
          long earliest = ListOffsetsResponse.decode(Connection.await(answers.get(1))).offset();
          offsets.put(bucket, new BucketOffsets(earliest, latest));
        });
    return offsets;
  }

  private CompletableFuture<ByteBuffer> listOffsetsAsync(String partition, int bucket, long spec) {
    return connection.send(
        ApiKey.LIST_OFFSETS, new ListOffsetsRequest(id(), partition, bucket, spec).encode());
  }

  private long listOffsets(String partition, int bucket, long spec) {
    return ListOffsetsResponse.decode(
            connection.call(
                ApiKey.LIST_OFFSETS,
                new ListOffsetsRequest(id(), partition, bucket, spec).encode()))
        .offset();
  }
}
