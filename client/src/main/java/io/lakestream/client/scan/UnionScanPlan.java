package io.lakestream.client.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import java.util.List;
import java.util.OptionalLong;

/**
 * What a union read of a streaming table reads so that it sees every row acknowledged before it was
 * planned, each exactly once: the lake table's snapshot {@link #snapshotId()} (everything the log
 * holds below the snapshot's tiered offsets), plus per bucket the log from those offsets to the
 * high watermark ({@link #logRanges()}).
 *
 * <p>For a log table the result is the snapshot's rows followed by the ranges' rows. For a
 * primary-key table the ranges hold changes: a key changed in a range takes its last change (an
 * insert or update-after puts the row, a delete removes it), and the snapshot's row of such a key
 * is replaced; keys the ranges do not touch keep their snapshot rows. Either way the result equals
 * reading (and, for a primary-key table, folding) the whole log up to the high watermarks.
 *
 * <p>Engines that plan Iceberg scans themselves (Trino, Flink, Spark) read the snapshot by id with
 * their own splits and the ranges with the stream client.
 *
 * @param table the table read
 * @param snapshotId the lake snapshot, or empty when the table has none yet (then the ranges start
 *     at each bucket's log start)
 * @param primaryKey whether the table is a primary-key table (its ranges hold changes)
 * @param logRanges the non-empty log ranges, by partition and bucket
 */
public record UnionScanPlan(
    TablePath table, boolean primaryKey, OptionalLong snapshotId, List<LogRange> logRanges) {
  /** Checks the plan and copies the ranges into an immutable list. */
  public UnionScanPlan {
    requireNonNull(table, "table is null");
    requireNonNull(snapshotId, "snapshotId is null");
    logRanges = List.copyOf(logRanges);
  }

  /**
   * Records the plan reads from the log.
   *
   * @return the sum of the ranges' sizes
   */
  public long logRecords() {
    return logRanges.stream().mapToLong(LogRange::size).sum();
  }
}
