package io.lakestream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts Apache Kafka from the class path the benchmarks build resolves, runs each W1 workload with
 * a few thousand rows through {@link KafkaPeer} and checks what its client reports against the pool
 * file read here on its own. Speed is judged by the benchmarks, never here.
 */
class KafkaPeerTest {
  private static final int ROWS = 3_000;

  @TempDir Path directory;

  @Test
  void runsTheW1WorkloadsAndReadsBackTheRowsItWrote() throws Exception {
    Path pool = directory.resolve("pool.bin");
    WideEvents.writePool(pool);
    long[] expected = expectedChecksums(pool, ROWS);
    long pid;

    try (KafkaPeer kafka = KafkaPeer.create(Path.of(System.getProperty("lakestream.home")))) {
      assertThat(kafka.fsyncedAcknowledgement()).isFalse();
      assertThat(kafka.supports(PeerWorkload.Kind.W2_UPSERT)).isFalse();
      kafka.start(directory.resolve("kafka"));
      pid = kafka.serverPid();

      Map<String, Double> append = kafka.run(workload(PeerWorkload.Kind.W1_APPEND, pool, "none"));
      assertThat(append.get("rows_per_s")).isPositive();
      Map<String, Double> scan = kafka.run(workload(PeerWorkload.Kind.W1_SCAN, pool, "none"));
      assertThat(scan.get("rows_per_s")).isPositive();
      assertThat(scan.get("checksum")).isEqualTo((double) expected[0]);
      Map<String, Double> projected =
          kafka.run(workload(PeerWorkload.Kind.W1_SCAN_PROJECTED, pool, "none"));
      assertThat(projected.get("rows_per_s")).isPositive();
      assertThat(projected.get("checksum")).isEqualTo((double) expected[1]);
      // Each row's numeric values alone take 100 bytes in the record value.
      assertThat(kafka.diskBytes()).isGreaterThan(100L * ROWS);

      Map<String, Double> zstd = kafka.run(workload(PeerWorkload.Kind.W1_APPEND, pool, "zstd"));
      assertThat(zstd.get("rows_per_s")).isPositive();
      Map<String, Double> zstdScan = kafka.run(workload(PeerWorkload.Kind.W1_SCAN, pool, "zstd"));
      assertThat(zstdScan.get("checksum")).isEqualTo((double) expected[0]);

      // Dropping a table deletes its topic: its bytes no longer count, and it can be made again.
      long withBoth = kafka.diskBytes();
      kafka.dropTable("w1-none");
      assertThat(kafka.diskBytes()).isLessThan(withBoth);
      assertThat(kafka.run(workload(PeerWorkload.Kind.W1_APPEND, pool, "none")).get("rows_per_s"))
          .isPositive();

      Map<String, Double> freshness =
          kafka.run(
              new PeerWorkload(PeerWorkload.Kind.W1_FRESHNESS, pool, "fresh", 20, "none", 1, 1, 1));
      assertThat(freshness.get("send_to_reader_p50_ms")).isPositive();
      assertThat(freshness.get("send_to_reader_p99_ms"))
          .isGreaterThanOrEqualTo(freshness.get("send_to_reader_p50_ms"));
      assertThat(freshness.get("ack_to_reader_p99_ms"))
          .isGreaterThanOrEqualTo(freshness.get("ack_to_reader_p50_ms"))
          .isLessThanOrEqualTo(freshness.get("send_to_reader_p99_ms"));
    }

    Optional<ProcessHandle> server = ProcessHandle.of(pid);
    assertThat(server.isPresent() && server.get().isAlive())
        .as("Kafka pid %d alive", pid)
        .isFalse();
  }

  private static PeerWorkload workload(PeerWorkload.Kind kind, Path pool, String compression) {
    return new PeerWorkload(kind, pool, "w1-" + compression, ROWS, compression, 1, 1, 1);
  }

  /**
   * The scans' checksums over rows {@code 0..rows-1} (row {@code n} is pool row {@code n % size}):
   * the sum of {@code b0} plus the lengths of all five strings, and of {@code b0} plus the length
   * of {@code s0}.
   */
  private static long[] expectedChecksums(Path pool, int rows) throws IOException {
    long[] b0;
    int[] allLengths;
    int[] s0Lengths;
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(pool)))) {
      int size = in.readInt();
      b0 = new long[size];
      allLengths = new int[size];
      s0Lengths = new int[size];
      for (int r = 0; r < size; r++) {
        b0[r] = in.readLong();
        in.skipNBytes(4 * 8 + 5 * 4 + 5 * 8);
        for (int c = 0; c < 5; c++) {
          int length = in.readUTF().length();
          allLengths[r] += length;
          if (c == 0) {
            s0Lengths[r] = length;
          }
        }
      }
    }
    long full = 0;
    long projected = 0;
    for (int n = 0; n < rows; n++) {
      int r = n % b0.length;
      full += b0[r] + allLengths[r];
      projected += b0[r] + s0Lengths[r];
    }
    return new long[] {full, projected};
  }
}
