package io.lakestream.stream;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One idempotent writer of {@link LogCrashConsistencyIT}: appends to every bucket of a log table
 * under its own writer id with a sequence counter per bucket, keeps one batch in flight per bucket,
 * and remembers the offsets the server acknowledged.
 *
 * <p>A batch whose request failed with the connection is <em>in doubt</em>: the server may or may
 * not have written it. On the next connection the writer resends it with the same sequence before
 * it writes anything new to that bucket, so the server's deduplication decides whether it is
 * appended: when the crashed server had written it, the writer state rebuilt from the log must
 * answer with the original offsets and {@code duplicate}; when it had not, the batch is appended
 * now. Replaying the last acknowledged batch of a bucket checks the same without a race: it must
 * come back as a duplicate with its original offsets.
 *
 * <p>Confined to one thread at a time; the test hands it from round to round through {@code
 * Future.get}, which orders the accesses.
 */
final class AckTrackingWriter {
  private static final int MAX_RECORDS_PER_BATCH = 8;
  private static final int MAX_FILLER_BYTES = 256;
  private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * After the connection is lost, how long to wait for failed responses before the writer treats
   * the rest as in doubt (a response future the client never completes is reported, not hidden).
   */
  private static final Duration ABANDON_AFTER_CONNECTION_LOSS = Duration.ofSeconds(10);

