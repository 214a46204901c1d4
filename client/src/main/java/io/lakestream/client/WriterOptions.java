package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.Compression;
import java.time.Duration;

/**
 * How an {@link AppendWriter} or {@link UpsertWriter} batches and sends rows. Immutable; start from
 * {@link #defaults()} and change what you need with the {@code with...} methods.
 *
 * <p>A writer keeps one open batch per bucket. The batch is sent as soon as the first of three
 * things happens: it holds {@link #batchRows()} rows, its estimated size reaches {@link
 * #batchBytes()}, or {@link #linger()} has passed since its first row. Larger batches cost less per
 * row (one request, one fsync, one header and one set of column statistics per batch); a longer
 * linger lets a slow producer fill larger batches at the price of that much more latency per row. A
 * producer faster than {@code batchRows / linger} rows per second (4 million rows/s at the
 * defaults) fills batches before they linger out; a slower one sends batches of about {@code rate *
 * linger} rows: 2,000 rows at 1 million rows/s.
 *
 * <table>
 *   <caption>Defaults and why</caption>
 *   <tr><th>option</th><th>default</th><th>why</th></tr>
 *   <tr><td>{@code batchRows}</td><td>8,192</td>
 *       <td>past about 8,000 rows a batch's per-request and per-fsync cost is under 1% of its rows'
 *       cost, and the column arrays of one open batch per bucket stay small</td></tr>
 *   <tr><td>{@code batchBytes}</td><td>4 MiB</td>
 *       <td>bounds the memory of wide rows and keeps every batch well under the server's largest
 *       accepted batch ({@code log.max-batch-bytes}, 16 MiB by default)</td></tr>
 *   <tr><td>{@code linger}</td><td>2 ms</td>
 *       <td>freshness first: a row waits at most 2 ms in the client; raise it (Kafka's tuned
 *       settings use 5-100 ms) for throughput with a slow or bursty producer</td></tr>
 *   <tr><td>{@code compression}</td><td>ZSTD</td>
 *       <td>log data compresses 2-4x, which the disk, the network and every reader gain; {@link
 *       Compression#NONE} when the client's CPU is the bottleneck</td></tr>
 *   <tr><td>{@code maxInFlightRequests}</td><td>16</td>
 *       <td>enough to keep the server's pipeline busy while the client encodes the next batches,
 *       and it bounds the client's memory to about 16 batches; per bucket at most 5 are in
 *       flight, the number of a writer's batches the server deduplicates</td></tr>
 * </table>
 *
 * @param batchRows a bucket's batch is sent once it has this many rows (at least 1)
 * @param batchBytes a bucket's batch is sent once its estimated uncompressed size reaches this many
 *     bytes (at least 1): fixed-width values count their width, strings their length in chars and
 *     byte arrays their length. A row larger than this goes in a batch of its own.
 * @param linger a partial batch is sent at the latest this long after its first row (zero or more)
 * @param compression how batches are compressed on the wire and on the server's disk
 * @param maxInFlightRequests batches sent and not yet acknowledged, per writer (at least 1); a full
 *     or lingered batch beyond it waits in the writer until an acknowledgement frees room, while
 *     {@code append}, {@code upsert} and {@code delete} keep filling the next batch; they block
 *     (backpressure) only to open a new batch while more than this many are handed off and not
 *     acknowledged
 */
public record WriterOptions(
    int batchRows,
    long batchBytes,
    Duration linger,
    Compression compression,
    int maxInFlightRequests) {
  /** The default {@link #batchRows()}: 8,192 rows. */
  public static final int DEFAULT_BATCH_ROWS = 8192;

  /** The default {@link #batchBytes()}: 4 MiB. */
  public static final long DEFAULT_BATCH_BYTES = 4L << 20;

  /** The default {@link #linger()}: 2 ms. */
  public static final Duration DEFAULT_LINGER = Duration.ofMillis(2);

  /** The default {@link #maxInFlightRequests()}: 16 batches. */
  public static final int DEFAULT_MAX_IN_FLIGHT_REQUESTS = 16;

  /**
   * Checks the options.
   *
   * @throws IllegalArgumentException for a count or size below 1, or a negative linger
   * @throws NullPointerException for a null linger or compression
   */
  public WriterOptions {
    requireNonNull(linger, "linger is null");
    requireNonNull(compression, "compression is null");
    if (batchRows < 1) {
      throw new IllegalArgumentException("batchRows must be positive, not " + batchRows);
    }
    if (batchBytes < 1) {
      throw new IllegalArgumentException("batchBytes must be positive, not " + batchBytes);
    }
    if (maxInFlightRequests < 1) {
      throw new IllegalArgumentException(
          "maxInFlightRequests must be positive, not " + maxInFlightRequests);
    }
    if (linger.isNegative()) {
      throw new IllegalArgumentException("linger must not be negative, not " + linger);
    }
  }

  /**
   * The defaults: 8,192-row or 4 MiB batches, 2 ms linger, ZSTD, 16 requests in flight (see the
   * class comment for why).
   *
   * @return the default options
   */
  public static WriterOptions defaults() {
    return new WriterOptions(
        DEFAULT_BATCH_ROWS,
        DEFAULT_BATCH_BYTES,
        DEFAULT_LINGER,
        Compression.ZSTD,
        DEFAULT_MAX_IN_FLIGHT_REQUESTS);
  }

  /**
   * These options with batches of at most {@code rows} rows.
   *
   * @param rows the most rows of a batch (at least 1)
   * @return new options
   */
  public WriterOptions withBatchRows(int rows) {
    return new WriterOptions(rows, batchBytes, linger, compression, maxInFlightRequests);
  }

  /**
   * These options with batches of at most about {@code bytes} bytes, uncompressed.
   *
   * @param bytes the estimated uncompressed bytes at which a batch is sent (at least 1)
   * @return new options
   */
  public WriterOptions withBatchBytes(long bytes) {
    return new WriterOptions(batchRows, bytes, linger, compression, maxInFlightRequests);
  }

  /**
   * These options with another linger.
   *
   * @param value the new value
   * @return new options
   */
  public WriterOptions withLinger(Duration value) {
    return new WriterOptions(batchRows, batchBytes, value, compression, maxInFlightRequests);
  }

  /**
   * These options with another compression.
   *
   * @param value the new value
   * @return new options
   */
  public WriterOptions withCompression(Compression value) {
    return new WriterOptions(batchRows, batchBytes, linger, value, maxInFlightRequests);
  }

  /**
   * These options with at most {@code requests} unacknowledged batches per writer.
   *
   * @param requests the most batches in flight per writer (at least 1)
   * @return new options
   */
  public WriterOptions withMaxInFlightRequests(int requests) {
    return new WriterOptions(batchRows, batchBytes, linger, compression, requests);
  }
}
