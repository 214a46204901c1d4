package io.lakestream.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.StreamTableKinds;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * Plans union reads ({@link UnionScanPlan}): takes the lake table's current snapshot S and its
 * tiered offsets (those of the newest snapshot in S's ancestry that has them), then, after that,
 * each bucket's high watermark. Reading the high watermarks after S is what makes the plan exact: a
 * row acknowledged before planning is below its bucket's high watermark, so it is either in S
 * (below S's offsets) or in the bucket's range; and tiering only ever moves the offsets forward, so
 * nothing in a range is also in S.
 *
 * <p>Thread safe.
 */
public final class UnionScanPlanner {
  private final LakeCatalog lake;
  private final Connection connection;

  public UnionScanPlanner(LakeCatalog lake, Connection connection) {
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = requireNonNull(connection, "connection is null");
  }

  /**
   * A plan with the lake table it was planned against and the streaming table whose log it reads,
   * for readers that need them.
   */
  public record Planned(UnionScanPlan plan, Table lakeTable, io.lakestream.client.Table stream) {
    public Planned {
      requireNonNull(plan, "plan is null");
      requireNonNull(lakeTable, "lakeTable is null");
      requireNonNull(stream, "stream is null");
    }
  }

  /**
   * Plans a union read of a streaming table as of now.
   *
   * @throws IllegalArgumentException when the table is not a streaming table
   * @throws LogRangeGoneException when a bucket's log no longer holds the start of its range (log
   *     retention deleted rows that were never tiered): the read would miss rows
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when the table does not exist
   */
  public Planned plan(TablePath path) {
    return plan(path, lake.loadTable(path));
  }

  /**
   * Plans a union read of a streaming table as of now, against a lake table the caller has just
   * loaded: its current snapshot is the plan's S.
   *
   * @see #plan(TablePath)
   */
  public Planned plan(TablePath path, Table table) {
    Snapshot current = table.currentSnapshot();
    return plan(
        path,
        table,
        current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()));
  }

  /**
   * Plans a union read of a streaming table whose lake part is snapshot {@code snapshotId} of
   * {@code table} (an engine that pinned the snapshot when it resolved the table, as Trino does),
   * or of an empty lake table when it is empty; the log ranges start at that snapshot's offsets and
   * end at the high watermarks of now.
   *
   * @throws IllegalArgumentException when the table has no such snapshot
   * @see #plan(TablePath)
   */
  public Planned plan(TablePath path, Table table, OptionalLong snapshotId) {
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    Snapshot snapshot =
        snapshotId.isEmpty() ? null : requireSnapshot(path, metadata, snapshotId.getAsLong());
    TieredOffsets offsets =
        snapshot == null
            ? TieredOffsets.NONE
            : TieredOffsets.committedAt(metadata, snapshot.snapshotId());
    io.lakestream.client.Table stream = connection.table(path);
    return new Planned(plan(path, stream, snapshotId, offsets), table, stream);
  }

  /**
   * Plans a union read whose lake part is snapshot {@code snapshotId} (empty: an empty lake table)
   * holding the log up to {@code offsets}, which the caller read from that snapshot's summary
   * before: an engine that keeps them per snapshot (a snapshot's summary never changes) plans with
   * one high-watermark request and no catalog round trip.
   */
  public UnionScanPlan plan(TablePath path, OptionalLong snapshotId, TieredOffsets offsets) {
    return plan(path, connection.table(path), snapshotId, offsets);
  }

  private static UnionScanPlan plan(
      TablePath path,
      io.lakestream.client.Table stream,
      OptionalLong snapshotId,
      TieredOffsets offsets) {
    boolean primaryKey =
        StreamTableKinds.isPrimaryKey(path, stream.kind(), IllegalArgumentException::new);
    List<LogRange> ranges =
        LogRangePlanner.plan(path, stream, offsets, LogRangePlanner.WhenGone.FAIL, new HashMap<>());
    return new UnionScanPlan(path, primaryKey, snapshotId, ranges);
  }

  private static Snapshot requireSnapshot(TablePath path, TableMetadata metadata, long id) {
    Snapshot snapshot = metadata.snapshot(id);
    if (snapshot == null) {
      throw new IllegalArgumentException("Table " + path + " has no snapshot " + id);
    }
    return snapshot;
  }
}
