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
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 *   <li>anything else (a sequence that skips ahead means the server lost an earlier batch), or the
 *       attempts used up: the batch, and every later one of its writer and bucket (which cannot go
 *       before it), stays unsent, and {@link #commit} throws once every other sequence is done,
 *       which fails the job. The restore commits the checkpoint's batches again.
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
  // Runs each next send and retry, so that none runs on the connection's own threads (a send may
  // block while the connection reconnects).
  private final ExecutorService sender =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-committer");
            thread.setDaemon(true);
            return thread;
          });

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
    Queue<CommitRequest<PreparedBatch>> alreadyCommitted = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<IOException>> sending = new ArrayList<>();
    for (List<CommitRequest<PreparedBatch>> sequence : sequences.values()) {
      sequence.sort(Comparator.comparingInt(request -> request.getCommittable().sequence()));
      sending.add(send(sequence, 0, 1, alreadyCommitted));
    }
    IOException failure = null;
    for (CompletableFuture<IOException> sent : sending) {
      IOException failed;
      try {
        failed = sent.get();
      } catch (ExecutionException e) {
        failed = new IOException("Committing to " + table.path() + " failed", e.getCause());
      }
      if (failed != null && failure == null) {
        failure = failed;
      } else if (failed != null) {
        failure.addSuppressed(failed);
      }
    }
    alreadyCommitted.forEach(CommitRequest::signalAlreadyCommitted);
    if (failure != null) {
      // Fails the job; the restore commits this checkpoint's batches again.
      throw failure;
    }
  }

  /**
   * Sends {@code sequence[index]} and then the rest, each after the one before it; completes with
   * the failure that stopped it, or null.
   */
  private CompletableFuture<IOException> send(
      List<CommitRequest<PreparedBatch>> sequence,
      int index,
      int attempt,
      Queue<CommitRequest<PreparedBatch>> alreadyCommitted) {
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
    return sent.handleAsync(
            (ignored, error) -> {
              if (error == null) {
                return send(sequence, index + 1, 1, alreadyCommitted);
              }
              RpcException rpc = asRpcException(error);
              if (rpc != null && rpc.error() == ErrorCode.DUPLICATE_SEQUENCE) {
                alreadyCommitted.add(request);
                return send(sequence, index + 1, 1, alreadyCommitted);
              }
              if (rpc != null && rpc.error().retriable() && attempt < MAX_SEND_ATTEMPTS) {
                long backoff =
                    Math.min(MAX_RETRY_BACKOFF_MILLIS, FIRST_RETRY_BACKOFF_MILLIS << (attempt - 1));
                return CompletableFuture.supplyAsync(
                        () -> null,
                        CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS, sender))
                    .thenCompose(later -> send(sequence, index, attempt + 1, alreadyCommitted));
              }
              return CompletableFuture.completedFuture(failure(batch, attempt, unwrap(error)));
            },
            sender)
        .thenCompose(next -> next);
  }

  private IOException failure(PreparedBatch batch, int attempts, Throwable cause) {
    return new IOException(
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
    try {
      sender.shutdownNow();
    } finally {
      connection.close();
    }
  }
}
