package io.lakestream.client.scan;

import static java.util.Objects.requireNonNull;

/**
 * The part of one bucket's log a union read takes from the log: offsets {@code [from, to)}, where
 * {@code from} is the bucket's offset in the lake snapshot and {@code to} its high watermark when
 * the read was planned.
 *
 * @param partition the log partition ({@code ""} for an unpartitioned table)
 */
public record LogRange(String partition, int bucket, long from, long to) {
  public LogRange {
    requireNonNull(partition, "partition is null");
    if (bucket < 0 || from < 0 || to < from) {
      throw new IllegalArgumentException(
          "Invalid log range: bucket " + bucket + ", offsets [" + from + ", " + to + ")");
    }
  }

  /** Records in the range. */
  public long size() {
    return to - from;
  }
}
