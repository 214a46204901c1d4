package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.PreparedBatch;
import io.lakestream.client.Table;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.connector.sink2.Committer;

/**
 * Sends the exactly-once sink's prepared batches once their checkpoint completes, and again after a
 * restore: committing is idempotent, since every batch keeps the writer id and sequence it was
 * prepared with and the server stores a batch it already has once.
 *
 * <p>The batches go out through {@link Table#sendInOrder}: those of one writer id and bucket one at
 * a time in sequence order (the server takes a writer's sequences only in order), different writers
 * and buckets concurrently. Per batch:
 *
 * <ul>
 *   <li>stored now: committed;
 *   <li>stored before (a resend answered as a duplicate, or with {@link
 *       io.lakestream.client.rpc.ErrorCode#DUPLICATE_SEQUENCE} when older than the server's window
 *       of a writer's last 5 batches per bucket): committed already;
 *   <li>a retriable error (the outcome is in doubt: connection lost, server restarting): sent again
 *       after a backoff, up to 6 attempts;
 *   <li>anything else (a sequence that skips ahead means the server lost an earlier batch), or the
 *       attempts used up: the batch, and every later one of its writer and bucket (which cannot go
 *       before it), stays unsent, and {@link #commit} throws once every other sequence is done,
 *       which fails the job. The restore commits the checkpoint's batches again.
 * </ul>
 *
 * <p>Used by one committer subtask's thread.
 */
final class PreparedBatchCommitter implements Committer<PreparedBatch> {
  private final Connection connection;
  private final Table table;

  /** Takes over {@code connection}, closed with the committer. */
  PreparedBatchCommitter(Connection connection, Table table) {
    this.connection = requireNonNull(connection, "connection is null");
    this.table = requireNonNull(table, "table is null");
  }

  @Override
  public void commit(Collection<CommitRequest<PreparedBatch>> requests)
      throws IOException, InterruptedException {
    List<CommitRequest<PreparedBatch>> ordered = new ArrayList<>(requests);
    List<PreparedBatch.Outcome> outcomes;
    try {
      outcomes =
          table.sendInOrder(ordered.stream().map(CommitRequest::getCommittable).toList()).get();
    } catch (ExecutionException e) {
      // Fails the job; the restore commits this checkpoint's batches again.
      throw new IOException(
          "Committing to " + table.path() + " failed: " + e.getCause().getMessage(), e.getCause());
    }
    for (int i = 0; i < ordered.size(); i++) {
      if (outcomes.get(i) == PreparedBatch.Outcome.ALREADY_STORED) {
        ordered.get(i).signalAlreadyCommitted();
      }
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
