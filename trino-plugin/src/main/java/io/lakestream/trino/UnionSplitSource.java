package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.metrics.Metrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * The splits of a union read: the log-tail splits first, then the lake splits of the Iceberg
 * connector's split source for the pinned snapshot, each passed through the plan's {@code
 * lakeSplit} (which wraps them for a primary-key table).
 *
 * <p>The plan (the high watermarks, hence the tail splits) is made in the background, beginning
 * when the source is made: Trino makes the split sources of all a query's tables one after the
 * other on the query's planning thread, so planning there would add each table's round trips to the
 * query's latency. Trino asks for one batch at a time.
 */
final class UnionSplitSource implements ConnectorSplitSource {
  /** What planning gives: the tail splits and how lake splits are passed on. */
  record Planned(List<? extends ConnectorSplit> tail, UnaryOperator<ConnectorSplit> lakeSplit) {
    Planned {
      tail = List.copyOf(tail);
      requireNonNull(lakeSplit, "lakeSplit is null");
    }
  }

  private final CompletableFuture<Planned> planned;
  private final ConnectorSplitSource lake;
  private volatile int next;

  UnionSplitSource(CompletableFuture<Planned> planned, ConnectorSplitSource lake) {
    this.planned = requireNonNull(planned, "planned is null");
    this.lake = requireNonNull(lake, "lake is null");
  }

  @Override
  public CompletableFuture<List<ConnectorSplit>> getNextBatch(
      int maxSize, DynamicFilterSnapshot dynamicFilter) {
    // Fails with the planning's own exception (a TrinoException naming the problem), not the
    // CompletionException a dependent future wraps it in.
    CompletableFuture<List<ConnectorSplit>> batch = new CompletableFuture<>();
    planned
        .thenCompose(plan -> nextBatch(plan, maxSize, dynamicFilter))
        .whenComplete(
            (splits, failure) -> {
              if (failure == null) {
                batch.complete(splits);
              } else {
                batch.completeExceptionally(
                    failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure);
              }
            });
    return batch;
  }

  private CompletableFuture<List<ConnectorSplit>> nextBatch(
      Planned plan, int maxSize, DynamicFilterSnapshot dynamicFilter) {
    List<? extends ConnectorSplit> tail = plan.tail();
    if (next < tail.size()) {
      int end = Math.min(tail.size(), next + maxSize);
      List<ConnectorSplit> batch = new ArrayList<>(tail.subList(next, end));
      next = end;
      return CompletableFuture.completedFuture(batch);
    }
    return lake.getNextBatch(maxSize, dynamicFilter)
        .thenApply(splits -> splits.stream().map(plan.lakeSplit()).toList());
  }

  @Override
  public boolean isFinished() {
    // A failed plan is not finished: the next batch reports the failure.
    Planned plan = planned.isDone() && !planned.isCompletedExceptionally() ? planned.join() : null;
    return plan != null && next >= plan.tail().size() && lake.isFinished();
  }

  @Override
  public long getRequestedDynamicFilterWaitTimeoutMillis() {
    return lake.getRequestedDynamicFilterWaitTimeoutMillis();
  }

  @Override
  public Metrics getMetrics() {
    return lake.getMetrics();
  }

  @Override
  public void close() {
    planned.cancel(false);
    lake.close();
  }
}
