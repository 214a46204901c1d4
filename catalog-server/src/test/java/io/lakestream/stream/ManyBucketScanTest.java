package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.LakestreamExtension;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A scan of a table of many buckets holds memory for its fetch responses in proportion to what
 * arrives, not to the number of buckets (issue 37): each response took a buffer of 9 MiB whatever
 * its size, so 64 buckets with a little data each held 600 MB of direct memory at once, and the
 * scan's rate fell to a tenth of a one-bucket scan's.
 */
class ManyBucketScanTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("many").build();

  private static final int BUCKETS = 64;
  // About 100 KB of rows per bucket.
  private static final int ROWS = 32_000;

  @Test
  void aScanOfManySmallBucketsHoldsLittleDirectMemory() {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("many", "events"),
            new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            PartitionSpec.unpartitioned(),
            new HashMap<>(
                Map.of("lakestream.kind", "log", "lakestream.buckets", Integer.toString(BUCKETS))));
    Table table = LAKESTREAM.connection().table(TablePath.of("many.events"));
    // Batches of 100 rows go round robin over the buckets.
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults().withBatchRows(100))) {
      for (long n = 0; n < ROWS; n++) {
        writer.append(n, "row-" + n + "-" + "x".repeat(180));
      }
      writer.flush();
    }

    BufferPoolMXBean direct =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct"))
            .findFirst()
            .orElseThrow();
    long before = direct.getMemoryUsed();
    long peak = before;
    BitSet seen = new BitSet(ROWS);
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribeAll(LogScanner.earliest());
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (seen.cardinality() < ROWS && System.nanoTime() < deadline) {
        List<ScanBatch> batches = scanner.poll(Duration.ofSeconds(1));
        // Measured while the batches (and the responses they point into) are held.
        peak = Math.max(peak, direct.getMemoryUsed());
        for (ScanBatch batch : batches) {
          try (batch) {
            ScanRow row = batch.row();
            while (row.next()) {
              long id = row.getLong(0);
              assertThat(row.getString(1)).startsWith("row-" + id + "-");
              assertThat(seen.get((int) id)).as("row %s read twice", id).isFalse();
              seen.set((int) id);
            }
          }
        }
      }
    }
    assertThat(seen.cardinality()).isEqualTo(ROWS);
    // The rows are about 6 MB in all; the responses held at once must be of that order, where
    // before each of the 64 buckets' responses held 9 MiB.
    assertThat(peak - before).isLessThan(64L << 20);
  }
}
