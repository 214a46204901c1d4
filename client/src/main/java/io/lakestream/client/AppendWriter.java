package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.ByteSink;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.util.BucketUtil;

/**
 * Appends rows to a log table: rows are collected per bucket into Arrow batches, sent when a batch
 * is full or has lingered, and acknowledged once durable on the server.
 *
 * <p>Rows go to a bucket by the hash of the table's bucket key (Iceberg's bucket hash, so every
 * client places a key alike), or round-robin by batch when the table has none. In a partitioned
 * table each row first goes to its partition ({@link Partitioning}, computed from the row as
 * Iceberg would), and each partition has its own buckets and batches; the server creates a
 * partition on its first batch. Each writer has a random writer id and a sequence per bucket, so a
 * batch resent after a lost response is stored once.
 *
 * <p><b>Acknowledgements.</b> {@code append} returns at once with a future of the row's {@link
 * WriteAck}: it completes when the row's batch is durable on the server (with the batch's bucket
 * and offsets), or fails with the batch's typed {@link RpcException} and then exactly the rows of
 * that batch are not written. Rows of one batch share one future, so acknowledgements cost nothing
 * per row. An application that must know which rows are durable keeps the futures (or chains on
 * them, as on a Kafka producer's callback); one that only needs "everything so far" calls {@link
 * #flush()}, which sends everything pending and waits for every acknowledgement. Once a batch has
 * failed the writer takes no more rows: the next {@code append}, {@code flush()} or {@code close()}
 * throws the server's typed error (a later batch of the same bucket would be refused out of
 * sequence anyway), while batches already sent keep their own outcome.
 *
 * <p>The appending thread only stores values into column arrays. A full or lingered batch is handed
 * off to a queue of ready batches, from which the writer's sender thread takes it to compute its
 * statistics, encode (and compress) and send it, so encoding overlaps with building the next batch.
 * A ready batch is sent once fewer than {@link WriterOptions#maxInFlightRequests()} of the writer's
 * batches, and fewer than {@value #MAX_IN_FLIGHT_PER_BUCKET} of its bucket's, are in flight; until
 * then the appending thread keeps filling the next batch. A batch that has lingered is handed off
 * only once it could be sent at once; until then it keeps taking rows (as Kafka's accumulator
 * does), so a writer held back by the server sends larger batches, not more of them. Handing off
 * never blocks, so neither a linger expiring nor {@link #flush()} waits for a permit while holding
 * the writer's lock; an append waits (backpressure) only when it needs a new batch while more than
 * {@code maxInFlightRequests} batches are handed off and not yet acknowledged, and it waits without
 * holding the lock. Batches are sent in the order they were handed off, so each bucket's sequence
 * reaches the server in order.
 *
 * <p><b>Retries.</b> A batch whose outcome is in doubt (the connection failed before its response,
 * or the server answered a retriable error) is resent as it was, with the same writer id and
 * sequence, up to {@value #MAX_SEND_ATTEMPTS} attempts in all; the {@link Connection} reconnects
 * underneath. The server stores a resent batch once and answers with the original offsets. Resends
 * go out in the order the batches were first sent, before any newer batch, and a newer batch the
 * server refused as out of sequence because an older one of its bucket was lost is resent after it.
 * Since the server remembers a writer's last 5 sequences per bucket, at most {@value
 * #MAX_IN_FLIGHT_PER_BUCKET} batches of one bucket are in flight at once. Only when the attempts
 * run out does the batch fail, and with it the writer.
 *
 * <p><b>Preparing writers.</b> A writer made by {@link Table#newPreparingAppendWriter} sends
 * nothing: it batches and encodes rows the same way (without linger: a batch is cut when full or at
 * {@link #prepare()}), frames each batch with its writer id and the bucket's next sequence, and
 * hands the batches to the caller from {@link #prepare()} as {@link PreparedBatch}es, to send with
 * {@link Table#send(PreparedBatch)} when the caller decides (a Flink sink, once a checkpoint
 * completes). {@link #flush()} then only encodes; {@link #append(String, int, VectorSchemaRoot)} is
 * refused.
 *
 * <p>Thread safe; rows appended by one thread to one bucket keep their order.
 */
public final class AppendWriter implements AutoCloseable {
  /** Sends of one batch (the first and its resends) before the writer gives up on it. */
  static final int MAX_SEND_ATTEMPTS = 6;

  /** Unacknowledged batches per bucket: the server deduplicates retries of a writer's last 5. */
  static final int MAX_IN_FLIGHT_PER_BUCKET = 5;

