package io.lakestream.client.scan;

import static java.util.Objects.requireNonNull;

/**
 * The part of one bucket's log a union read takes from the log: offsets {@code [from, to)}, where
 * {@code from} is the bucket's offset in the lake snapshot and {@code to} its high watermark when
 * the read was planned.
 *
 * @param partition the log partition ({@code ""} for an unpartitioned table)
 * @param bucket the bucket within the partition
 * @param from the first offset read, inclusive
 * @param to the offset where the read stops, exclusive
 */
public record LogRange(String partition, int bucket, long from, long to) {
  /**
   * Checks the range.
   *
   * @throws IllegalArgumentException if the bucket or {@code from} is negative or {@code to} is
   *     below {@code from}
   */
  public LogRange {
    requireNonNull(partition, "partition is null");
    if (bucket < 0 || from < 0 || to < from) {
      throw new IllegalArgumentException(
          "Invalid log range: bucket " + bucket + ", offsets [" + from + ", " + to + ")");
    }
  }

  /**
   * Records in the range.
   *
   * @return {@code to - from}
   */
  public long size() {
    return to - from;
  }
}
