package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.PreparedBatch;
import io.lakestream.client.Table;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.sink2.Committer;

/**
 * Sends the exactly-once sink's prepared batches once their checkpoint completes, and again after a
 * restore: committing is idempotent, since every batch keeps the writer id and sequence it was
 * prepared with and the server stores a batch it already has once.
 *
 * <p>The batches of one writer id and bucket go out one at a time in sequence order, each after the
 * one before it was answered (the server takes a writer's sequences only in order); different
 * writers and buckets go out concurrently. Per batch:
 *
 * <ul>
 *   <li>acknowledged, or answered as a duplicate with its offsets: committed;
 *   <li>{@link ErrorCode#DUPLICATE_SEQUENCE} (a resend of a batch stored earlier than the server's
 *       window of a writer's last 5 batches per bucket): committed already;
 *   <li>a retriable error (the outcome is in doubt: connection lost, server restarting): sent again
 *       after a backoff, up to {@value #MAX_SEND_ATTEMPTS} attempts;
 *   <li>anything else, or the attempts used up: the request, and every later one of its writer and
 *       bucket (which cannot go before it), fails with an unknown reason, which fails the job. The
 *       restore commits them all again from the last completed checkpoint.
 * </ul>
 *
 * <p>Used by one committer subtask's thread.
 */
final class PreparedBatchCommitter implements Committer<PreparedBatch> {
  static final int MAX_SEND_ATTEMPTS = 6;
  private static final long FIRST_RETRY_BACKOFF_MILLIS = 100;
  private static final long MAX_RETRY_BACKOFF_MILLIS = 5_000;

  private final Connection connection;
  private final Table table;

  /** Takes over {@code connection}, closed with the committer. */
  PreparedBatchCommitter(Connection connection, Table table) {
    this.connection = requireNonNull(connection, "connection is null");
    this.table = requireNonNull(table, "table is null");
  }

  private record Sequence(long writerId, String partition, int bucket) {}

  @Override
  public void commit(Collection<CommitRequest<PreparedBatch>> requests)
      throws IOException, InterruptedException {
    Map<Sequence, List<CommitRequest<PreparedBatch>>> sequences = new LinkedHashMap<>();
    for (CommitRequest<PreparedBatch> request : requests) {
      PreparedBatch batch = request.getCommittable();
      sequences
          .computeIfAbsent(
              new Sequence(batch.writerId(), batch.partition(), batch.bucket()),
              key -> new ArrayList<>())
          .add(request);
    }
    List<CompletableFuture<Void>> sending = new ArrayList<>();
    for (List<CommitRequest<PreparedBatch>> sequence : sequences.values()) {
      sequence.sort(Comparator.comparingInt(request -> request.getCommittable().sequence()));
      sending.add(send(sequence, 0, 1));
    }
    try {
      CompletableFuture.allOf(sending.toArray(CompletableFuture[]::new)).get();
    } catch (ExecutionException e) {
      // send() signals every outcome on its requests and never completes exceptionally.
      throw new IOException("Committing to " + table.path() + " failed", e.getCause());
    }
  }

  /** Sends {@code sequence[index]} and then the rest, each after the one before it. */
  private CompletableFuture<Void> send(
      List<CommitRequest<PreparedBatch>> sequence, int index, int attempt) {
    if (index == sequence.size()) {
      return CompletableFuture.completedFuture(null);
    }
    CommitRequest<PreparedBatch> request = sequence.get(index);
    PreparedBatch batch = request.getCommittable();
    CompletableFuture<Void> sent;
    try {
      sent = table.send(batch).thenApply(response -> null);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle(
            (ignored, error) -> {
              if (error == null) {
                return send(sequence, index + 1, 1);
              }
              RpcException rpc = asRpcException(error);
              if (rpc != null && rpc.error() == ErrorCode.DUPLICATE_SEQUENCE) {
                request.signalAlreadyCommitted();
                return send(sequence, index + 1, 1);
              }
              if (rpc != null && rpc.error().retriable() && attempt < MAX_SEND_ATTEMPTS) {
                long backoff =
                    Math.min(MAX_RETRY_BACKOFF_MILLIS, FIRST_RETRY_BACKOFF_MILLIS << (attempt - 1));
                return CompletableFuture.supplyAsync(
                        () -> null,
                        CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS))
                    .thenCompose(later -> send(sequence, index, attempt + 1));
              }
              fail(sequence, index, batch, attempt, unwrap(error));
              return CompletableFuture.<Void>completedFuture(null);
            })
        .thenCompose(next -> next);
  }

  private void fail(
      List<CommitRequest<PreparedBatch>> sequence,
      int index,
      PreparedBatch batch,
      int attempts,
      Throwable cause) {
    IOException failure =
        new IOException(
            "Cannot commit a batch of "
                + batch.rowCount()
                + " rows to bucket "
                + batch.bucket()
                + (batch.partition().isEmpty() ? "" : " of partition " + batch.partition())
                + " of "
                + table.path()
                + " (writer "
                + batch.writerId()
                + ", sequence "
                + batch.sequence()
                + ") after "
                + attempts
                + (attempts == 1 ? " attempt: " : " attempts: ")
                + cause.getMessage(),
            cause);
    for (int i = index; i < sequence.size(); i++) {
      sequence.get(i).signalFailedWithUnknownReason(failure);
    }
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  private static RpcException asRpcException(Throwable error) {
    return unwrap(error) instanceof RpcException rpc ? rpc : null;
  }

  @Override
  public void close() {
    connection.close();
  }
}