  /** The Arrow schema of the tables this writer writes: one required long column {@code id}. */
  static final org.apache.arrow.vector.types.pojo.Schema SCHEMA =
      new org.apache.arrow.vector.types.pojo.Schema(
          List.of(
              org.apache.arrow.vector.types.pojo.Field.notNullable(
                  "id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true))));

  /**
   * A batch as the writer built it; its payload names it so a reader can tell which it is: its
   * rows' ids spell the writer, bucket and sequence, and the filler (a size the writer drew) is
   * spelt in too.
   */
  record SentBatch(long writerId, int bucket, int sequence, int recordCount, int fillerBytes) {
    ByteBuffer payload() {
      List<Object[]> rows = new ArrayList<>(recordCount);
      for (int i = 0; i < recordCount; i++) {
        long id = ((writerId * 1_000_003L + bucket) * 1_000_003L + sequence) * 1_024L + fillerBytes;
        rows.add(new Object[] {id * 16 + i});
      }
      return io.lakestream.testing.TestBatches.payload(
          SCHEMA, rows, io.lakestream.client.arrow.Compression.NONE);
    }

    LogBatch encode(int schemaId) {
      return LogBatch.create(recordCount, schemaId, writerId, sequence, (short) 0, payload());
    }
  }

  /** A batch the server acknowledged, with the offsets it returned. */
  record Ack(SentBatch batch, long baseOffset, long lastOffset, boolean duplicate) {}

  private enum Attempt {
    /** A batch with a fresh sequence. */
    NEW,
    /** An in-doubt batch resent with its original sequence. */
    RETRY,
    /** The last acknowledged batch resent: must come back as a duplicate. */
    REPLAY
  }

  private enum Phase {
    /** Retry what is in doubt, then append new batches until the connection fails. */
    WRITE,
    /** Retry what is in doubt, nothing else. */
    RESOLVE,
    /** Replay the last acknowledged batch of every bucket, nothing else. */
    REPLAY
  }

  private record InFlight(
      SentBatch batch,
      Attempt attempt,
      long sentNanos,
      CompletableFuture<ProduceResponse> response) {}

  private final long writerId;
  private final Random random;
  private final int[] nextSequence;
  private final SentBatch[] inDoubt;
  private final Ack[] lastAck;
  private final List<Ack> acks = new ArrayList<>();
  private volatile Runnable ackListener = () -> {};
  private int batchesPutInDoubt;
  private int retriesFoundWritten;
  private int retriesAppended;
  private int replaysDeduplicated;
  private int abandonedResponses;

  AckTrackingWriter(long writerId, int buckets, long seed) {
    this.writerId = writerId;
    this.random = new Random(seed);
    this.nextSequence = new int[buckets];
    this.inDoubt = new SentBatch[buckets];
    this.lastAck = new Ack[buckets];
  }

  /** Resends in-doubt batches, then appends new batches until the connection fails. */
  void writeUntilConnectionFails(Connection connection, Table table) throws InterruptedException {
    run(connection, table, Phase.WRITE);
  }

  /** Resends in-doubt batches only and returns once each is acknowledged. */
  void resolveInDoubt(Connection connection, Table table) throws InterruptedException {
    run(connection, table, Phase.RESOLVE);
    if (inDoubtCount() > 0) {
      throw new AssertionError("Writer " + writerId + " could not resolve " + inDoubtBatches());
    }
  }

  /**
   * Resends the last acknowledged batch of every bucket, which must come back as a duplicate with
   * its original offsets; nothing may be in doubt.
   */
  void replayLastAcknowledged(Connection connection, Table table) throws InterruptedException {
    if (inDoubtCount() > 0) {
      throw new IllegalStateException("Resolve " + inDoubtBatches() + " before replaying");
    }
    int before = replaysDeduplicated;
    run(connection, table, Phase.REPLAY);
    int expected = 0;
    for (Ack ack : lastAck) {
      expected += ack == null ? 0 : 1;
    }
    if (replaysDeduplicated - before != expected) {
      throw new AssertionError(
          "Writer " + writerId + " replayed " + (replaysDeduplicated - before) + " of " + expected);
    }
  }

  private void run(Connection connection, Table table, Phase phase) throws InterruptedException {
    requireNonNull(connection, "connection is null");
    int schemaId = table.schemaId();
    InFlight[] inFlight = new InFlight[nextSequence.length];
    for (int bucket = 0; bucket < inFlight.length; bucket++) {
      if (inDoubt[bucket] != null) {
        inFlight[bucket] = send(table, schemaId, inDoubt[bucket], Attempt.RETRY);
      } else if (phase == Phase.REPLAY && lastAck[bucket] != null) {
        inFlight[bucket] = send(table, schemaId, lastAck[bucket].batch(), Attempt.REPLAY);
      }
    }
    boolean connectionFailed = false;
    long connectionLostNanos = -1;
    while (true) {
      if (phase == Phase.WRITE && !connectionFailed) {
        for (int bucket = 0; bucket < inFlight.length; bucket++) {
          if (inFlight[bucket] == null) {
            SentBatch batch =
                new SentBatch(
                    writerId,
                    bucket,
                    nextSequence[bucket]++,
                    1 + random.nextInt(MAX_RECORDS_PER_BATCH),
                    random.nextInt(MAX_FILLER_BYTES));
            inFlight[bucket] = send(table, schemaId, batch, Attempt.NEW);
          }
        }
      }
      List<CompletableFuture<ProduceResponse>> pending = new ArrayList<>();
      for (InFlight request : inFlight) {
        if (request != null) {
          pending.add(request.response());
        }
      }
      if (pending.isEmpty()) {
        return;
      }
      awaitAny(pending);
      boolean progressed = false;
      for (int bucket = 0; bucket < inFlight.length; bucket++) {
        InFlight request = inFlight[bucket];
        if (request != null && request.response().isDone()) {
          connectionFailed |= !complete(request);
          inFlight[bucket] = null;
          progressed = true;
        }
      }
      if (progressed) {
        continue;
      }
      long now = System.nanoTime();
      if (!connection.isOpen()) {
        connectionLostNanos = connectionLostNanos < 0 ? now : connectionLostNanos;
        if (now - connectionLostNanos > ABANDON_AFTER_CONNECTION_LOSS.toNanos()) {
          connectionFailed = true;
          for (int bucket = 0; bucket < inFlight.length; bucket++) {
            if (inFlight[bucket] != null) {
              abandonedResponses++;
              markInDoubt(inFlight[bucket]);
              inFlight[bucket] = null;
            }
          }
        }
        continue;
      }
      for (InFlight request : inFlight) {
        if (request != null && now - request.sentNanos() > RESPONSE_TIMEOUT.toNanos()) {
          throw new AssertionError(
              "No response within " + RESPONSE_TIMEOUT + " from a live server to " + request);
        }
      }
    }
  }

  private static InFlight send(Table table, int schemaId, SentBatch batch, Attempt attempt) {
    return new InFlight(
        batch, attempt, System.nanoTime(), table.append(batch.bucket(), batch.encode(schemaId)));
  }

  private static void awaitAny(List<CompletableFuture<ProduceResponse>> pending)
      throws InterruptedException {
    try {
      CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new))
          .get(200, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // The caller inspects every future: failures and timeouts are handled per request.
    }
  }

  /** Records the outcome of a finished request; false when it failed with the connection. */
  private boolean complete(InFlight request) {
    SentBatch batch = request.batch();
    ProduceResponse response;
    try {
      response = request.response().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RpcException rpc && rpc.error() == ErrorCode.NETWORK_ERROR) {
        if (request.attempt() != Attempt.REPLAY) {
          markInDoubt(request);
        }
        return false;
      }
      throw new AssertionError(
          request.attempt() + " of " + batch + " failed: " + describe(e.getCause()), e.getCause());
    }
    if (response.lastOffset() != response.baseOffset() + batch.recordCount() - 1) {
      throw new AssertionError(
          request.attempt() + " of " + batch + " was acknowledged with offsets " + response);
    }
    switch (request.attempt()) {
      case NEW -> {
        if (response.duplicate()) {
          throw new AssertionError("Fresh sequence reported as a duplicate: " + batch + response);
        }
        acknowledge(batch, response);
      }
      case RETRY -> {
        if (response.duplicate()) {
          retriesFoundWritten++;
        } else {
          retriesAppended++;
        }
        inDoubt[batch.bucket()] = null;
        acknowledge(batch, response);
      }
      case REPLAY -> {
        Ack original = lastAck[batch.bucket()];
        if (!response.duplicate()
            || response.baseOffset() != original.baseOffset()
            || response.lastOffset() != original.lastOffset()) {
          throw new AssertionError(
              "Replay of acknowledged "
                  + original
                  + " after a restart was not deduplicated to its offsets: "
                  + response);
        }
        replaysDeduplicated++;
      }
    }
    return true;
  }

  private void acknowledge(SentBatch batch, ProduceResponse response) {
    Ack ack = new Ack(batch, response.baseOffset(), response.lastOffset(), response.duplicate());
    acks.add(ack);
    lastAck[batch.bucket()] = ack;
    ackListener.run();
  }

  /** Runs {@code listener} after each acknowledgement the writer records. */
  void onAck(Runnable listener) {
    this.ackListener = listener;
  }

  private void markInDoubt(InFlight request) {
    if (request.attempt() == Attempt.REPLAY) {
      return;
    }
    if (inDoubt[request.batch().bucket()] == null) {
      batchesPutInDoubt++;
    }
    inDoubt[request.batch().bucket()] = request.batch();
  }

  private static String describe(Throwable error) {
    return error instanceof RpcException rpc
        ? rpc.error() + ": " + rpc.getMessage()
        : String.valueOf(error);
  }

  long writerId() {
    return writerId;
  }

  List<Ack> acks() {
    return List.copyOf(acks);
  }

  List<SentBatch> inDoubtBatches() {
    List<SentBatch> batches = new ArrayList<>();
    for (SentBatch batch : inDoubt) {
      if (batch != null) {
        batches.add(batch);
      }
    }
    return batches;
  }

  int inDoubtCount() {
    return inDoubtBatches().size();
  }

  /** Distinct batches that were in flight when the connection failed. */
  int batchesPutInDoubt() {
    return batchesPutInDoubt;
  }

  /** In-doubt batches the server had written before the crash (deduplicated on retry). */
  int retriesFoundWritten() {
    return retriesFoundWritten;
  }

  /** In-doubt batches the server had not kept (appended on retry). */
  int retriesAppended() {
    return retriesAppended;
  }

  int replaysDeduplicated() {
    return replaysDeduplicated;
  }

  /** Responses the client never completed after the connection was lost. */
  int abandonedResponses() {
    return abandonedResponses;
  }
}
