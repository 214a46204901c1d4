package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.trino.tail.LogTailSplit;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits of a streaming table's union read: the plan ({@link StreamAccess#plan}) pins the lake
 * snapshot the Iceberg connector resolved the table at and reads each bucket's high watermark now;
 * the lake splits come from the Iceberg connector's split manager (file pruning, dynamic
 * filtering), the log-tail splits from the plan's ranges. Every other table is the Iceberg
 * connector's.
 */
final class LakestreamSplitManager implements ConnectorSplitManager {
  /** Log tables' ranges are read by splits of at most this many records, in parallel. */
  static final long TAIL_SPLIT_RECORDS = 1 << 20;

  private final ConnectorSplitManager lake;
  private final StreamAccess streams;

  LakestreamSplitManager(ConnectorSplitManager lake, StreamAccess streams) {
    this.lake = requireNonNull(lake, "lake is null");
    this.streams = requireNonNull(streams, "streams is null");
  }

  @Override
  public ConnectorSplitSource getSplits(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorTableHandle table,
      Set<ColumnHandle> columns,
      Constraint constraint) {
    if (table instanceof ExactCountHandle count) {
      // The same plan a scan would read: the pinned snapshot's records, then the log ranges.
      UnionScanPlan plan = streams.plan(streams.path(count.schemaTableName()), count.snapshotId());
      return new FixedSplitSource(
          List.of(new ExactCountHandle.Split(count.lakeRecords() + plan.logRecords())));
    }
    if (!(table instanceof IcebergTableHandle handle) || !StreamAccess.isStreamTable(handle)) {
      return lake.getSplits(transaction, session, table, columns, constraint);
    }
    if (handle.getEnforcedPredicate().isNone()) {
      return new FixedSplitSource(List.of());
    }
    TablePath path = streams.path(handle.getSchemaTableName());
    ConnectorSplitSource lakeSplits =
        handle.getSnapshotId().isEmpty()
            ? new FixedSplitSource(List.of())
            : lake.getSplits(transaction, session, table, columns, constraint);
    return new UnionSplitSource(
        streams.planAsync(path, handle.getSnapshotId()).thenApply(plan -> planned(handle, plan)),
        lakeSplits);
  }

  private static UnionSplitSource.Planned planned(IcebergTableHandle handle, UnionScanPlan plan) {
    List<LogTailSplit> tail = new ArrayList<>();
    for (LogRange range : plan.logRanges()) {
      long step = plan.primaryKey() ? range.size() : TAIL_SPLIT_RECORDS;
      for (long from = range.from(); from < range.to(); from += step) {
        tail.add(
            new LogTailSplit(
                handle.getSchemaName(),
                handle.getTableName(),
                range.partition(),
                range.bucket(),
                from,
                Math.min(range.to(), from + step),
                plan.primaryKey()));
      }
    }
    if (!plan.primaryKey() || plan.logRanges().isEmpty()) {
      return new UnionSplitSource.Planned(tail, split -> split);
    }
    List<LogRange> changes = plan.logRanges();
    return new UnionSplitSource.Planned(tail, split -> new PrimaryKeyLakeSplit(split, changes));
  }
}
