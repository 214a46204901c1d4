package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.flink.ServerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one {@link LogSplit} per bucket of every partition of a streaming table and hands each to
 * the reader its id hashes to (once that reader has asked for splits), so a bucket is always read
 * by the same subtask while the parallelism stays. Start offsets are resolved once, when the
 * enumerator first starts; a restored enumerator only adds partitions that appeared since (read
 * from their start). Unbounded sources look for new partitions every {@code discoveryInterval};
 * bounded ones read the partitions there are at the start, each bucket up to its high watermark
 * then. With a {@link PartitionSelection} only the partitions it selects get splits.
 */
final class LogEnumerator implements SplitEnumerator<LogSplit, LogEnumeratorState> {
  private static final Logger LOG = LoggerFactory.getLogger(LogEnumerator.class);

  private final SplitEnumeratorContext<LogSplit> context;
  private final ServerAddress server;
  private final TablePath path;
  private final StartPositions start;
  private final boolean bounded;
  private final Duration discoveryInterval;
  private final PartitionSelection selection;
  private final Set<String> partitions;
  private final Map<Integer, List<LogSplit>> pending = new HashMap<>();
  private final Set<Integer> noMoreSplitsSent = new HashSet<>();
  // Readers that asked for splits: a reader asks once it runs (inside a HybridSource, once it has
  // switched to this source, which must not get splits before).
  private final Set<Integer> ready = new HashSet<>();
  private boolean started;
  private Connection connection;

  LogEnumerator(
      SplitEnumeratorContext<LogSplit> context,
      ServerAddress server,
      TablePath path,
      StartPositions start,
      boolean bounded,
      Duration discoveryInterval,
      PartitionSelection selection,
      LogEnumeratorState restored) {
    this.context = requireNonNull(context, "context is null");
    this.server = requireNonNull(server, "server is null");
    this.path = requireNonNull(path, "path is null");
    this.start = requireNonNull(start, "start is null");
    this.bounded = bounded;
    this.discoveryInterval = requireNonNull(discoveryInterval, "discoveryInterval is null");
    this.selection = selection;
    // Read by the discovery thread, changed on the coordinator's.
    this.partitions = ConcurrentHashMap.newKeySet();
    if (restored != null) {
      partitions.addAll(restored.partitions());
    }
    this.started = restored != null && restored.started();
    if (restored != null) {
      restored.unassigned().forEach(this::addPending);
    }
  }

  @Override
  public void start() {
    connection = server.connect();
    if (!started) {
      discover(false);
      started = true;
    }
    if (!bounded) {
      long interval = discoveryInterval.toMillis();
      context.callAsync(this::newPartitions, this::addPartitions, interval, interval);
    }
    assignPending();
  }

  /** Makes the splits of the partitions not seen before, resolving their start offsets. */
  private void discover(boolean afterStart) {
    addPartitions(newPartitions(), null, afterStart);
  }

  private List<LogSplit> newPartitions() {
    Table table = connection.table(path);
    List<String> current = table.partitions();
    List<LogSplit> splits = new ArrayList<>();
    for (String partition : current) {
      if (partitions.contains(partition)) {
        continue;
      }
      if (selection != null && !selection.includes(partition)) {
        // Pruned by the query's partition filter, which Flink no longer applies to the rows.
        continue;
      }
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        long from = start.resolve(table, partition, bucket, started);
        long to = bounded ? table.latestOffset(partition, bucket) : LogSplit.UNBOUNDED;
        splits.add(new LogSplit(partition, bucket, from, to));
      }
    }
    return splits;
  }

  private void addPartitions(List<LogSplit> splits, Throwable failure) {
    addPartitions(splits, failure, true);
  }

  private void addPartitions(List<LogSplit> splits, Throwable failure, boolean afterStart) {
    if (failure != null) {
      // A passing failure to list partitions must not fail the job; the next round retries.
      LOG.warn("Cannot list the partitions of {}; retrying", path, failure);
      return;
    }
    for (LogSplit split : splits) {
      if (partitions.add(split.partition()) && afterStart) {
        LOG.info("Reading new partition '{}' of {}", split.partition(), path);
      }
      addPending(split);
    }
    assignPending();
  }

  private void addPending(LogSplit split) {
    pending.computeIfAbsent(owner(split), reader -> new ArrayList<>()).add(split);
  }

  private int owner(LogSplit split) {
    return (split.splitId().hashCode() & Integer.MAX_VALUE) % context.currentParallelism();
  }

  private void assignPending() {
    for (int reader : context.registeredReaders().keySet()) {
      if (!ready.contains(reader)) {
        continue;
      }
      List<LogSplit> splits = pending.remove(reader);
      if (splits != null) {
        for (LogSplit split : splits) {
          context.assignSplit(split, reader);
        }
      }
      if (bounded && started && !noMoreSplitsSent.contains(reader)) {
        context.signalNoMoreSplits(reader);
        noMoreSplitsSent.add(reader);
      }
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    // A reader asks once, when it starts; from then on its splits are pushed as they appear.
    ready.add(subtaskId);
    assignPending();
  }

  @Override
  public void addSplitsBack(List<LogSplit> splits, int subtaskId) {
    splits.forEach(this::addPending);
    noMoreSplitsSent.remove(subtaskId);
    assignPending();
  }

  @Override
  public void addReader(int subtaskId) {
    // A new reader (or one restarted after a failure): it gets splits once it asks.
    ready.remove(subtaskId);
    noMoreSplitsSent.remove(subtaskId);
  }

  @Override
  public LogEnumeratorState snapshotState(long checkpointId) {
    List<LogSplit> unassigned = new ArrayList<>();
    pending.values().forEach(unassigned::addAll);
    return new LogEnumeratorState(started, partitions, unassigned);
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
  }
}
