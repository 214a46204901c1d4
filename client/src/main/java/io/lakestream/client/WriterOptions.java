package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.Compression;
import java.time.Duration;

/**
 * How an {@link AppendWriter} batches.
 *
 * @param batchRows a bucket's batch is sent once it has this many rows
 * @param linger a partial batch is sent at the latest this long after its first row
 * @param maxInFlight batches sent but not yet acknowledged, per writer, before appends wait
 */
public record WriterOptions(
    int batchRows, Duration linger, Compression compression, int maxInFlight) {
  public WriterOptions {
    requireNonNull(linger, "linger is null");
    requireNonNull(compression, "compression is null");
    if (batchRows < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException("batchRows and maxInFlight must be positive");
    }
  }

  /** 8192-row batches, 2 ms linger, ZSTD, 16 batches in flight. */
  public static WriterOptions defaults() {
    return new WriterOptions(8192, Duration.ofMillis(2), Compression.ZSTD, 16);
  }

  public WriterOptions withBatchRows(int rows) {
    return new WriterOptions(rows, linger, compression, maxInFlight);
  }

  public WriterOptions withLinger(Duration value) {
    return new WriterOptions(batchRows, value, compression, maxInFlight);
  }

  public WriterOptions withCompression(Compression value) {
    return new WriterOptions(batchRows, linger, value, maxInFlight);
  }
}
