package io.lakestream.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.tiering.LakeCatalog;
import io.lakestream.tiering.TieredOffsets;
import java.util.ArrayList;
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

  /** A plan with the lake snapshot it was planned against, for readers that need the table. */
  public record Planned(UnionScanPlan plan, Table lakeTable) {
    public Planned {
      requireNonNull(plan, "plan is null");
      requireNonNull(lakeTable, "lakeTable is null");
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
    Table table = lake.loadTable(path);
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    Snapshot snapshot = metadata.currentSnapshot();
    TieredOffsets offsets = TieredOffsets.committedIn(metadata);
    io.lakestream.client.Table stream = connection.table(path);
    boolean primaryKey =
        switch (stream.kind()) {
          case "log" -> false;
          case "primary-key" -> true;
          default ->
              throw new IllegalArgumentException(
                  "Table " + path + " is a " + stream.kind() + " table, not a streaming table");
        };
    List<LogRange> ranges = new ArrayList<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        long from = offsets.offset(partition, bucket);
        long highWatermark = stream.latestOffset(partition, bucket);
        if (highWatermark <= from) {
          continue;
        }
        long earliest = stream.earliestOffset(partition, bucket);
        if (earliest > from) {
          throw new LogRangeGoneException(
              "Cannot read "
                  + path
                  + ": bucket "
                  + bucket
                  + (partition.isEmpty() ? "" : " of partition '" + partition + "'")
                  + " starts at offset "
                  + earliest
                  + " but its lake snapshot holds rows only below "
                  + from
                  + "; offsets "
                  + from
                  + " to "
                  + earliest
                  + " were deleted before they were tiered");
        }
        ranges.add(new LogRange(partition, bucket, from, highWatermark));
      }
    }
    OptionalLong snapshotId =
        snapshot == null ? OptionalLong.empty() : OptionalLong.of(snapshot.snapshotId());
    return new Planned(new UnionScanPlan(path, primaryKey, snapshotId, ranges), table);
  }
}
