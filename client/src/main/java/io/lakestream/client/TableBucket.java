package io.lakestream.client;

import static java.util.Objects.requireNonNull;

/**
 * A bucket of a partition of a table: the unit that has its own log, offsets and sequence.
 *
 * @param partition the partition's name, {@link Partitioning#UNPARTITIONED} for a table without
 *     partitions
 * @param bucket the bucket's index
 */
public record TableBucket(String partition, int bucket) {
  /**
   * Checks the bucket.
   *
   * @throws NullPointerException if the partition is null
   */
  public TableBucket {
    requireNonNull(partition, "partition is null");
  }

  @Override
  public String toString() {
    return partition.isEmpty() ? "bucket " + bucket : "bucket " + bucket + " of " + partition;
  }
}