  private static final long FIRST_RETRY_BACKOFF_MILLIS = 50;
  private static final long MAX_RETRY_BACKOFF_MILLIS = 2_000;

  private static final byte[] NO_STATISTICS = new byte[0];

  private final Table table;
  private final WriterOptions options;
  private final Schema schema;
  private final int columnCount;
  // For a primary-key table's UpsertWriter: the columns a partial update writes (empty for whole
  // rows); null for a log table's writer.
  private final int[] targetColumns;
  private final int[] keyColumns;
  private final long writerId;
  // A preparing writer's framed batches, until prepare() hands them out; null for a writer that
  // sends.
  private final List<PreparedBatch> prepared;
  private final BufferAllocator allocator = new RootAllocator();
  private final Partitioning.RowPartitioner partitioner;
  private final Map<String, Partition> partitions = new HashMap<>();
  private final Semaphore inFlight;
  // Batches handed off and not yet sent, in hand-off order; guarded by itself.
  private final ArrayDeque<Ready> ready = new ArrayDeque<>();
  // Batches handed off and not yet acknowledged (ready or in flight).
  private final AtomicInteger handedOff = new AtomicInteger();
  // Appending threads waiting for room (guarded by this writer's lock, read without it).
  private volatile int waitingForRoom;
  // Buckets whose batch lingered out while it could not be sent at once (guarded by this lock).
  private final Set<Bucket> lingered = new HashSet<>();
  private volatile boolean anyLingered;
  private final ConcurrentLinkedQueue<RowBatch> freeBatches = new ConcurrentLinkedQueue<>();
  private final List<CompletableFuture<ProduceResponse>> unacknowledged = new ArrayList<>();
  private final AtomicReference<RpcException> failure = new AtomicReference<>();
  private final ExecutorService sender =
      Executors.newSingleThreadExecutor(daemon("lakestream-writer-sender"));
  private final ScheduledExecutorService lingerTimer =
      Executors.newSingleThreadScheduledExecutor(daemon("lakestream-writer-linger"));
  private final ScheduledExecutorService retryTimer =
      Executors.newSingleThreadScheduledExecutor(daemon("lakestream-writer-retry"));

  /** Batches sent and not yet acknowledged, and the subset in doubt; by send order. */
  private final NavigableMap<Long, Sent> outstanding = new TreeMap<>();

  private final NavigableMap<Long, Sent> inDoubt = new TreeMap<>();
  private long nextOrdinal;
  private boolean closed;
  // The only partition of an unpartitioned table, once rows went to it.
  private Partition unpartitioned;

  /** The buckets of one partition (the only one, named "", of an unpartitioned table). */
  private static final class Partition {
    private final String name;
    private final Bucket[] buckets;
    private int roundRobin;
    private int openRoundRobin = -1;

    Partition(String name, int bucketCount) {
      this.name = name;
      this.buckets = new Bucket[bucketCount];
      for (int i = 0; i < bucketCount; i++) {
        buckets[i] = new Bucket(this, i);
      }
    }
  }

  private static final class Bucket {
    private final Partition partition;
    private final int index;
    private RowBatch open;
    // The acknowledgement of the open batch, which every row added to it returns.
    private CompletableFuture<WriteAck> ack;
    private long generation;
    private int sequence;
    private ScheduledFuture<?> linger;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT_PER_BUCKET);

    Bucket(Partition partition, int index) {
      this.partition = partition;
      this.index = index;
    }

