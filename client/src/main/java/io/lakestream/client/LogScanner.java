package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.client.rpc.ResponseMemory;
import io.lakestream.client.rpc.RpcException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Reads a log table's buckets from chosen offsets: {@link #subscribe} buckets, then {@link #poll}
 * for batches as they become durable on the server. Each subscribed bucket keeps one fetch in
 * flight (a long poll when caught up), so new rows arrive without polling delay.
 *
 * <p>{@link #subscribeAll} subscribes every bucket of the table at once: of every partition of a
 * partitioned table, including partitions created later (found by a check every {@link
 * #PARTITION_CHECK_INTERVAL} during {@link #poll}, and read from their first row). {@link
 * #caughtUp()} tells a reader that has read up to the high watermark of every subscribed bucket,
 * for example a batch job that reads what is there now and stops, or a test that waits for the rows
 * it wrote:
 *
 * <pre>{@code
 * try (LogScanner scanner = table.newScanner()) {
 *   scanner.subscribeAll(LogScanner.earliest());
 *   do {
 *     for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
 *       try (batch) {
 *         process(batch);
 *       }
 *     }
 *   } while (!scanner.caughtUp());
 * }
 * }</pre>
 *
 * <p>Projection is done by the server, which sends only the requested columns' buffers; the filter
 * lets it skip whole batches by their statistics. Not thread safe: one thread polls.
 *
 * <p>A fetch that fails with a retriable error (the connection broke, for example because the
 * server restarted) is issued again from the bucket's position, on a new connection if need be;
 * nothing is skipped or read twice. {@link #poll} throws after {@value #MAX_FETCH_ATTEMPTS}
 * failures in a row of one bucket, or once its fetches have failed for {@link
 * Connection#RECONNECT_TIMEOUT} (a reconnect gives up after that long, so a server that is gone
 * fails the poll after about that long, not after that many reconnects).
 */
public final class LogScanner implements AutoCloseable {
  private static final int MAX_FETCH_BYTES = 8 << 20;
  // A bucket's first fetch asks for this much and each next one for twice the last, up to its
  // bound: the first rows arrive (and are decoded while more are read) sooner.
  private static final int FIRST_FETCH_BYTES = 512 << 10;
  // What the fetches of all buckets ask for together, at most: each bucket's fetch is bounded by
  // its share (but never below MIN_FETCH_BYTES), so that a scan of many buckets does not hold a
  // response of MAX_FETCH_BYTES for each of them.
  static final int IN_FLIGHT_FETCH_BYTES = 32 << 20;
  private static final int MIN_FETCH_BYTES = 256 << 10;
  private static final int MAX_WAIT_MILLIS = 500;
  // A response with at least this many bytes of batches is decoded (decompressed, its vectors
  // loaded) on a decoder thread as soon as it arrives, while the caller still reads the batches of
  // the previous one; smaller ones (a reader that keeps up gets a few rows at a time) are decoded
  // by poll, which saves the handing over.
  static final int ASYNC_DECODE_BYTES = 256 << 10;

  // Shared by the scanners of the JVM; idle threads end after a while.
  private static final ExecutorService DECODERS = decoders();

  /**
   * How often {@link #poll} looks for new partitions of a partitioned table after {@link
   * #subscribeAll}.
   */
  public static final Duration PARTITION_CHECK_INTERVAL = Duration.ofSeconds(2);

  /** Fetches of one bucket in a row that may fail retriably before {@link #poll} throws. */
  static final int MAX_FETCH_ATTEMPTS = 6;

  private final Table table;
  private final List<String> columns;
  private final BatchFilter filter;
  private final ByteBuffer encodedFilter;
  private final BufferAllocator allocator;
  private final Map<TableBucket, Long> positions = new HashMap<>();
  // Each bucket's fetch in flight: its response and, for a large one, its batches decoded already.
  private final Map<TableBucket, CompletableFuture<Fetched>> fetches = new HashMap<>();
  // Read by decoder threads too.
  private final Map<Integer, Schema> projectedSchemas = new ConcurrentHashMap<>();
  // Held by a decoder thread while it decodes, and by close(): once close() has returned, no
  // decoder allocates from the allocator, and the batches decoded before are closed.
  private final Object decodeLock = new Object();
  private boolean closed;
  private final ResponseBuffers responseBuffers = new ResponseBuffers();
  private final Map<TableBucket, FailedFetches> failedFetches = new HashMap<>();
  // The high watermark last seen per subscribed bucket: from its offset lookup or its last fetch.
  private final Map<TableBucket, Long> highWatermarks = new HashMap<>();
  // After subscribeAll of a partitioned table: the partitions it subscribed, and when to look for
  // new ones (System.nanoTime()); null when subscribeAll was not called.
  private Set<String> allPartitions;
  // The end (exclusive) of each bucket read as a bounded range.
  private final Map<TableBucket, Long> rangeEnds = new HashMap<>();
  private long nextPartitionCheckNanos;

  /** A bucket's fetches that failed in a row: how many, and when the first did. */
  private record FailedFetches(int count, long firstNanos) {
    FailedFetches another() {
      return new FailedFetches(count + 1, firstNanos);
    }

    boolean exhausted(long now) {
      return count >= MAX_FETCH_ATTEMPTS
          || now - firstNanos >= Connection.RECONNECT_TIMEOUT.toNanos();
    }
  }

  private final Map<TableBucket, Integer> fetchBytes = new HashMap<>();
  private final int[] projection;

  /**
   * @param allocator where batches are decoded, or null for one of the scanner's own
   */
  LogScanner(Table table, List<String> columns, BatchFilter filter, BufferAllocator allocator) {
    this.table = requireNonNull(table, "table is null");
    this.allocator = allocator == null ? new RootAllocator() : allocator;
    this.columns =
        columns.isEmpty() || !TableKind.PRIMARY_KEY.is(table.kind())
            ? List.copyOf(columns)
            : java.util.stream.Stream.concat(
                    columns.stream(),
                    java.util.stream.Stream.of(
                        io.lakestream.client.arrow.ArrowValues.CHANGE_TYPE_COLUMN))
                .toList();
    this.filter = requireNonNull(filter, "filter is null");
    Schema current = table.arrowSchema(table.schemaId());
    filter.validate(current);
    this.encodedFilter = ByteBuffer.wrap(filter.serialize());
    this.projection =
        this.columns.stream()
            .mapToInt(
                name -> {
                  int index = indexOf(current, name);
                  if (index < 0) {
                    throw new IllegalArgumentException(
                        "Table " + table.path() + " has no column " + name);
                  }
                  return index;
                })
            .toArray();
  }

  /**
   * Where a subscription starts; made by {@link #earliest()}, {@link #latest()}, {@link
   * #offset(long)} and {@link #timestamp(long)}.
   */
  public sealed interface Start {
    /** The bucket's first row still kept (log retention may have removed older ones). */
    record Earliest() implements Start {}

    /** The bucket's high watermark at subscription: only rows written from then on are read. */
    record Latest() implements Start {}

    /**
     * A given offset.
     *
     * @param offset the offset of the first row to read
     */
    record AtOffset(long offset) implements Start {}

    /**
     * The first row committed at or after a time.
     *
     * @param epochMillis milliseconds since the epoch
     */
    record AtTimestamp(long epochMillis) implements Start {}
  }

  /**
   * Starts at each bucket's first kept row.
   *
   * @return the start position
   */
  public static Start earliest() {
    return new Start.Earliest();
  }

  /**
   * Starts at each bucket's high watermark when subscribed: reads only rows written later.
   *
   * @return the start position
   */
  public static Start latest() {
    return new Start.Latest();
  }

  /**
   * Starts at an offset; the server refuses an offset outside the bucket's kept rows with {@code
   * OFFSET_OUT_OF_RANGE}.
   *
   * @param offset the offset of the first row to read
   * @return the start position
   */
  public static Start offset(long offset) {
    return new Start.AtOffset(offset);
  }

  /**
   * Starts at the first row the server committed at or after {@code epochMillis}.
   *
   * @param epochMillis milliseconds since the epoch
   * @return the start position
   */
  public static Start timestamp(long epochMillis) {
    return new Start.AtTimestamp(epochMillis);
  }

  /**
   * Starts (or restarts) reading a bucket of an unpartitioned table.
   *
   * @param bucket the bucket's index, from 0
   * @param start where to start reading
   */
  public void subscribe(int bucket, Start start) {
    if (table.isPartitioned()) {
      throw new IllegalArgumentException(
          "Table " + table.path() + " is partitioned: subscribe to a bucket of a partition");
    }
    subscribe(Partitioning.UNPARTITIONED, bucket, start);
  }

  /**
   * Starts (or restarts) reading a bucket of a partition ({@link Table#partitions()} lists them).
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for a table without
   *     partitions)
   * @param bucket the bucket's index, from 0
   * @param start where to start reading
   * @throws RpcException with {@code UNKNOWN_PARTITION} when the partition does not exist
   */
  public void subscribe(String partition, int bucket, Start start) {
    if (bucket < 0 || bucket >= table.buckets()) {
      throw new IllegalArgumentException("Table " + table.path() + " has no bucket " + bucket);
    }
    requireNonNull(start, "start is null");
    if (start instanceof Start.Earliest || start instanceof Start.Latest) {
      // The high watermark first, as caughtUp() compares with it: the log start cannot pass it.
      long highWatermark = table.latestOffset(partition, bucket);
      startAt(
          new TableBucket(partition, bucket),
          start instanceof Start.Earliest ? table.earliestOffset(partition, bucket) : highWatermark,
          highWatermark);
      return;
    }
    long offset;
    if (start instanceof Start.AtOffset at) {
      offset = at.offset();
    } else {
      offset =
          table.offsetForTimestamp(partition, bucket, ((Start.AtTimestamp) start).epochMillis());
    }
    startAt(new TableBucket(partition, bucket), offset, null);
  }

  /**
   * Subscribes every bucket of the table from {@code start}: of an unpartitioned table, or of every
   * partition a partitioned table has now. While this scanner polls, it also looks for partitions
   * created after this call (every {@link #PARTITION_CHECK_INTERVAL}) and reads their buckets from
   * their first row, whatever {@code start} is: a partition's first rows are new to the reader. A
   * partition that disappears (retention expired it) is unsubscribed. Buckets subscribed before
   * stay subscribed; a bucket subscribed again restarts at {@code start}.
   *
   * @param start where to start reading
   * @throws RpcException when the table's partitions or offsets cannot be looked up
   */
  public void subscribeAll(Start start) {
    requireNonNull(start, "start is null");
    List<String> partitions = table.partitions();
    subscribeAll(partitions, start);
    if (table.isPartitioned()) {
      allPartitions = new HashSet<>(partitions);
      nextPartitionCheckNanos = System.nanoTime() + PARTITION_CHECK_INTERVAL.toNanos();
    }
  }

  /** Subscribes every bucket of some partitions, looking their offsets up together. */
  private void subscribeAll(List<String> partitions, Start start) {
    if (start instanceof Start.Earliest || start instanceof Start.Latest) {
      Map<TableBucket, Table.BucketOffsets> offsets = table.offsets(partitions);
      offsets.forEach(
          (bucket, range) ->
              startAt(
                  bucket,
                  start instanceof Start.Earliest ? range.earliest() : range.latest(),
                  range.latest()));
      return;
    }
    for (String partition : partitions) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        subscribe(partition, bucket, start);
      }
    }
  }

  /** Subscribes partitions created since the last check and drops those that are gone. */
  private void checkPartitionsIfDue() {
    if (allPartitions == null || System.nanoTime() < nextPartitionCheckNanos) {
      return;
    }
    List<String> partitions;
    try {
      partitions = table.partitions();
    } catch (RpcException e) {
      if (!e.error().retriable()) {
        throw e;
      }
      // Checked again at the next interval, on a reconnected socket.
      nextPartitionCheckNanos = System.nanoTime() + PARTITION_CHECK_INTERVAL.toNanos();
      return;
    }
    List<String> created = new ArrayList<>();
    for (String partition : partitions) {
      if (!allPartitions.contains(partition)) {
        created.add(partition);
      }
    }
    for (String partition : new ArrayList<>(allPartitions)) {
      if (!partitions.contains(partition)) {
        for (int bucket = 0; bucket < table.buckets(); bucket++) {
          unsubscribe(partition, bucket);
        }
        allPartitions.remove(partition);
      }
    }
    if (!created.isEmpty()) {
      subscribeAll(created, earliest());
      allPartitions.addAll(created);
    }
    nextPartitionCheckNanos = System.nanoTime() + PARTITION_CHECK_INTERVAL.toNanos();
  }

  /**
   * Reads the offsets {@code [fromOffset, toOffset)} of a bucket of an unpartitioned table, for a
   * batch job: see {@link #subscribeRange(String, int, long, long)}.
   *
   * @param bucket the bucket's index, from 0
   * @param fromOffset the offset of the first row to read
   * @param toOffset the offset after the last row to read (exclusive)
   */
  public void subscribeRange(int bucket, long fromOffset, long toOffset) {
    if (table.isPartitioned()) {
      throw new IllegalArgumentException(
          "Table "
              + table.path()
              + " is partitioned: subscribe to a range of a partition's bucket");
    }
    subscribeRange(Partitioning.UNPARTITIONED, bucket, fromOffset, toOffset);
  }

  /**
   * Reads the offsets {@code [fromOffset, toOffset)} of a bucket of a partition, then stops
   * fetching it: {@link #poll} returns exactly the rows of that range (batches that straddle an end
   * come back cut to it; their {@link ScanBatch#baseOffset()} is the first row's offset), and the
   * bucket counts as {@link #caughtUp()} once its {@link #position} has reached {@code toOffset}. A
   * range that ends beyond the high watermark waits for its rows to be written. Subscribing the
   * bucket again (by any method) replaces the range.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for a table without
   *     partitions)
   * @param bucket the bucket's index, from 0
   * @param fromOffset the offset of the first row to read
   * @param toOffset the offset after the last row to read (exclusive)
   * @throws IllegalArgumentException for a bucket the table does not have, a negative offset, or
   *     {@code toOffset < fromOffset}
   */
  public void subscribeRange(String partition, int bucket, long fromOffset, long toOffset) {
    requireNonNull(partition, "partition is null");
    if (bucket < 0 || bucket >= table.buckets()) {
      throw new IllegalArgumentException("Table " + table.path() + " has no bucket " + bucket);
    }
    if (fromOffset < 0 || toOffset < fromOffset) {
      throw new IllegalArgumentException(
          "Cannot read offsets ["
              + fromOffset
              + ", "
              + toOffset
              + ") of "
              + new TableBucket(partition, bucket)
              + " of "
              + table.path()
              + ": the range must start at 0 or later and end at or after its start");
    }
    TableBucket key = new TableBucket(partition, bucket);
    startAt(key, fromOffset, null);
    rangeEnds.put(key, toOffset);
  }

  /**
   * Whether every subscribed bucket has been read up to the high watermark last seen for it: every
   * row that was durable when the scanner last asked has been returned by {@link #poll} (filtered
   * batches count as read). A bucket's high watermark is seen when it is subscribed at the earliest
   * or latest offset or by {@link #subscribeAll} with those, and in every fetch response; a bucket
   * subscribed at an offset or timestamp is not caught up before its first fetch has answered.
   *
   * <p>Like the end offsets a Kafka consumer compares its positions with, this is a moment's
   * answer: rows written since may follow in the next poll. After {@link #subscribeAll} of a
   * partitioned table it covers the partitions found so far. A bucket read as a range ({@link
   * #subscribeRange}) is caught up once it has reached the range's end. True when no bucket is
   * subscribed.
   *
   * @return whether every subscribed bucket has been read up to its last known high watermark
   */
  public boolean caughtUp() {
    for (Map.Entry<TableBucket, Long> entry : positions.entrySet()) {
      Long rangeEnd = rangeEnds.get(entry.getKey());
      Long highWatermark = rangeEnd != null ? rangeEnd : highWatermarks.get(entry.getKey());
      if (highWatermark == null || entry.getValue() < highWatermark) {
        return false;
      }
    }
    return true;
  }

  /**
   * Starts reading a bucket at an offset.
   *
   * @param highWatermark the bucket's high watermark if just looked up, else null
   */
  private void startAt(TableBucket key, long offset, Long highWatermark) {
    failedFetches.remove(key);
    CompletableFuture<Fetched> previous = fetches.remove(key);
    if (previous != null) {
      abandon(previous);
    }
    positions.put(key, offset);
    fetchBytes.put(key, FIRST_FETCH_BYTES);
    rangeEnds.remove(key);
    if (highWatermark == null) {
      highWatermarks.remove(key);
    } else {
      highWatermarks.put(key, highWatermark);
    }
  }

  /**
   * Stops reading a bucket of a partition (for example one that retention expired).
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for a table without
   *     partitions)
   * @param bucket the bucket's index, from 0
   */
  public void unsubscribe(String partition, int bucket) {
    TableBucket key = new TableBucket(partition, bucket);
    positions.remove(key);
    fetchBytes.remove(key);
    failedFetches.remove(key);
    highWatermarks.remove(key);
    rangeEnds.remove(key);
    CompletableFuture<Fetched> previous = fetches.remove(key);
    if (previous != null) {
      abandon(previous);
    }
  }

  /**
   * The offset the next row of a bucket will have.
   *
   * @param bucket the bucket's index, from 0
   * @return the offset of the next row this scanner returns from the bucket
   */
  public long position(int bucket) {
    return position(Partitioning.UNPARTITIONED, bucket);
  }

  /**
   * The offset the next row of a bucket of a partition will have.
   *
   * @param partition the partition's name ({@link Partitioning#UNPARTITIONED} for a table without
   *     partitions)
   * @param bucket the bucket's index, from 0
   * @return the offset of the next row this scanner returns from the bucket
   */
  public long position(String partition, int bucket) {
    Long position = positions.get(new TableBucket(partition, bucket));
    if (position == null) {
      throw new IllegalStateException(new TableBucket(partition, bucket) + " is not subscribed");
    }
    return position;
  }

  /**
   * Returns the batches that arrived, waiting up to {@code timeout} for at least one, or for a
   * bucket's {@link #position} to move: batches the server skipped by the filter arrive as nothing
   * but a new position, and a reader of a range must learn that it reached the range's end without
   * waiting for rows that may never come.
   *
   * @param timeout how long to wait for rows when none are ready
   * @return batches in offset order per bucket; the caller closes each
   * @throws RpcException when the server refuses a fetch (for example an offset below the log start
   *     after retention)
   */
  public List<ScanBatch> poll(Duration timeout) {
    List<ScanBatch> batches = new ArrayList<>();
    try {
      return poll(timeout, batches);
    } catch (RuntimeException | Error e) {
      // Batches decoded before the failure never reach the caller: free them here.
      batches.forEach(ScanBatch::close);
      throw e;
    }
  }

  private List<ScanBatch> poll(Duration timeout, List<ScanBatch> batches) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      checkPartitionsIfDue();
      long remaining = deadline - System.nanoTime();
      int wait =
          (int) Math.max(0, Math.min(MAX_WAIT_MILLIS, TimeUnit.NANOSECONDS.toMillis(remaining)));
      for (Map.Entry<TableBucket, Long> entry : positions.entrySet()) {
        if (rangeEnded(entry.getKey(), entry.getValue())) {
          continue;
        }
        fetches.computeIfAbsent(entry.getKey(), bucket -> fetch(bucket, entry.getValue(), wait));
      }
      if (fetches.isEmpty()) {
        long now = System.nanoTime();
        if (allPartitions == null || now >= deadline || Thread.currentThread().isInterrupted()) {
          return batches;
        }
        // Nothing to read yet: wait for the next partition check within the caller's timeout.
        LockSupport.parkNanos(Math.min(deadline, nextPartitionCheckNanos) - now);
        continue;
      }
      CompletableFuture<Object> any =
          CompletableFuture.anyOf(fetches.values().toArray(CompletableFuture[]::new));
      try {
        // A fetch asked for after the previous response long-polls for up to MAX_WAIT_MILLIS; the
        // caller's timeout is what bounds this call, and the fetch stays in flight for the next.
        any.get(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return batches;
      } catch (ExecutionException ignored) {
        // The failing fetch is reported below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return batches;
      }
      boolean moved = false;
      for (TableBucket bucket : new ArrayList<>(fetches.keySet())) {
        CompletableFuture<Fetched> fetch = fetches.get(bucket);
        if (!fetch.isDone()) {
          continue;
        }
        fetches.remove(bucket);
        Fetched fetched;
        try {
          fetched = await(fetch);
        } catch (RpcException e) {
          long now = System.nanoTime();
          FailedFetches failures =
              failedFetches.merge(bucket, new FailedFetches(1, now), (a, b) -> a.another());
          if (!e.error().retriable() || failures.exhausted(now)) {
            failedFetches.remove(bucket);
            throw e;
          }
          // Issued again from the same position by the next round.
          continue;
        }
        failedFetches.remove(bucket);
        FetchResponse response = fetched.response();
        highWatermarks.put(bucket, response.highWatermark());
        long position = positions.get(bucket);
        long next = Math.max(position, response.nextOffset());
        Long rangeEnd = rangeEnds.get(bucket);
        if (rangeEnd != null) {
          next = Math.min(next, rangeEnd);
        }
        if (next > position && !rangeEnded(bucket, next)) {
          // Ask for what follows before decoding this, so the server reads while we decode (and a
          // large response is decoded by a decoder thread while the caller reads this one).
          fetches.put(bucket, fetch(bucket, next, MAX_WAIT_MILLIS));
        }
        if (fetched.batches() != null) {
          batches.addAll(fetched.batches());
        } else {
          decode(bucket, position, rangeEnd, response, batches);
        }
        positions.put(bucket, next);
        moved |= next > position;
      }
      if (!batches.isEmpty() || moved || System.nanoTime() >= deadline) {
        return batches;
      }
    }
  }

  /** A fetch's response and, when a decoder thread decoded it, its batches (else null). */
  private record Fetched(FetchResponse response, List<ScanBatch> batches) {}

  /** A failure of a decoder thread other than an {@link RpcException}, to rethrow as it was. */
  private static final class DecodeFailure extends RuntimeException {
    DecodeFailure(Throwable cause) {
      super(cause);
    }
  }

  private static ExecutorService decoders() {
    int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread =
                  new Thread(task, "lakestream-scan-decoder-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /**
   * Fetches a bucket from an offset. A large response is decoded by a decoder thread when it
   * arrives, into the batches poll will return: with the offset and range end the scanner has now
   * (a bucket subscribed again drops this fetch with {@link #abandon}).
   */
  private CompletableFuture<Fetched> fetch(TableBucket bucket, long offset, int waitMillis) {
    Long rangeEnd = rangeEnds.get(bucket);
    CompletableFuture<Fetched> result = new CompletableFuture<>();
    table
        .fetch(
            bucket.partition(),
            bucket.bucket(),
            offset,
            nextFetchBytes(bucket),
            waitMillis,
            projection,
            encodedFilter,
            responseBuffers)
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                result.completeExceptionally(failure);
              } else if (response.batches().remaining() < ASYNC_DECODE_BYTES) {
                result.complete(new Fetched(response, null));
              } else {
                DECODERS.execute(() -> decodeAhead(bucket, offset, rangeEnd, response, result));
              }
            });
    return result;
  }

  /** Decodes a response on a decoder thread and completes {@code result} with its batches. */
  private void decodeAhead(
      TableBucket bucket,
      long offset,
      Long rangeEnd,
      FetchResponse response,
      CompletableFuture<Fetched> result) {
    synchronized (decodeLock) {
      if (closed) {
        // Left to whoever takes the fetch: abandon() gives its buffer back.
        result.complete(new Fetched(response, null));
        return;
      }
      List<ScanBatch> decoded = new ArrayList<>();
      try {
        decode(bucket, offset, rangeEnd, response, decoded);
      } catch (RuntimeException | Error e) {
        decoded.forEach(ScanBatch::close);
        result.completeExceptionally(e instanceof RpcException ? e : new DecodeFailure(e));
        return;
      }
      // Completed under the lock: an abandoned fetch's batches are closed before close() returns.
      result.complete(new Fetched(response, decoded));
    }
  }

  /** The outcome of a fetch that is done: its response, or the failure thrown as it was. */
  private static Fetched await(CompletableFuture<Fetched> fetch) {
    if (fetch.isCompletedExceptionally()) {
      Throwable failure;
      try {
        fetch.join();
        throw new IllegalStateException("unreachable");
      } catch (CompletionException e) {
        failure = e.getCause();
      }
      if (failure instanceof DecodeFailure decode) {
        Throwable cause = decode.getCause();
        if (cause instanceof Error error) {
          throw error;
        }
        throw (RuntimeException) cause;
      }
    }
    return Connection.await(fetch);
  }

  /** Whether a bucket read as a range has nothing more to read at a position. */
  private boolean rangeEnded(TableBucket bucket, long position) {
    if (rangeEnds.isEmpty()) {
      return false;
    }
    Long end = rangeEnds.get(bucket);
    return end != null && position >= end;
  }

  /** The size to ask the next fetch of a bucket for; the one after asks for twice as much. */
  private int nextFetchBytes(TableBucket bucket) {
    int bound =
        Math.max(
            MIN_FETCH_BYTES,
            Math.min(MAX_FETCH_BYTES, IN_FLIGHT_FETCH_BYTES / Math.max(1, positions.size())));
    int bytes = Math.min(bound, fetchBytes.getOrDefault(bucket, bound));
    fetchBytes.put(bucket, Math.min(bound, bytes * 2));
    return bytes;
  }

  /**
   * Direct memory for fetch responses: the connection reads a response straight into it (reading
   * into a heap array costs the JDK an extra copy through a direct buffer of its own), and the
   * decoded batches point into it, so a response's buffer is free again when its last batch is
   * closed ({@link ResponseLease}). Buffers are reused by the connection's scanners ({@link
   * ResponseBufferPool}: large short-lived buffers are costly to allocate and to collect); a fetch
   * the scanner drops gives its buffer back when its response arrives ({@link #abandon}).
   */
  private final class ResponseBuffers implements ResponseMemory {
    // Buffers lent to responses not yet decoded, by the address they start at.
    private final java.util.TreeMap<Long, ByteBuffer> lent = new java.util.TreeMap<>();

    @Override
    public synchronized ByteBuffer allocate(int size) {
      ByteBuffer buffer = table.connection().responseBuffers().take(size);
      lent.put(MemoryUtil.getByteBufferAddress(buffer), buffer);
      return buffer.clear().limit(size);
    }

    @Override
    public synchronized void discard(ByteBuffer body) {
      giveBack(body);
    }

    /** Takes back the buffer a response (or any slice of it) was read into. */
    synchronized void giveBack(ByteBuffer view) {
      if (!view.isDirect()) {
        return;
      }
      Map.Entry<Long, ByteBuffer> owner = lent.floorEntry(MemoryUtil.getByteBufferAddress(view));
      if (owner == null) {
        return;
      }
      ByteBuffer buffer = owner.getValue();
      if (MemoryUtil.getByteBufferAddress(view) >= owner.getKey() + buffer.capacity()) {
        return;
      }
      lent.remove(owner.getKey());
      table.connection().responseBuffers().give(buffer);
    }
  }

  /**
   * Decodes a response's batches without copying them out of the response's buffer (when it is
   * direct): each batch's columns point into it, and the buffer goes back to the spares when the
   * last of them is closed.
   */
  private void decode(
      TableBucket bucket,
      long position,
      Long rangeEnd,
      FetchResponse response,
      List<ScanBatch> into) {
    ByteBuffer bytes = response.batches();
    ResponseLease lease = new ResponseLease(bytes);
    try {
      while (bytes.remaining() >= LogBatch.HEADER_SIZE) {
        long size = LogBatch.LOG_OVERHEAD + (long) bytes.getInt(bytes.position() + LogBatch.LENGTH);
        if (size < LogBatch.HEADER_SIZE || size > bytes.remaining()) {
          throw new RpcException(
              ErrorCode.CORRUPT_BATCH,
              "Corrupt batch at offset "
                  + bytes.getLong(bytes.position() + LogBatch.BASE_OFFSET)
                  + " of bucket "
                  + bucket.bucket()
                  + (bucket.partition().isEmpty() ? "" : " of partition " + bucket.partition())
                  + " of "
                  + table.path()
                  + ": its length field says "
                  + size
                  + " bytes but "
                  + bytes.remaining()
                  + " arrived");
        }
        LogBatch batch = LogBatch.wrap(bytes.slice(bytes.position(), (int) size));
        bytes.position(bytes.position() + (int) size);
        if (batch.nextOffset() <= position) {
          continue;
        }
        if (rangeEnd != null && batch.baseOffset() >= rangeEnd) {
          break;
        }
        VectorSchemaRoot root;
        try {
          // A projected batch has no CRC (0): the server assembled it from checked buffers.
          if (batch.storedCrc() != 0 && !batch.isValid()) {
            throw new InvalidBatchFormatException("it fails its CRC-32C check");
          }
          Schema schema = schemaFor(batch.schemaId());
          ByteBuffer message = BatchPayload.message(batch.payload());
          if (message.isDirect()) {
            lease.retain();
            root = ArrowBatchCodec.decodeInPlace(message, schema, allocator, lease::release);
          } else {
            root = ArrowBatchCodec.decode(message, schema, allocator);
          }
        } catch (InvalidBatchFormatException | IllegalArgumentException e) {
          throw new RpcException(
              ErrorCode.CORRUPT_BATCH,
              "Corrupt batch at offset "
                  + batch.baseOffset()
                  + " of bucket "
                  + bucket.bucket()
                  + (bucket.partition().isEmpty() ? "" : " of partition " + bucket.partition())
                  + " of "
                  + table.path()
                  + ": "
                  + e.getMessage(),
              e);
        }
        long baseOffset = batch.baseOffset();
        if (rangeEnd != null) {
          // Only the batches at a range's ends are cut: a copy of the rows inside the range.
          int first = (int) Math.max(0, position - baseOffset);
          int end = (int) Math.min(root.getRowCount(), rangeEnd - baseOffset);
          if (first > 0 || end < root.getRowCount()) {
            root = copyRows(root, first, end);
            baseOffset += first;
          }
        }
        into.add(
            new ScanBatch(
                bucket.partition(),
                bucket.bucket(),
                baseOffset,
                batch.schemaId(),
                batch.commitTimestamp(),
                root));
      }
    } finally {
      lease.release();
    }
  }

  /**
   * Rows {@code [first, end)} of a batch, copied into the scanner's allocator; closes the batch.
   */
  private VectorSchemaRoot copyRows(VectorSchemaRoot root, int first, int end) {
    try (root) {
      VectorSchemaRoot copy = VectorSchemaRoot.create(root.getSchema(), allocator);
      copy.allocateNew();
      for (int column = 0; column < root.getFieldVectors().size(); column++) {
        FieldVector target = copy.getVector(column);
        TransferPair pair = root.getVector(column).makeTransferPair(target);
        for (int row = first; row < end; row++) {
          pair.copyValueSafe(row, row - first);
        }
        target.setValueCount(Math.max(0, end - first));
      }
      copy.setRowCount(Math.max(0, end - first));
      return copy;
    }
  }

  /**
   * Counts the references to a response's buffer: one of the decoding and one per batch decoded in
   * place. The last release gives the buffer back, from whichever thread closes the last batch.
   */
  private final class ResponseLease {
    private final ByteBuffer response;
    private final AtomicInteger references = new AtomicInteger(1);

    ResponseLease(ByteBuffer response) {
      this.response = response;
    }

    void retain() {
      references.incrementAndGet();
    }

    void release() {
      if (references.decrementAndGet() == 0) {
        responseBuffers.giveBack(response);
      }
    }
  }

  private Schema schemaFor(int schemaId) {
    Schema schema = projectedSchemas.get(schemaId);
    if (schema == null) {
      // Not computeIfAbsent: looking a schema up may ask the server.
      Schema written = table.arrowSchema(schemaId);
      schema =
          projection.length == 0
              ? written
              : ArrowBatchCodec.projectSchema(written, projectionFor(written));
      projectedSchemas.putIfAbsent(schemaId, schema);
    }
    return schema;
  }

  /** The requested columns that exist in a batch's schema, in request order. */
  int[] projectionFor(Schema written) {
    return columns.stream()
        .mapToInt(name -> indexOf(written, name))
        .filter(index -> index >= 0)
        .toArray();
  }

  /**
   * The position of a top-level column, or -1.
   *
   * @param schema an Arrow schema
   * @param name a column name
   * @return the column's position in the schema, or -1 if it has none of that name
   */
  public static int indexOf(Schema schema, String name) {
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The filter this scanner's fetches carry (the server skips batches it excludes).
   *
   * @return the filter
   */
  public BatchFilter filter() {
    return filter;
  }

  /**
   * Lets a fetch run to its end unread, so that its response's buffer goes back to the spares.
   * Cancelling the future instead would drop the response with its buffer still lent out.
   */
  private void abandon(CompletableFuture<Fetched> fetch) {
    fetch.whenComplete(
        (fetched, failure) -> {
          if (fetched == null) {
            return;
          }
          if (fetched.batches() != null) {
            // Decoded ahead: closing its batches gives the buffer back.
            fetched.batches().forEach(ScanBatch::close);
          } else {
            responseBuffers.giveBack(fetched.response().batches());
          }
        });
  }

  /** Stops fetching and releases memory; batches already returned stay valid until closed. */
  @Override
  public void close() {
    synchronized (decodeLock) {
      closed = true;
      fetches.values().forEach(this::abandon);
    }
    fetches.clear();
    positions.clear();
    highWatermarks.clear();
    rangeEnds.clear();
    allPartitions = null;
  }
}
