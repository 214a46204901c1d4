package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The planner's view of a streaming table as a sink: a log table takes inserts only, a primary-key
 * table an upsert changelog (inserts, updates after, deletes; no updates before, since an upsert by
 * key replaces the old row).
 */
final class LakestreamDynamicSink implements DynamicTableSink {
  private final Sink<RowData> sink;
  private final boolean primaryKey;
  private final String table;

  /**
   * @param sink {@link LakestreamSink} or {@link LakestreamExactlyOnceSink}
   */
  LakestreamDynamicSink(Sink<RowData> sink, boolean primaryKey, String table) {
    this.sink = requireNonNull(sink, "sink is null");
    this.primaryKey = primaryKey;
    this.table = requireNonNull(table, "table is null");
  }

  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
    if (!primaryKey) {
      return ChangelogMode.insertOnly();
    }
    return ChangelogMode.newBuilder()
        .addContainedKind(RowKind.INSERT)
        .addContainedKind(RowKind.UPDATE_AFTER)
        .addContainedKind(RowKind.DELETE)
        .build();
  }

  /**
   * The sink for the statement: for {@code INSERT INTO t (columns) ...} into a primary-key table
   * naming fewer than all its columns, a sink of partial updates that change only those columns
   * (the planner fills the others with nulls, which are not written). The key is always among them:
   * Flink refuses an INSERT that leaves out a NOT NULL column, as every key column is.
   */
  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    Optional<int[][]> targets = context.getTargetColumns();
    LakestreamSink whole =
        sink instanceof LakestreamExactlyOnceSink exactlyOnce
            ? exactlyOnce.target()
            : (LakestreamSink) sink;
    if (!primaryKey || targets.isEmpty() || targets.get().length == whole.columns().size()) {
      return SinkV2Provider.of(sink);
    }
    List<String> columns = whole.columns();
    List<String> target = new ArrayList<>();
    for (int[] path : targets.get()) {
      target.add(columns.get(path[0]));
    }
    return SinkV2Provider.of(
        sink instanceof LakestreamExactlyOnceSink exactlyOnce
            ? exactlyOnce.withTargetColumns(target)
            : whole.withTargetColumns(target));
  }

  @Override
  public DynamicTableSink copy() {
    return new LakestreamDynamicSink(sink, primaryKey, table);
  }

  @Override
  public String asSummaryString() {
    return "Lakestream(" + table + ")";
  }
}