    TableBucket id() {
      return new TableBucket(partition.name, index);
    }
  }

  /** A batch handed off, its sequence taken, waiting for in-flight permits to be sent. */
  private record Ready(
      Bucket bucket,
      int sequence,
      int rows,
      Supplier<ByteBuffer> payload,
      byte[] operations,
      CompletableFuture<ProduceResponse> result) {}

  /** A framed batch on its way to the server; resent as is while its outcome is in doubt. */
  private static final class Sent {
    private final long ordinal;
    private final Bucket bucket;
    private final LogBatch batch;
    private final byte[] operations;
    private final CompletableFuture<ProduceResponse> result;
    private int attempts;

    Sent(
        long ordinal,
        Bucket bucket,
        LogBatch batch,
        byte[] operations,
        CompletableFuture<ProduceResponse> result) {
      this.ordinal = ordinal;
      this.bucket = bucket;
      this.batch = batch;
      this.operations = operations;
      this.result = result;
    }
  }

  AppendWriter(Table table, WriterOptions options, boolean preparing) {
    this(table, options, table.arrowSchema(table.schemaId()), null, preparing, randomWriterId());
  }

  AppendWriter(Table table, WriterOptions options, boolean preparing, long writerId) {
    this(table, options, table.arrowSchema(table.schemaId()), null, preparing, writerId);
  }

  AppendWriter(
      Table table, WriterOptions options, Schema schema, int[] targetColumns, boolean preparing) {
    this(table, options, schema, targetColumns, preparing, randomWriterId());
  }

  /** A new writer's id: random, so that two writers never share one. */
  static long randomWriterId() {
    return new SecureRandom().nextLong() & Long.MAX_VALUE;
  }

  /**
   * A writer of rows of {@code schema}; with {@code targetColumns} (empty for whole rows) it sends
   * a primary-key table's upserts and deletes instead of appends.
   */
  AppendWriter(
      Table table,
      WriterOptions options,
      Schema schema,
      int[] targetColumns,
      boolean preparing,
      long writerId) {
    if (writerId < 0) {
      throw new IllegalArgumentException("Writer id must not be negative: " + writerId);
    }
    this.writerId = writerId;
    this.table = requireNonNull(table, "table is null");
    this.prepared = preparing ? new ArrayList<>() : null;
    this.options = requireNonNull(options, "options is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.columnCount = schema.getFields().size();
    this.targetColumns = targetColumns;
    this.keyColumns =
        table.bucketKey().stream().mapToInt(column -> LogScanner.indexOf(schema, column)).toArray();
    Partitioning partitioning = table.partitioning();
    this.partitioner = partitioning.isPartitioned() ? partitioning.rowPartitioner() : null;
    this.inFlight = new Semaphore(options.maxInFlightRequests());
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * The writer id its batches carry.
   *
   * @return the writer id, random per writer
   */
  public long writerId() {
    return writerId;
  }

  /**
   * Appends one row, with a value per column of the table's current schema in order (null for a
   * null). Values: Long, Integer, Double, Float, String, Boolean, byte[], BigDecimal, LocalDate
   * (date), and Long microseconds for timestamps.
   *
   * <p>The row joins its bucket's open batch; the returned future completes when that batch is
   * acknowledged, that is durable on the server, or fails with the batch's {@link RpcException}
   * (its {@link RpcException#error() error code} says why) when the server refused it or its
   * retries ran out. The future is shared by the rows of the batch: it completes once for all of
   * them, so waiting on it costs nothing per row. A row whose future failed was not written; a row
   * whose future completed was written exactly once, even if its batch was resent.
   *
   * @param values a value per column of the table's current schema, in order
   * @return the acknowledgement of the row's batch
   * @throws IllegalArgumentException or ClassCastException for a row that does not fit the schema;
   *     the row is not appended and the writer stays usable
   * @throws RpcException when an earlier batch failed: the writer then takes no more rows
   */
  public CompletableFuture<WriteAck> append(Object... values) {
    return add(values, (byte) 0);
  }

  /**
   * Appends one row read from an accessor (see {@link RowAccessor} for which method each column's
   * type calls): the values go straight into the batch, without the {@code Object[]} and boxed
   * values of {@link #append(Object...)}. Batching, acknowledgement and failures are as {@link
   * #append(Object...)}'s.
   *
   * @param row the row, read through its accessor
   * @return the acknowledgement of the row's batch, as {@link #append(Object...)} returns it
   * @throws IllegalArgumentException for a row that does not fit the schema; the row is not
   *     appended and the writer stays usable
   * @throws RpcException when an earlier batch failed: the writer then takes no more rows
   */
  public CompletableFuture<WriteAck> append(RowAccessor row) {
    return add(row, (byte) 0);
  }

  /** Adds a row read from an accessor, as {@link #add(Object[], byte)}. */
  CompletableFuture<WriteAck> add(RowAccessor row, byte operation) {
    if (row.columnCount() != columnCount) {
      throw new IllegalArgumentException(
          "Row has "
              + row.columnCount()
              + " values; table "
              + table.path()
              + " has "
              + schema.getFields().size()
              + " columns");
    }
    if (partitioner != null || keyColumns.length > 0) {
      // The partition and the bucket are computed from values as append(Object...) takes them.
      Object[] values = new Object[row.columnCount()];
      for (int column = 0; column < values.length; column++) {
        values[column] = row.isNullAt(column) ? null : row.getObject(column);
      }
      return add(values, operation);
    }
    synchronized (this) {
      throwIfFailed();
      checkOpen();
      Bucket bucket = openBucket(unpartitioned(), null);
      if (targetColumns == null) {
        bucket.open.add(row);
      } else {
        bucket.open.add(row, operation);
      }
      CompletableFuture<WriteAck> ack = bucket.ack;
      if (bucket.open.isFull()) {
        handOff(bucket);
      }
      return ack;
    }
  }

  /**
   * Adds a row, with an operation code when the writer writes to a primary-key table; returns the
   * acknowledgement of its batch.
   */
  CompletableFuture<WriteAck> add(Object[] values, byte operation) {
    if (values.length != columnCount) {
      throw new IllegalArgumentException(
          "Row has "
              + values.length
              + " values; table "
              + table.path()
              + " has "
              + schema.getFields().size()
              + " columns");
    }
    synchronized (this) {
      throwIfFailed();
      checkOpen();
      Partition partition =
          partitioner == null ? unpartitioned() : partition(partitioner.partitionOf(values));
      Bucket bucket = openBucket(partition, values);
      if (targetColumns == null) {
        bucket.open.add(values);
      } else {
        bucket.open.add(values, operation);
      }
      CompletableFuture<WriteAck> ack = bucket.ack;
      if (bucket.open.isFull()) {
        handOff(bucket);
      }
      return ack;
    }
  }

  /**
   * The row's bucket, with an open batch. Opening a new batch first waits, without holding the
   * lock, while more than {@code maxInFlightRequests} batches are handed off and not acknowledged;
   * the caller holds the lock and has checked the writer is open and has not failed.
   */
  private Bucket openBucket(Partition partition, Object[] values) {
    boolean interrupted = false;
    try {
      while (true) {
        Bucket bucket = partition.buckets[bucketFor(partition, values)];
        if (bucket.open != null) {
          return bucket;
        }
        if (handedOff.get() <= options.maxInFlightRequests()) {
          open(bucket);
          return bucket;
        }
        interrupted |= awaitRoom();
        throwIfFailed();
        checkOpen();
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits, releasing the lock the caller holds, until an acknowledgement or a failure may have made
   * room; returns whether the thread was interrupted meanwhile.
   */
  private boolean awaitRoom() {
    waitingForRoom++;
    try {
      // The timeout only bounds a wait whose wake-up would be lost; release() notifies.
      wait(100);
      return false;
    } catch (InterruptedException e) {
      return true;
    } finally {
      waitingForRoom--;
    }
  }

  private void open(Bucket bucket) {
    RowBatch batch = freeBatches.poll();
    bucket.open =
        batch != null ? batch : new RowBatch(schema, options.batchRows(), options.batchBytes());
    bucket.ack = new CompletableFuture<>();
    long generation = ++bucket.generation;
    if (prepared == null) {
      bucket.linger =
          lingerTimer.schedule(
              () -> lingerExpired(bucket, generation),
              options.linger().toNanos(),
              TimeUnit.NANOSECONDS);
    }
    if (keyColumns.length == 0) {
      bucket.partition.openRoundRobin = bucket.index;
    }
  }

  private Partition unpartitioned() {
    if (unpartitioned == null) {
      unpartitioned = partition(Partitioning.UNPARTITIONED);
    }
    return unpartitioned;
  }

  private Partition partition(String name) {
    Partition partition = partitions.get(name);
    if (partition == null) {
      partition = new Partition(name, table.buckets());
      partitions.put(name, partition);
    }
    return partition;
  }

  private int bucketFor(Partition partition, Object[] values) {
    int buckets = partition.buckets.length;
    if (keyColumns.length == 0) {
      // Round-robin by batch: stay on the bucket that has an open batch.
      if (partition.openRoundRobin >= 0) {
        return partition.openRoundRobin;
      }
      partition.roundRobin = (partition.roundRobin + 1) % buckets;
      return partition.roundRobin;
    }
    return bucketOf(values, keyColumns, buckets);
  }

  /**
   * The bucket of a row by its bucket-key columns, as every client computes it (public so that
   * other writers of the server, such as Flight ingest, place rows alike).
   *
   * @param values the row's values as {@link #append(Object...)} takes them
   * @param keyColumns indexes of the bucket-key columns in {@code values}
   * @param buckets the number of buckets of the table (or of the partition)
   * @return the bucket's index, from 0 to {@code buckets - 1}
   */
  public static int bucketOf(Object[] values, int[] keyColumns, int buckets) {
    int hash = 0;
    for (int column : keyColumns) {
      hash = 31 * hash + hash(values[column]);
    }
    return (hash & Integer.MAX_VALUE) % buckets;
  }

  private static int hash(Object value) {
    if (value == null) {
      return 0;
    }
    if (value instanceof Long number) {
      return BucketUtil.hash(number);
    }
    if (value instanceof Integer number) {
      return BucketUtil.hash(number);
    }
    if (value instanceof CharSequence text) {
      return BucketUtil.hash(text);
    }
    if (value instanceof byte[] bytes) {
      return BucketUtil.hash(java.nio.ByteBuffer.wrap(bytes));
    }
    return value.hashCode();
  }

  /**
   * Appends a whole Arrow batch to one bucket as it is (its schema must be the table's current
   * schema). The batch is encoded before this returns, so the caller keeps ownership of {@code
   * root} and may reuse it at once.
   *
   * @param bucket the bucket's index, from 0
   * @param root the rows, in the table's current schema
   * @return completes when the batch is durable, with its offsets
   */
  public CompletableFuture<ProduceResponse> append(int bucket, VectorSchemaRoot root) {
    if (partitioner != null) {
      throw new IllegalArgumentException(
          "Table " + table.path() + " is partitioned: name the partition of the batch");
    }
    return append(Partitioning.UNPARTITIONED, bucket, root);
  }

  /**
   * As {@link #append(int, VectorSchemaRoot)}, to a bucket of a partition of a partitioned table.
   * Every row must belong to the partition; the server refuses the batch otherwise.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for a table without
   *     partitions)
   * @param bucket the bucket's index, from 0
   * @param root the rows, in the table's current schema
   * @return completes when the batch is durable, with its offsets
   */
  public CompletableFuture<ProduceResponse> append(
      String partition, int bucket, VectorSchemaRoot root) {
    requireNonNull(partition, "partition is null");
    if (prepared != null) {
      throw new IllegalStateException(
          "A preparing writer of " + table.path() + " takes rows, not Arrow batches");
    }
    if (!root.getSchema().equals(schema)) {
      throw new IllegalArgumentException(
          "Batch schema differs from the current schema of " + table.path());
    }
    if (bucket < 0 || bucket >= table.buckets()) {
      throw new IllegalArgumentException("Table " + table.path() + " has no bucket " + bucket);
    }
    if (root.getRowCount() == 0) {
      throw new IllegalArgumentException("Cannot append a batch without rows");
    }
    ByteBuffer encoded = encode(root);
    int rows = root.getRowCount();
    synchronized (this) {
      throwIfFailed();
      checkOpen();
      boolean interrupted = false;
      while (handedOff.get() > options.maxInFlightRequests()) {
        interrupted |= awaitRoom();
        throwIfFailed();
        checkOpen();
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      Bucket target = partition(partition).buckets[bucket];
      // Rows appended to this bucket before this batch go first.
      if (target.open != null) {
        handOff(target);
      }
      return submit(target, rows, () -> encoded, null);
    }
  }

  /**
   * A batch that lingered out is handed off only if it could be sent at once; otherwise, as in
   * Kafka's accumulator, it stays open and keeps taking rows until it is full or an acknowledgement
   * frees a permit ({@link #release} hands it off then), so backpressure makes batches larger, not
   * a queue of small ones. The check is repeated every linger in case that hand-off raced.
   */
  private void lingerExpired(Bucket bucket, long generation) {
    synchronized (this) {
      if (closed || bucket.open == null || bucket.generation != generation) {
        return;
      }
      if (canSendNow(bucket)) {
        handOff(bucket);
        return;
      }
      lingered.add(bucket);
      anyLingered = true;
      if (canSendNow(bucket)) {
        handOff(bucket);
        return;
      }
      try {
        bucket.linger =
            lingerTimer.schedule(
                () -> lingerExpired(bucket, generation),
                Math.max(options.linger().toNanos(), TimeUnit.MILLISECONDS.toNanos(1)),
                TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // Closing: close() flushes the batch.
      }
    }
  }

  /** Whether a batch of the bucket handed off now would be sent at once. */
  private boolean canSendNow(Bucket bucket) {
    synchronized (ready) {
      if (!ready.isEmpty()) {
        return false;
      }
    }
    return inFlight.availablePermits() > 0 && bucket.inFlight.availablePermits() > 0;
  }

  /** On the linger timer: hands off the lingered batches that can now be sent. */
  private void handOffLingered() {
    synchronized (this) {
      for (Bucket bucket : new ArrayList<>(lingered)) {
        if (!closed && bucket.open != null && canSendNow(bucket)) {
          handOff(bucket);
        }
      }
      anyLingered = !lingered.isEmpty();
    }
  }

  /** Hands the bucket's open batch to the sender's queue; never waits. */
  private void handOff(Bucket bucket) {
    RowBatch batch = bucket.open;
    CompletableFuture<WriteAck> ack = bucket.ack;
    bucket.open = null;
    bucket.ack = null;
    if (anyLingered) {
      lingered.remove(bucket);
    }
    if (bucket.linger != null) {
      bucket.linger.cancel(false);
      bucket.linger = null;
    }
    if (bucket.partition.openRoundRobin == bucket.index) {
      bucket.partition.openRoundRobin = -1;
    }
    if (batch.rowCount() == 0) {
      recycle(batch);
      // No row returned this future (a failed add left the batch empty): nothing waits on it.
      ack.cancel(false);
      return;
    }
    byte[] operations = targetColumns == null ? null : batch.operations();
    int rows = batch.rowCount();
    TableBucket id = bucket.id();
    CompletableFuture<ProduceResponse> result =
        submit(
            bucket,
            rows,
            () -> {
              try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                batch.writeTo(root);
                return encode(root);
              } finally {
                recycle(batch);
              }
            },
            operations);
    result.whenComplete(
        (response, error) -> {
          if (error != null) {
            ack.completeExceptionally(asRpcException(error));
          } else if (response == null) {
            // A preparing writer's batch: prepared, not yet sent, so there are no offsets.
            ack.complete(null);
          } else {
            ack.complete(
                new WriteAck(
                    id, response.baseOffset(), response.lastOffset(), rows, response.duplicate()));
          }
        });
  }

  /**
   * Queues one batch, with its bucket's next sequence, to be sent once permits allow; the caller
   * holds this writer's lock. Never waits.
   */
  private CompletableFuture<ProduceResponse> submit(
      Bucket bucket, int rows, Supplier<ByteBuffer> payload, byte[] operations) {
    int sequence = bucket.sequence++;
    CompletableFuture<ProduceResponse> result = new CompletableFuture<>();
    unacknowledged.removeIf(done -> done.isDone() && !done.isCompletedExceptionally());
    unacknowledged.add(result);
    handedOff.incrementAndGet();
    synchronized (ready) {
      ready.add(new Ready(bucket, sequence, rows, payload, operations, result));
    }
    sendReady();
    return result;
  }

  /**
   * Hands the ready batches to the sender thread, oldest first, while the writer's and the oldest
   * batch's bucket's in-flight permits allow; never waits. Called after each hand-off and after
   * each acknowledgement or failure frees permits, so a ready batch goes as soon as it may.
   */
  private void sendReady() {
    synchronized (ready) {
      while (!ready.isEmpty()) {
        Ready next = ready.peek();
        if (!inFlight.tryAcquire()) {
          return;
        }
        if (!next.bucket().inFlight.tryAcquire()) {
          inFlight.release();
          return;
        }
        ready.poll();
        try {
          sender.execute(
              () ->
                  send(
                      next.bucket(),
                      next.sequence(),
                      next.rows(),
                      next.payload(),
                      next.operations(),
                      next.result()));
        } catch (RejectedExecutionException e) {
          inFlight.release();
          next.bucket().inFlight.release();
          handedOff.decrementAndGet();
          next.result().completeExceptionally(e);
        }
      }
    }
  }

  /**
   * On the sender thread: frames the payload as a log batch and sends it, after the batches in
   * doubt.
   */
  private void send(
      Bucket bucket,
      int sequence,
      int rows,
      Supplier<ByteBuffer> payload,
      byte[] operations,
      CompletableFuture<ProduceResponse> result) {
    LogBatch batch;
    try {
      batch =
          LogBatch.createInPlace(
              payload.get(),
              rows,
              table.schemaId(),
              writerId,
              sequence,
              (short) options.compression().ordinal());
    } catch (RuntimeException | Error e) {
      // Fail the batch (and with it the writer) rather than leave its slot taken: an Error here
      // (a class missing from the classpath, say) would otherwise hang every later append.
      fail(bucket, result, asRpcException(e));
      if (e instanceof VirtualMachineError fatal) {
        throw fatal;
      }
      return;
    }
    if (prepared != null) {
      ByteBuffer framed = batch.buffer();
      byte[] bytes = new byte[framed.remaining()];
      framed.get(bytes);
      PreparedBatch ready =
          new PreparedBatch(
              bucket.partition.name,
              bucket.index,
              targetColumns == null ? null : targetColumns.clone(),
              operations,
              bytes);
      synchronized (prepared) {
        prepared.add(ready);
      }
      release(bucket);
      result.complete(null);
      return;
    }
    Sent sent = new Sent(nextOrdinal++, bucket, batch, operations, result);
    synchronized (outstanding) {
      outstanding.put(sent.ordinal, sent);
    }
    try {
      // After a broken connection, its batches' failures are in by the time the new one is up.
      table.connection().reconnectIfBroken();
    } catch (RpcException e) {
      // The send below fails the same way and the batch is retried.
    }
    resendInDoubt();
    transmit(sent);
  }

  /** On the timer: hands the resend of the batches in doubt to the sender thread. */
  private void queueResend() {
    try {
      sender.execute(this::resendInDoubt);
    } catch (RejectedExecutionException e) {
      List<Sent> abandoned;
      synchronized (outstanding) {
        abandoned = new ArrayList<>(inDoubt.values());
        inDoubt.clear();
        abandoned.forEach(sent -> outstanding.remove(sent.ordinal));
      }
      RpcException closed =
          new RpcException(ErrorCode.NETWORK_ERROR, "Writer closed before a resend");
      abandoned.forEach(sent -> fail(sent.bucket, sent.result, closed));
    }
  }

  /** On the sender thread: resends the batches in doubt, oldest first. */
  private void resendInDoubt() {
    List<Sent> resend;
    synchronized (outstanding) {
      resend = new ArrayList<>(inDoubt.values());
      inDoubt.clear();
    }
    resend.forEach(this::transmit);
  }

  private void transmit(Sent sent) {
    sent.attempts++;
    CompletableFuture<ProduceResponse> ack;
    try {
      ack =
          targetColumns == null
              ? table.append(sent.bucket.partition.name, sent.bucket.index, sent.batch)
              : table.putKv(
                  sent.bucket.partition.name,
                  sent.bucket.index,
                  targetColumns,
                  sent.operations,
                  sent.batch);
    } catch (RuntimeException | LinkageError e) {
      ack = CompletableFuture.failedFuture(e);
    }
    ack.whenComplete((response, error) -> acknowledged(sent, response, error));
  }

  private void acknowledged(Sent sent, ProduceResponse response, Throwable error) {
    if (error == null) {
      synchronized (outstanding) {
        outstanding.remove(sent.ordinal);
      }
      release(sent.bucket);
      sent.result.complete(response);
      return;
    }
    RpcException rpc = asRpcException(error);
    boolean retry;
    synchronized (outstanding) {
      retry =
          sent.attempts < MAX_SEND_ATTEMPTS
              && (rpc.error().retriable()
                  || (rpc.error() == ErrorCode.OUT_OF_ORDER_SEQUENCE && olderUnacknowledged(sent)));
      if (retry) {
        inDoubt.put(sent.ordinal, sent);
      } else {
        outstanding.remove(sent.ordinal);
      }
    }
    if (retry) {
      // Backed off on a timer of its own, not by sleeping on the sender: newer batches keep going
      // out meanwhile, and a newer batch sent first resends the in-doubt ones ahead of itself. (The
      // linger timer will not do: its tasks wait for the writer's lock, which appends hold.)
      long backoff =
          Math.min(
              MAX_RETRY_BACKOFF_MILLIS, FIRST_RETRY_BACKOFF_MILLIS << Math.min(sent.attempts, 10));
      try {
        retryTimer.schedule(this::queueResend, backoff, TimeUnit.MILLISECONDS);
        return;
      } catch (RejectedExecutionException e) {
        synchronized (outstanding) {
          inDoubt.remove(sent.ordinal);
          outstanding.remove(sent.ordinal);
        }
      }
    }
    if (sent.attempts > 1) {
      rpc =
          new RpcException(
              rpc.error(),
              "Batch of "
                  + sent.bucket.id()
                  + " of "
                  + table.path()
                  + " failed after "
                  + sent.attempts
                  + " attempts: "
                  + rpc.getMessage());
    }
    fail(sent.bucket, sent.result, rpc);
  }

  /** Whether a batch sent before this one to the same bucket still waits for its outcome. */
  private boolean olderUnacknowledged(Sent sent) {
    for (Sent older : outstanding.headMap(sent.ordinal, false).values()) {
      if (older.bucket == sent.bucket) {
        return true;
      }
    }
    return false;
  }

  private void fail(Bucket bucket, CompletableFuture<ProduceResponse> result, RpcException error) {
    release(bucket);
    failure.compareAndSet(null, error);
    result.completeExceptionally(error);
  }

  private void release(Bucket bucket) {
    inFlight.release();
    bucket.inFlight.release();
    handedOff.decrementAndGet();
    sendReady();
    if (anyLingered) {
      try {
        lingerTimer.execute(this::handOffLingered);
      } catch (RejectedExecutionException e) {
        // Closed: nothing lingers any more.
      }
    }
    if (waitingForRoom > 0) {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  /**
   * Statistics and Arrow message of a root, behind room for the batch header: the buffer is
   * positioned at 0 and ready for {@link LogBatch#createInPlace}. Batches of primary-key writes
   * carry no statistics: the server merges their rows into a changelog, which gets its own.
   */
  private ByteBuffer encode(VectorSchemaRoot root) {
    byte[] statistics =
        targetColumns == null ? BatchStatistics.compute(root).serialize() : NO_STATISTICS;
    ByteSink out =
        new ByteSink(
            LogBatch.HEADER_SIZE + 4 + statistics.length + ArrowBatchCodec.estimatedSize(root));
    out.skip(LogBatch.HEADER_SIZE);
    out.writeInt(statistics.length);
    out.write(statistics, 0, statistics.length);
    ArrowBatchCodec.encode(root, options.compression(), out);
    return out.buffer();
  }

  private void recycle(RowBatch batch) {
    batch.reset();
    freeBatches.add(batch);
  }

  private static RpcException asRpcException(Throwable error) {
    Throwable cause =
        error instanceof java.util.concurrent.CompletionException && error.getCause() != null
            ? error.getCause()
            : error;
    if (cause instanceof RpcException rpc) {
      return rpc;
    }
    return new RpcException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
  }

  private void throwIfFailed() {
    RpcException failed = failure.get();
    if (failed != null) {
      // A new exception per report: the same instance thrown twice, say by a failed append and
      // then by close() in a try-with-resources, could not be added as suppressed to itself.
      throw new RpcException(failed.error(), failed.getMessage(), failed);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Writer for " + table.path() + " is closed");
    }
  }

  /**
   * A preparing writer's batches of every row appended since the last call (the open batches are
   * cut), each framed with this writer's id and its bucket's next sequence; sequences of a bucket
   * follow one another across calls. Nothing is sent: send them with {@link
   * Table#send(PreparedBatch)}, each bucket's in sequence order.
   *
   * @return the framed batches, in the order to send them per bucket
   * @throws IllegalStateException for a writer that sends its batches itself
   * @throws RpcException when encoding a batch failed (the writer has then failed)
   */
  public List<PreparedBatch> prepare() {
    if (prepared == null) {
      throw new IllegalStateException(
          "Writer of " + table.path() + " sends its batches itself; it prepares none");
    }
    flush();
    synchronized (prepared) {
      List<PreparedBatch> ready = List.copyOf(prepared);
      prepared.clear();
      return ready;
    }
  }

  /**
   * Sends every pending row and waits until all are acknowledged (a preparing writer: until all are
   * encoded, see {@link #prepare()}).
   */
  public void flush() {
    List<CompletableFuture<ProduceResponse>> waiting;
    synchronized (this) {
      for (Partition partition : partitions.values()) {
        for (Bucket bucket : partition.buckets) {
          if (bucket.open != null) {
            handOff(bucket);
          }
        }
      }
      waiting = new ArrayList<>(unacknowledged);
      unacknowledged.clear();
    }
    for (CompletableFuture<ProduceResponse> ack : waiting) {
      try {
        Connection.await(ack);
      } catch (RpcException e) {
        failure.compareAndSet(null, e);
      }
    }
    throwIfFailed();
  }

  /** Flushes, then releases the writer's threads and memory. */
  @Override
  public void close() {
    try {
      flush();
    } finally {
      synchronized (this) {
        closed = true;
        for (Partition partition : partitions.values()) {
          for (Bucket bucket : partition.buckets) {
            if (bucket.ack != null) {
              // Rows added while a failed flush() returned: they were never sent.
              bucket.ack.completeExceptionally(
                  new RpcException(
                      ErrorCode.NETWORK_ERROR,
                      "Writer of " + table.path() + " closed before the batch was sent"));
            }
            bucket.open = null;
            bucket.ack = null;
          }
        }
      }
      lingerTimer.shutdownNow();
      retryTimer.shutdownNow();
      sender.shutdown();
      // Batches a failed flush() left waiting for permits: the sender no longer takes them.
      List<Ready> unsent;
      synchronized (ready) {
        unsent = new ArrayList<>(ready);
        ready.clear();
      }
      for (Ready batch : unsent) {
        batch
            .result()
            .completeExceptionally(
                new RpcException(
                    ErrorCode.NETWORK_ERROR,
                    "Writer of " + table.path() + " closed before the batch was sent"));
      }
      try {
        if (!sender.awaitTermination(30, TimeUnit.SECONDS)) {
          sender.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      freeBatches.clear();
      allocator.close();
    }
  }
}
