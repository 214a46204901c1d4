package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.util.BucketUtil;

/**
 * Appends rows to a log table: rows are collected per bucket into Arrow batches, sent when a batch
 * is full or has lingered, and acknowledged once durable on the server.
 *
 * <p>Rows go to a bucket by the hash of the table's bucket key (Iceberg's bucket hash, so every
 * client places a key alike), or round-robin by batch when the table has none. Each writer has a
 * random writer id and a sequence per bucket, so a batch resent after a lost response is stored
 * once. {@link #flush()} sends everything pending and waits for every acknowledgement; a failed
 * batch fails the next {@code flush()} or {@code close()} with the server's typed error.
 *
 * <p>Thread safe; rows appended by one thread to one bucket keep their order.
 */
public final class AppendWriter implements AutoCloseable {
  private final Table table;
  private final WriterOptions options;
  private final Schema schema;
  private final int[] keyColumns;
  private final long writerId = new SecureRandom().nextLong() & Long.MAX_VALUE;
  private final BufferAllocator allocator = new RootAllocator();
  private final Bucket[] buckets;
  private final Semaphore inFlight;
  private final List<CompletableFuture<ProduceResponse>> unacknowledged = new ArrayList<>();
  private final ScheduledExecutorService lingerTimer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-writer-linger");
            thread.setDaemon(true);
            return thread;
          });
  private int nextRoundRobin;
  private RpcException failure;

  private final class Bucket {
    private final int index;
    private VectorSchemaRoot root;
    private int sequence;
    private ScheduledFuture<?> linger;

    Bucket(int index) {
      this.index = index;
    }
  }

  AppendWriter(Table table, WriterOptions options) {
    this.table = requireNonNull(table, "table is null");
    this.options = requireNonNull(options, "options is null");
    this.schema = table.arrowSchema(table.schemaId());
    this.keyColumns =
        table.bucketKey().stream().mapToInt(column -> LogScanner.indexOf(schema, column)).toArray();
    this.buckets = new Bucket[table.buckets()];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new Bucket(i);
    }
    this.inFlight = new Semaphore(options.maxInFlight());
  }

  /** The writer id its batches carry. */
  public long writerId() {
    return writerId;
  }

  /**
   * Appends one row, with a value per column of the table's current schema in order (null for a
   * null). Values: Long, Integer, Double, Float, String, Boolean, byte[], BigDecimal, LocalDate
   * (date), and Long microseconds for timestamps.
   */
  public void append(Object... values) {
    if (values.length != schema.getFields().size()) {
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
      Bucket bucket = buckets[bucketFor(values)];
      if (bucket.root == null) {
        bucket.root = VectorSchemaRoot.create(schema, allocator);
        bucket.root.allocateNew();
        bucket.linger =
            lingerTimer.schedule(
                () -> sendBucket(bucket, true), options.linger().toNanos(), TimeUnit.NANOSECONDS);
      }
      int row = bucket.root.getRowCount();
      for (int column = 0; column < values.length; column++) {
        set(bucket.root.getVector(column), row, values[column]);
      }
      bucket.root.setRowCount(row + 1);
      if (row + 1 >= options.batchRows()) {
        send(bucket);
      }
    }
  }

  private int bucketFor(Object[] values) {
    if (keyColumns.length == 0) {
      // Round-robin by batch: stay on the bucket that has an open batch.
      for (Bucket bucket : buckets) {
        if (bucket.root != null) {
          return bucket.index;
        }
      }
      nextRoundRobin = (nextRoundRobin + 1) % buckets.length;
      return nextRoundRobin;
    }
    int hash = 0;
    for (int column : keyColumns) {
      hash = 31 * hash + hash(values[column]);
    }
    return (hash & Integer.MAX_VALUE) % buckets.length;
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

  private static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
      return;
    }
    if (vector instanceof BigIntVector v) {
      v.setSafe(row, ((Number) value).longValue());
    } else if (vector instanceof IntVector v) {
      v.setSafe(row, ((Number) value).intValue());
    } else if (vector instanceof Float8Vector v) {
      v.setSafe(row, ((Number) value).doubleValue());
    } else if (vector instanceof Float4Vector v) {
      v.setSafe(row, ((Number) value).floatValue());
    } else if (vector instanceof VarCharVector v) {
      v.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
    } else if (vector instanceof BitVector v) {
      v.setSafe(row, ((Boolean) value) ? 1 : 0);
    } else if (vector instanceof VarBinaryVector v) {
      v.setSafe(row, (byte[]) value);
    } else if (vector instanceof DecimalVector v) {
      v.setSafe(row, (BigDecimal) value);
    } else if (vector instanceof DateDayVector v) {
      v.setSafe(row, (int) ((java.time.LocalDate) value).toEpochDay());
    } else if (vector instanceof TimeStampMicroTZVector v) {
      v.setSafe(row, ((Number) value).longValue());
    } else if (vector instanceof TimeStampMicroVector v) {
      v.setSafe(row, ((Number) value).longValue());
    } else {
      throw new IllegalArgumentException(
          "Unsupported column type " + vector.getField().getType() + " of " + vector.getName());
    }
  }

  /**
   * Appends a whole Arrow batch to one bucket as it is (its schema must be the table's current
   * schema); the caller keeps ownership of {@code root}.
   */
  public CompletableFuture<ProduceResponse> append(int bucket, VectorSchemaRoot root) {
    synchronized (this) {
      throwIfFailed();
      if (!root.getSchema().equals(schema)) {
        throw new IllegalArgumentException(
            "Batch schema differs from the current schema of " + table.path());
      }
      return sendRoot(buckets[bucket], root);
    }
  }

  private void sendBucket(Bucket bucket, boolean fromLinger) {
    synchronized (this) {
      if (bucket.root != null && (!fromLinger || bucket.root.getRowCount() > 0)) {
        send(bucket);
      }
    }
  }

  private void send(Bucket bucket) {
    VectorSchemaRoot root = bucket.root;
    bucket.root = null;
    if (bucket.linger != null) {
      bucket.linger.cancel(false);
      bucket.linger = null;
    }
    try {
      sendRoot(bucket, root);
    } finally {
      root.close();
    }
  }

  private CompletableFuture<ProduceResponse> sendRoot(Bucket bucket, VectorSchemaRoot root) {
    byte[] statistics = BatchStatistics.compute(root).serialize();
    LogBatch batch =
        LogBatch.create(
            root.getRowCount(),
            table.schemaId(),
            writerId,
            bucket.sequence++,
            (short) options.compression().ordinal(),
            BatchPayload.encode(statistics, ArrowBatchCodec.encode(root, options.compression())));
    inFlight.acquireUninterruptibly();
    CompletableFuture<ProduceResponse> ack = table.append(bucket.index, batch);
    unacknowledged.removeIf(done -> done.isDone() && !done.isCompletedExceptionally());
    unacknowledged.add(ack);
    ack.whenComplete(
        (response, error) -> {
          inFlight.release();
          if (error != null) {
            synchronized (this) {
              if (failure == null) {
                failure =
                    error.getCause() instanceof RpcException rpc
                        ? rpc
                        : error instanceof RpcException rpc2
                            ? rpc2
                            : new RpcException(
                                io.lakestream.client.rpc.ErrorCode.UNKNOWN_SERVER_ERROR,
                                String.valueOf(error));
              }
            }
          }
        });
    return ack;
  }

  private void throwIfFailed() {
    if (failure != null) {
      throw failure;
    }
  }

  /** Sends every pending row and waits until all are acknowledged. */
  public void flush() {
    List<CompletableFuture<ProduceResponse>> waiting;
    synchronized (this) {
      for (Bucket bucket : buckets) {
        if (bucket.root != null) {
          send(bucket);
        }
      }
      waiting = new ArrayList<>(unacknowledged);
      unacknowledged.clear();
    }
    for (CompletableFuture<ProduceResponse> ack : waiting) {
      try {
        Connection.await(ack);
      } catch (RpcException e) {
        synchronized (this) {
          failure = failure == null ? e : failure;
        }
      }
    }
    synchronized (this) {
      throwIfFailed();
    }
  }

  /** Flushes, then releases the writer's memory. */
  @Override
  public void close() {
    try {
      flush();
    } finally {
      lingerTimer.shutdownNow();
      synchronized (this) {
        for (Bucket bucket : buckets) {
          if (bucket.root != null) {
            bucket.root.close();
            bucket.root = null;
          }
        }
      }
      allocator.close();
    }
  }
}
