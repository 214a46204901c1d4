package io.lakestream.flight.write;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Partitioning;
import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.ByteSink;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The writes of one ingest call ({@link FlightIngest}): aligns each sent batch to the table's
 * columns, splits it into stored batches of about {@value #TARGET_BATCH_BYTES} bytes, places their
 * rows in partitions and buckets as the Java client's {@code AppendWriter} does, frames each as a
 * log batch with its writer id (derived from the idempotency key, or random) and sequence 0, and
 * sends it over the stream RPC, resending it while its outcome is in doubt. {@link #await} returns
 * once every stored batch is durable. Used by one thread.
 */
final class IngestWriter {
  /** A sent batch is split into stored batches of about this many bytes at most. */
  private static final long TARGET_BATCH_BYTES = 8L << 20;

  /** Stored batches of one call sent and not yet acknowledged. */
  private static final int MAX_IN_FLIGHT = 16;

  /** Sends of one stored batch before the call fails. */
  private static final int MAX_ATTEMPTS = 6;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final FlightIngest.Resolved resolved;
  private final BufferAllocator allocator;
  private final io.lakestream.client.Table table;
  private final Schema schema;
  private final int[] sources;
  private final byte[] keyPrefix;
  private final long bucketSeed;
  private final int[] keyColumns;
  private final Partitioning.RowPartitioner partitioner;
  private final int[] routingColumns;
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);

  /** Sends not yet tallied: at most about {@link #MAX_IN_FLIGHT} plus the finished ones. */
  private final List<Send> sends = new ArrayList<>();

  private long rows;
  private long appended;
  private long duplicates;
  private int batches;
  private RuntimeException sendFailure;
  private long batchOrdinal;
  private long pieceOrdinal;

  IngestWriter(
      FlightIngest.Resolved resolved,
      String principal,
      String key,
      int[] sources,
      BufferAllocator allocator) {
    this.allocator = allocator;
    this.resolved = resolved;
    this.table = resolved.table();
    this.schema = resolved.schema();
    this.sources = sources;
    if (key == null) {
      this.keyPrefix = null;
      this.bucketSeed = RANDOM.nextLong();
    } else {
      this.keyPrefix =
          (principal + '\0' + table.id() + '\0' + key + '\0').getBytes(StandardCharsets.UTF_8);
      this.bucketSeed = ByteBuffer.wrap(sha256(keyPrefix)).getLong();
    }
    List<String> bucketKey = table.bucketKey();
    this.keyColumns = new int[bucketKey.size()];
    Set<Integer> routing = new java.util.TreeSet<>();
    for (int i = 0; i < keyColumns.length; i++) {
      keyColumns[i] = columnIndex(bucketKey.get(i));
      routing.add(keyColumns[i]);
    }
    Partitioning partitioning = table.partitioning();
    this.partitioner = partitioning.isPartitioned() ? partitioning.rowPartitioner() : null;
    if (partitioner != null) {
      for (io.lakestream.client.PartitionField field : partitioning.fields()) {
        routing.add(columnIndex(field.sourceColumn()));
      }
    }
    this.routingColumns = routing.stream().mapToInt(Integer::intValue).toArray();
  }

  private int columnIndex(String name) {
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("Table " + resolved.target() + " has no column " + name);
  }

  /** Writes one sent batch: aligns it to the table's columns, splits, routes and sends it. */
  void write(VectorSchemaRoot sent) {
    long ordinal = batchOrdinal++;
    int count = sent.getRowCount();
    List<FieldVector> owned = new ArrayList<>();
    try {
      List<FieldVector> vectors = new ArrayList<>();
      List<Field> fields = schema.getFields();
      for (int column = 0; column < fields.size(); column++) {
        FieldVector vector;
        if (sources[column] >= 0) {
          vector = sent.getVector(sources[column]);
          if (!fields.get(column).isNullable() && vector.getNullCount() > 0) {
            throw FlightIngest.invalid(
                "Column "
                    + fields.get(column).getName()
                    + " of "
                    + resolved.target()
                    + " is required (not null) but batch "
                    + ordinal
                    + " has "
                    + vector.getNullCount()
                    + " nulls in it; that batch and the ones after it were not written");
          }
        } else {
          vector = fields.get(column).createVector(allocator);
          owned.add(vector);
          vector.allocateNew();
          vector.setValueCount(count);
        }
        vectors.add(vector);
      }
      VectorSchemaRoot aligned = new VectorSchemaRoot(fields, vectors, count);
      long size = ArrowBatchCodec.estimatedSize(aligned);
      int pieces =
          (int) Math.max(1, Math.min(count, (size + TARGET_BATCH_BYTES - 1) / TARGET_BATCH_BYTES));
      int perPiece = (count + pieces - 1) / pieces;
      int piece = 0;
      for (int start = 0; start < count; start += perPiece, piece++) {
        int length = Math.min(perPiece, count - start);
        if (pieces == 1) {
          route(aligned, ordinal, piece);
        } else {
          try (VectorSchemaRoot slice = aligned.slice(start, length)) {
            route(slice, ordinal, piece);
          }
        }
      }
      rows += count;
    } finally {
      owned.forEach(FieldVector::close);
    }
  }

  /** Sends a piece to its partition and bucket, split by them when the table places rows. */
  private void route(VectorSchemaRoot piece, long ordinal, int pieceIndex) {
    int count = piece.getRowCount();
    long roundRobin = pieceOrdinal++;
    if (partitioner == null && keyColumns.length == 0) {
      send(
          piece,
          Partitioning.UNPARTITIONED,
          (int) Math.floorMod(bucketSeed + roundRobin, (long) table.buckets()),
          ordinal,
          pieceIndex);
      return;
    }
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    Object[] row = new Object[schema.getFields().size()];
    List<FieldVector> vectors = piece.getFieldVectors();
    for (int i = 0; i < count; i++) {
      for (int column : routingColumns) {
        row[column] = value(vectors.get(column), i);
      }
      String partition;
      try {
        partition = partitioner == null ? Partitioning.UNPARTITIONED : partitioner.partitionOf(row);
      } catch (IllegalArgumentException e) {
        throw FlightIngest.invalid(
            "Row " + i + " of batch " + ordinal + " has no partition: " + e.getMessage());
      }
      int bucket =
          keyColumns.length == 0
              ? (int) Math.floorMod(bucketSeed + roundRobin, (long) table.buckets())
              : AppendWriter.bucketOf(row, keyColumns, table.buckets());
      groups.computeIfAbsent(partition + '\0' + bucket, ignored -> new ArrayList<>()).add(i);
    }
    for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
      String name = group.getKey();
      int separator = name.lastIndexOf('\0');
      String partition = name.substring(0, separator);
      int bucket = Integer.parseInt(name.substring(separator + 1));
      List<Integer> members = group.getValue();
      if (members.size() == count) {
        send(piece, partition, bucket, ordinal, pieceIndex);
        continue;
      }
      try (VectorSchemaRoot part = VectorSchemaRoot.create(schema, allocator)) {
        part.allocateNew();
        List<FieldVector> target = part.getFieldVectors();
        for (int column = 0; column < target.size(); column++) {
          FieldVector from = vectors.get(column);
          FieldVector to = target.get(column);
          for (int i = 0; i < members.size(); i++) {
            to.copyFromSafe(members.get(i), i, from);
          }
          to.setValueCount(members.size());
        }
        part.setRowCount(members.size());
        send(part, partition, bucket, ordinal, pieceIndex);
      }
    }
  }

  /** A routing value as the Java client's {@code append} takes it (dates as LocalDate). */
  private static Object value(FieldVector vector, int row) {
    if (vector instanceof DateDayVector dates && !dates.isNull(row)) {
      return LocalDate.ofEpochDay(dates.get(row));
    }
    return ArrowValues.get(vector, row);
  }

  /** Encodes a root as one stored batch and sends it; the root may be reused on return. */
  private void send(
      VectorSchemaRoot root, String partition, int bucket, long ordinal, int pieceIndex) {
    ByteBuffer payload = encode(root);
    long writerId = writerId(payload, partition, bucket, ordinal, pieceIndex);
    LogBatch batch =
        LogBatch.createInPlace(
            payload,
            root.getRowCount(),
            table.schemaId(),
            writerId,
            0,
            (short) Compression.ZSTD.ordinal());
    inFlight.acquireUninterruptibly();
    CompletableFuture<ProduceResponse> sent = new CompletableFuture<>();
    sent.whenComplete((response, error) -> inFlight.release());
    transmit(batch, partition, bucket, 1, sent);
    sends.add(new Send(sent, root.getRowCount()));
    sends.removeIf(done -> done.result().isDone() && tally(done));
  }

  private void transmit(
      LogBatch batch,
      String partition,
      int bucket,
      int attempt,
      CompletableFuture<ProduceResponse> result) {
    CompletableFuture<ProduceResponse> ack;
    try {
      ack = table.append(partition, bucket, batch);
    } catch (RuntimeException e) {
      ack = CompletableFuture.failedFuture(e);
    }
    ack.whenComplete(
        (response, error) -> {
          if (error == null) {
            result.complete(response);
            return;
          }
          Throwable cause = error instanceof CompletionException ? error.getCause() : error;
          if (cause instanceof RpcException rpc
              && rpc.error().retriable()
              && attempt < MAX_ATTEMPTS) {
            // The store deduplicates the resend (same writer id and sequence).
            long backoff = Math.min(2_000, 50L << attempt);
            CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS)
                .execute(() -> transmit(batch, partition, bucket, attempt + 1, result));
            return;
          }
          result.completeExceptionally(cause);
        });
  }

  /** The stored batch's writer id: derived from the key and the batch, or random. */
  private long writerId(
      ByteBuffer encoded, String partition, int bucket, long ordinal, int pieceIndex) {
    if (keyPrefix == null) {
      return RANDOM.nextLong() & Long.MAX_VALUE;
    }
    CRC32C crc = new CRC32C();
    crc.update(encoded.duplicate().position(LogBatch.HEADER_SIZE));
    MessageDigest digest = newSha256();
    digest.update(keyPrefix);
    digest.update(
        ByteBuffer.allocate(8 + 4 + 4 + 8)
            .putLong(ordinal)
            .putInt(pieceIndex)
            .putInt(bucket)
            .putLong(crc.getValue())
            .array());
    digest.update(partition.getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(digest.digest()).getLong() & Long.MAX_VALUE;
  }

  /** Statistics and Arrow message behind room for the batch header, as the Java client frames. */
  private ByteBuffer encode(VectorSchemaRoot root) {
    byte[] statistics = BatchStatistics.compute(root).serialize();
    ByteSink out =
        new ByteSink(
            LogBatch.HEADER_SIZE + 4 + statistics.length + ArrowBatchCodec.estimatedSize(root));
    out.skip(LogBatch.HEADER_SIZE);
    out.writeInt(statistics.length);
    out.write(statistics, 0, statistics.length);
    ArrowBatchCodec.encode(root, Compression.ZSTD, out);
    return out.buffer();
  }

  /**
   * Waits for every send; fails with {@code failure} (if any) or the first failed send.
   *
   * @return the outcome once every row is durable
   */
  FlightIngest.Outcome await(RuntimeException failure) {
    for (Send send : sends) {
      try {
        send.result().get();
      } catch (ExecutionException e) {
        // tallied below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw CallStatus.CANCELLED
            .withDescription("Interrupted while waiting for the ingest to be durable")
            .toRuntimeException();
      }
      tally(send);
    }
    sends.clear();
    if (failure != null) {
      throw failure;
    }
    if (sendFailure != null) {
      throw sendFailure;
    }
    return new FlightIngest.Outcome(rows, appended, duplicates, batches);
  }

  /** Counts a finished send; always true (for {@code removeIf}). */
  private boolean tally(Send send) {
    batches++;
    ProduceResponse response;
    try {
      response = send.result().join();
    } catch (CompletionException e) {
      if (sendFailure == null) {
        Throwable cause = e.getCause();
        sendFailure =
            cause instanceof RpcException rpc
                ? FlightIngest.toFlight(rpc, resolved.target())
                : CallStatus.INTERNAL
                    .withDescription("Ingest into " + resolved.target() + " failed: " + cause)
                    .withCause(cause)
                    .toRuntimeException();
      }
      return true;
    }
    if (response.duplicate()) {
      duplicates += send.rows();
    } else {
      appended += send.rows();
    }
    return true;
  }

  /** A stored batch sent, and its rows. */
  private record Send(CompletableFuture<ProduceResponse> result, int rows) {}

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }

  private static byte[] sha256(byte[] bytes) {
    return newSha256().digest(bytes);
  }
}
