package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Sends prepared batches of a table as {@link Table#sendInOrder(List)} describes: each bucket's
 * batches of one writer in sequence order, one after another, the buckets at once; retriable
 * failures resent with a growing backoff.
 */
final class OrderedSend {
  static final int MAX_ATTEMPTS = 6;
  private static final long FIRST_BACKOFF_MILLIS = 100;
  private static final long MAX_BACKOFF_MILLIS = 2_000;

  // Runs each next send and each resend, so that none runs on a connection's own threads, where a
  // send that waits for a reconnect would wait for itself.
  private static final ExecutorService SENDER =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-ordered-send");
            thread.setDaemon(true);
            return thread;
          });

  private final Table table;
  private final List<PreparedBatch> batches;
  private final PreparedBatch.Outcome[] outcomes;

  private OrderedSend(Table table, List<PreparedBatch> batches) {
    this.table = requireNonNull(table, "table is null");
    this.batches = List.copyOf(batches);
    this.outcomes = new PreparedBatch.Outcome[this.batches.size()];
  }

  static CompletableFuture<List<PreparedBatch.Outcome>> send(
      Table table, List<PreparedBatch> batches) {
    return new OrderedSend(table, batches).start();
  }

  private record Sequence(long writerId, String partition, int bucket) {}

  private CompletableFuture<List<PreparedBatch.Outcome>> start() {
    Map<Sequence, List<Integer>> sequences = new LinkedHashMap<>();
    for (int i = 0; i < batches.size(); i++) {
      PreparedBatch batch = batches.get(i);
      sequences
          .computeIfAbsent(
              new Sequence(batch.writerId(), batch.partition(), batch.bucket()),
              key -> new ArrayList<>())
          .add(i);
    }
    List<CompletableFuture<Void>> chains = new ArrayList<>();
    for (List<Integer> sequence : sequences.values()) {
      sequence.sort(Comparator.comparingInt(index -> batches.get(index).sequence()));
      chains.add(sendFrom(sequence, 0, 1));
    }
    return CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new))
        .thenApply(done -> List.of(outcomes));
  }

  /** Sends {@code sequence[position]}, then the rest of the sequence after it. */
  private CompletableFuture<Void> sendFrom(List<Integer> sequence, int position, int attempt) {
    if (position == sequence.size()) {
      return CompletableFuture.completedFuture(null);
    }
    int index = sequence.get(position);
    PreparedBatch batch = batches.get(index);
    CompletableFuture<ProduceResponse> sent;
    try {
      sent = table.send(batch);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handleAsync(
            (response, error) -> {
              if (error == null) {
                outcomes[index] =
                    response.duplicate()
                        ? PreparedBatch.Outcome.ALREADY_STORED
                        : PreparedBatch.Outcome.STORED;
                return sendFrom(sequence, position + 1, 1);
              }
              Throwable cause = unwrap(error);
              if (cause instanceof RpcException rpc
                  && rpc.error() == ErrorCode.DUPLICATE_SEQUENCE) {
                outcomes[index] = PreparedBatch.Outcome.ALREADY_STORED;
                return sendFrom(sequence, position + 1, 1);
              }
              if (cause instanceof RpcException rpc
                  && rpc.error().retriable()
                  && attempt < MAX_ATTEMPTS) {
                long backoff = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << (attempt - 1));
                return CompletableFuture.runAsync(
                        () -> {}, CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS))
                    .thenCompose(later -> sendFrom(sequence, position, attempt + 1));
              }
              return CompletableFuture.<Void>failedFuture(failure(batch, attempt, cause));
            },
            SENDER)
        .thenCompose(next -> next);
  }

  private RpcException failure(PreparedBatch batch, int attempts, Throwable cause) {
    ErrorCode code = cause instanceof RpcException rpc ? rpc.error() : ErrorCode.NETWORK_ERROR;
    return new RpcException(
        code,
        "Cannot send a batch of "
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
}
