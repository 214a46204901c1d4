package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.metrics.Metrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * The splits of a union read: the log-tail splits (all known at planning time) first, then the lake
 * splits of the Iceberg connector's split source for the pinned snapshot, each passed through
 * {@code lakeSplit} (which wraps them for a primary-key table).
 */
final class UnionSplitSource implements ConnectorSplitSource {
  private final List<ConnectorSplit> tail;
  private final ConnectorSplitSource lake;
  private final UnaryOperator<ConnectorSplit> lakeSplit;
  private int next;

  UnionSplitSource(
      List<? extends ConnectorSplit> tail,
      ConnectorSplitSource lake,
      UnaryOperator<ConnectorSplit> lakeSplit) {
    this.tail = List.copyOf(tail);
    this.lake = requireNonNull(lake, "lake is null");
    this.lakeSplit = requireNonNull(lakeSplit, "lakeSplit is null");
  }

  @Override
  public CompletableFuture<List<ConnectorSplit>> getNextBatch(
      int maxSize, DynamicFilterSnapshot dynamicFilter) {
    if (next < tail.size()) {
      int end = Math.min(tail.size(), next + maxSize);
      List<ConnectorSplit> batch = new ArrayList<>(tail.subList(next, end));
      next = end;
      return CompletableFuture.completedFuture(batch);
    }
    return lake.getNextBatch(maxSize, dynamicFilter)
        .thenApply(splits -> splits.stream().map(lakeSplit).toList());
  }

  @Override
  public boolean isFinished() {
    return next >= tail.size() && lake.isFinished();
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
    lake.close();
  }
}
