package io.lakestream.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import java.time.Duration;

/** Reading a log table through the Java client's scanner in tests. */
public final class LogScans {
  private LogScans() {}

  /**
   * Subscribes {@code scanner} to every bucket of {@code table} from the earliest offset and counts
   * the rows it returns up to each bucket's latest offset at the start, failing the test after a
   * minute. The caller closes the scanner.
   */
  public static long countToEnd(Table table, LogScanner scanner) {
    long rows = 0;
    long[] ends = new long[table.buckets()];
    for (int bucket = 0; bucket < table.buckets(); bucket++) {
      scanner.subscribe(bucket, LogScanner.earliest());
      ends[bucket] = table.latestOffset(bucket);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      boolean done = true;
      for (int bucket = 0; bucket < ends.length; bucket++) {
        done &= scanner.position(bucket) >= ends[bucket];
      }
      if (done) {
        return rows;
      }
      assertThat(System.nanoTime())
          .as("scan of %s finished in time", table.path())
          .isLessThan(deadline);
      for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
        try (batch) {
          rows += batch.rowCount();
        }
      }
    }
  }
}
