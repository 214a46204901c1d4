package io.lakestream.lake;

import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads log ranges of a table with the stream client, for tiering and for union reads. */
public final class LogRangeReader {
  private static final Logger LOG = LoggerFactory.getLogger(LogRangeReader.class);
  private static final Duration POLL = Duration.ofMillis(200);

  private LogRangeReader() {}

  /** Receives rows {@code [first, end)} of a batch, which lie in {@code range}. */
  @FunctionalInterface
  public interface RangeRows {
    void accept(LogRange range, ScanBatch batch, int first, int end) throws IOException;
  }

  /**
   * Reads every range to its end, handing each batch's rows inside the ranges to {@code rows}, in
   * offset order per bucket, unless {@code maxRows} rows were handed over first: then reading stops
   * after the batch that reached it, and {@code reached} receives, for each bucket not read to its
   * end, the offset it was read to.
   *
   * @throws TieringException when the ranges cannot be read within {@code readTimeout} or the
   *     thread is interrupted
   */
  public static void read(
      TablePath path,
      io.lakestream.client.Table stream,
      List<LogRange> ranges,
      Duration readTimeout,
      long maxRows,
      Map<TableBucket, Long> reached,
      RangeRows rows)
      throws IOException {
    read(path, stream.newScanner(), ranges, readTimeout, maxRows, reached, rows);
  }

  /**
   * Like {@link #read(TablePath, io.lakestream.client.Table, List, Duration, long, Map,
   * RangeRows)}, with a scanner of the caller's (one that projects columns, say); closes it.
   */
  public static void read(
      TablePath path,
      LogScanner newScanner,
      List<LogRange> ranges,
      Duration readTimeout,
      long maxRows,
      Map<TableBucket, Long> reached,
      RangeRows rows)
      throws IOException {
    Map<TableBucket, LogRange> pending = new HashMap<>();
    Map<TableBucket, Long> positions = new HashMap<>();
    long read = 0;
    try (LogScanner scanner = newScanner) {
      for (LogRange range : ranges) {
        TableBucket bucket = new TableBucket(range.partition(), range.bucket());
        pending.put(bucket, range);
        positions.put(bucket, range.from());
        scanner.subscribe(range.partition(), range.bucket(), LogScanner.offset(range.from()));
      }
      long deadline = System.nanoTime() + readTimeout.toNanos();
      while (!pending.isEmpty()) {
        if (Thread.currentThread().isInterrupted()) {
          throw new TieringException("Reading " + path + " was interrupted");
        }
        if (System.nanoTime() - deadline > 0) {
          throw new TieringException(
              "Cannot read the log ranges of "
                  + path
                  + " within "
                  + readTimeout
                  + "; still pending: "
                  + pending.values());
        }
        List<ScanBatch> batches = scanner.poll(POLL);
        try {
          for (ScanBatch batch : batches) {
            TableBucket bucket = new TableBucket(batch.partition(), batch.bucket());
            LogRange range = pending.get(bucket);
            if (range == null) {
              continue; // a bucket finished earlier in this poll
            }
            long base = batch.baseOffset();
            int first = (int) Math.max(0, range.from() - base);
            int end = (int) Math.min(batch.rowCount(), range.to() - base);
            if (first < end) {
              rows.accept(range, batch, first, end);
              read += end - first;
            }
            positions.put(bucket, Math.min(range.to(), base + batch.rowCount()));
            if (base + batch.rowCount() >= range.to()) {
              pending.remove(bucket);
              scanner.unsubscribe(range.partition(), range.bucket());
            }
            if (read >= maxRows && !pending.isEmpty()) {
              pending.keySet().forEach(cut -> reached.put(cut, positions.get(cut)));
              LOG.debug(
                  "Reading {} stops after {} rows (its limit); buckets read to {}",
                  path,
                  read,
                  reached);
              return;
            }
          }
        } finally {
          batches.forEach(ScanBatch::close);
        }
      }
    }
  }
}
