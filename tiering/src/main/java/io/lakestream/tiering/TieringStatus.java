package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How far a streaming table's log is tiered into its Iceberg table, at one moment ({@link #asOf}),
 * per partition and bucket and in total. Built by {@link TieringStatusReader}.
 *
 * <p>Lag is measured two ways, both per bucket:
 *
 * <ul>
 *   <li><b>rows</b>: high watermark minus tiered offset, the records the lake does not hold yet;
 *   <li><b>seconds</b>: the age of the oldest record the lake does not hold yet, that is {@link
 *       #asOf} minus the time that record was appended (its batch's commit timestamp), or 0 when
 *       the bucket is caught up. Read it as "the lake holds every row appended more than this many
 *       seconds ago": a query on the Iceberg table alone misses at most the rows of the last {@code
 *       lagSeconds}. It grows by one second per second while tiering is stalled, and drops to at
 *       most one interval plus one round's duration while tiering keeps up.
 * </ul>
 *
 * The table's figures are the sum (rows) and the maximum (seconds) over its buckets.
 *
 * @param table the table
 * @param kind its {@code lakestream.kind}: {@code log} or {@code primary-key}
 * @param asOf when the status was read
 * @param state whether the service tiers the table yet
 * @param interval the table's {@value TieringConfig#INTERVAL_PROPERTY}
 * @param nextRound when the service runs the table's next round; null when {@link State#PENDING} or
 *     when it cannot tier the table ({@link State#FAILED} by an invalid setting)
 * @param buckets per partition and bucket, sorted; empty when {@link #offsetsError} is set
 * @param lastSnapshot the newest snapshot tiering committed (the one whose offsets the table
 *     holds), or null when the table has never been tiered
 * @param lastOutcome what the service's last round of the table did, or null before its first round
 *     finished
 * @param lastError what the last round failed with, or null when it did not fail
 * @param offsetsError why the table's {@value TieredOffsets#SUMMARY_KEY} cannot be read (invalid,
 *     or lost to another engine's maintenance with no record left to go on from), or null
 * @param totals counts of this process's rounds of the table
 */
public record TieringStatus(
    TablePath table,
    String kind,
    Instant asOf,
    State state,
    Duration interval,
    Instant nextRound,
    List<BucketStatus> buckets,
    TieredSnapshot lastSnapshot,
    TieringRound.Outcome lastOutcome,
    String lastError,
    String offsetsError,
    TieringStatistics.TableTotals totals) {

  /** Whether the service tiers a table. */
  public enum State {
    /** The service tiers the table at its interval. */
    ACTIVE,
    /**
     * The service's last round of the table failed, or it cannot tier the table (an invalid
     * setting); {@code lastError} says why. Rounds are retried at the table's interval (for an
     * invalid setting: once it is fixed).
     */
    FAILED,
    /**
     * The table is new to the service, which finds it at its next listing of the catalog (every
     * {@code tiering.discovery-interval}).
     */
    PENDING
  }

  /**
   * One bucket of one partition.
   *
   * @param partition the log partition ({@code ""} for an unpartitioned table)
   * @param tieredOffset the next offset to tier: every record below it is in the lake
   * @param highWatermark the offset the next record appended to the bucket will take
   * @param lagRows {@code highWatermark - tieredOffset}, at least 0
   * @param oldestUntieredAppendedAt when the first record at or above the tiered offset was
   *     appended, or null when the bucket is caught up
   * @param lagSeconds {@link TieringStatus#asOf} minus {@code oldestUntieredAppendedAt}, 0 when
   *     caught up
   */
  public record BucketStatus(
      String partition,
      int bucket,
      long tieredOffset,
      long highWatermark,
      long lagRows,
      Instant oldestUntieredAppendedAt,
      double lagSeconds) {
    public BucketStatus {
      requireNonNull(partition, "partition is null");
    }
  }

  /** A snapshot tiering committed: its id and when it was committed. */
  public record TieredSnapshot(long snapshotId, Instant committedAt) {
    public TieredSnapshot {
      requireNonNull(committedAt, "committedAt is null");
    }
  }

  public TieringStatus {
    requireNonNull(table, "table is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(asOf, "asOf is null");
    requireNonNull(state, "state is null");
    requireNonNull(interval, "interval is null");
    buckets = List.copyOf(buckets);
    requireNonNull(totals, "totals is null");
  }

  /** Records not in the lake yet, summed over buckets; -1 when the offsets cannot be read. */
  public long lagRows() {
    return offsetsError != null ? -1 : buckets.stream().mapToLong(BucketStatus::lagRows).sum();
  }

  /** Age of the oldest record not in the lake yet; -1 when the offsets cannot be read. */
  public double lagSeconds() {
    return offsetsError != null
        ? -1
        : buckets.stream().mapToDouble(BucketStatus::lagSeconds).max().orElse(0);
  }
}
