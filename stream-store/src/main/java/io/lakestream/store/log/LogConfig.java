package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.batch.LogBatch;
import java.time.Duration;

/**
 * Settings of the log tablets.
 *
 * @param segmentBytes a segment rolls once it would exceed this size
 * @param segmentAge a segment rolls once it is older than this
 * @param indexIntervalBytes bytes of batches between two sparse index entries
 * @param flushMode when an append is acknowledged
 * @param maxBatchBytes larger batches are refused
 * @param retention segments whose newest batch is older than this may be deleted
 * @param retentionBytes the log may be trimmed to this size (-1: no size limit)
 */
public record LogConfig(
    long segmentBytes,
    Duration segmentAge,
    int indexIntervalBytes,
    FlushMode flushMode,
    int maxBatchBytes,
    Duration retention,
    long retentionBytes) {
  public LogConfig {
    requireNonNull(segmentAge, "segmentAge is null");
    requireNonNull(flushMode, "flushMode is null");
    requireNonNull(retention, "retention is null");
    if (segmentBytes < LogBatch.HEADER_SIZE) {
      throw new IllegalArgumentException("segmentBytes is too small: " + segmentBytes);
    }
  }

  /** The defaults: 256 MiB or 1 day segments, fsync on, 7 days retention. */
  public static LogConfig defaults() {
    return new LogConfig(
        256L << 20, Duration.ofDays(1), 4096, FlushMode.FSYNC, 16 << 20, Duration.ofDays(7), -1);
  }
}
