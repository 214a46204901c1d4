package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.Compression;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scanner decodes a large fetch response (here: decompresses its ZSTD batches) on a decoder
 * thread while the caller reads the previous one (issue 37), with every row intact and nothing left
 * allocated when the scanner is closed while it decodes.
 */
class ScanDecodeAheadTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("ahead").build();

  // About 6 MB of rows before compression: fetches of 512 KiB and more.
  private static final int ROWS = 40_000;

  private static Table table;

  @BeforeAll
  static void writeRows() {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("ahead", "events"),
            new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "score", Types.DoubleType.get()),
                Types.NestedField.optional(3, "name", Types.StringType.get())),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
    table = LAKESTREAM.connection().table(TablePath.of("ahead.events"));
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(1000).withCompression(Compression.ZSTD);
    try (AppendWriter writer = table.newAppendWriter(options)) {
      for (long n = 0; n < ROWS; n++) {
        writer.append(n, n / 4.0, name(n));
      }
      writer.flush();
    }
  }

  /** A string of about 150 bytes that does not compress to nothing. */
  private static String name(long n) {
    StringBuilder name = new StringBuilder("row-").append(n);
    long x = n * 0x9E3779B97F4A7C15L;
    while (name.length() < 150) {
      x ^= x >>> 29;
      x *= 0xBF58476D1CE4E5B9L;
      name.append(Long.toHexString(x));
    }
    return name.toString();
  }

  @Test
  void largeResponsesAreDecodedOnADecoderThreadWithEveryRowInOrder() {
    Set<String> allocatingThreads = ConcurrentHashMap.newKeySet();
    AllocationListener listener =
        new AllocationListener() {
          @Override
          public void onAllocation(long size) {
            allocatingThreads.add(Thread.currentThread().getName());
          }
        };
    try (RootAllocator allocator = new RootAllocator(listener, Long.MAX_VALUE)) {
      try (LogScanner scanner = table.newScanner(List.of(), BatchFilter.MATCH_ALL, allocator)) {
        scanner.subscribe(0, LogScanner.earliest());
        long next = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (next < ROWS && System.nanoTime() < deadline) {
          for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
            try (batch) {
              assertThat(batch.baseOffset()).isEqualTo(next);
              ScanRow row = batch.row();
              while (row.next()) {
                assertThat(row.getLong(0)).isEqualTo(next);
                assertThat(row.getDouble(1)).isEqualTo(next / 4.0);
                assertThat(row.getString(2)).isEqualTo(name(next));
                next++;
              }
            }
          }
        }
        assertThat(next).isEqualTo(ROWS);
      }
      // Decompressed buffers come from the scanner's allocator: some were allocated off the
      // caller's thread, by the decoders.
      assertThat(allocatingThreads)
          .anySatisfy(name -> assertThat(name).startsWith("lakestream-scan-decoder-"));
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  @Test
  void aScannerClosedWhileItDecodesAheadLeavesNothingAllocated() {
    for (int attempt = 0; attempt < 20; attempt++) {
      RootAllocator allocator = new RootAllocator();
      try (LogScanner scanner = table.newScanner(List.of(), BatchFilter.MATCH_ALL, allocator)) {
        scanner.subscribe(0, LogScanner.earliest());
        List<ScanBatch> first = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (first.isEmpty() && System.nanoTime() < deadline) {
          first.addAll(scanner.poll(Duration.ofSeconds(1)));
        }
        assertThat(first).isNotEmpty();
        first.forEach(ScanBatch::close);
        // The next response is in flight or being decoded now; closing must wait for or drop it.
      }
      assertThat(allocator.getAllocatedMemory()).isZero();
      // Throws when a buffer is still allocated.
      allocator.close();
    }
  }
}
