package io.lakestream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts Apache Fluss (ZooKeeper, coordinator, tablet server) as child processes and runs every
 * workload of {@link PeerWorkload} through its client with a few thousand rows: what the scans read
 * must match a checksum computed here from the pool file, lookups must find the upserted rows (and
 * the workload must fail when they are missing), and closing must leave no process behind.
 */
class FlussPeerTest {
  private static final int W1_ROWS = 3_000;
  private static final int W2_UPSERTS = 4_000;
  private static final int W2_KEY_SPACE = 2_000;

  @TempDir Path directory;

  @Test
  void runsEveryWorkloadAndReadsWhatWasWritten() throws Exception {
    Path pool = directory.resolve("pool.bin");
    WideEvents.writePool(pool);
    long[] expected = expectedChecksums(pool, W1_ROWS);
    FlussPeer fluss = FlussPeer.create(Path.of(System.getProperty("lakestream.home")));
    List<Long> pids;
    try (fluss) {
      fluss.start(directory.resolve("fluss"));
      pids = fluss.serverPids();
      assertThat(pids).hasSize(3);

      assertThat(fluss.run(w1(PeerWorkload.Kind.W1_APPEND, pool, "zstd")).get("rows_per_s"))
          .isPositive();
      Map<String, Double> scan = fluss.run(w1(PeerWorkload.Kind.W1_SCAN, pool, "zstd"));
      assertThat(scan.get("rows_per_s")).isPositive();
      assertThat(scan.get("checksum")).isEqualTo((double) expected[0]);
      assertThat(scan.get("string_chars")).isEqualTo((double) expected[1]);
      Map<String, Double> projected =
          fluss.run(w1(PeerWorkload.Kind.W1_SCAN_PROJECTED, pool, "zstd"));
      assertThat(projected.get("checksum")).isEqualTo((double) expected[2]);
      assertThat(projected.get("string_chars")).isEqualTo((double) expected[3]);

      Map<String, Double> freshness =
          fluss.run(
              new PeerWorkload(PeerWorkload.Kind.W1_FRESHNESS, pool, "fresh", 5, "none", 1, 1, 1),
              FlussPeer.TUNED_FRESHNESS);
      assertThat(freshness)
          .containsKeys(
              "ack_to_reader_p50_ms",
              "ack_to_reader_p99_ms",
              "send_to_reader_p50_ms",
              "send_to_reader_p99_ms");
      assertThat(freshness.get("send_to_reader_p99_ms"))
          .isGreaterThanOrEqualTo(freshness.get("send_to_reader_p50_ms"))
          .isPositive();

      assertThat(
              fluss
                  .run(w2(PeerWorkload.Kind.W2_UPSERT, pool, W2_UPSERTS, W2_KEY_SPACE, 1))
                  .get("rows_per_s"))
          .isPositive();
      // Every key was upserted twice; the lookups check each row against the later upsert's.
      for (int inFlight : new int[] {1, 16}) {
        assertThat(
                fluss
                    .run(w2(PeerWorkload.Kind.W2_LOOKUP, pool, 1_000, W2_KEY_SPACE, inFlight))
                    .get("lookups_per_s"))
            .isPositive();
      }
      // Keys beyond those upserted have no row: the lookup workload must fail on them.
      assertThatThrownBy(
              () ->
                  fluss.run(w2(PeerWorkload.Kind.W2_LOOKUP, pool, 1_000, W2_KEY_SPACE * 4 + 1, 16)))
          .hasMessageContaining("exited with 1")
          .hasMessageMatching("(?s).*(no row for key|which no upsert of it wrote).*");

      assertThat(fluss.diskBytes()).isPositive();
    }
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("Fluss server process %d after close()", pid)
          .isFalse();
    }
  }

  private static PeerWorkload w1(PeerWorkload.Kind kind, Path pool, String compression) {
    return new PeerWorkload(kind, pool, "events", W1_ROWS, compression, 1, 1, 1);
  }

  private static PeerWorkload w2(
      PeerWorkload.Kind kind, Path pool, int rows, int keySpace, int inFlight) {
    return new PeerWorkload(kind, pool, "keyed", rows, "zstd", 1, keySpace, inFlight);
  }

  /**
   * From the pool file's bytes: the full scan's checksum (sum of b0 and of the lengths of s0..s4)
   * and its string characters, then the projected scan's (b0 and s0) for the first {@code rows}
   * rows.
   */
  private static long[] expectedChecksums(Path pool, int rows) throws IOException {
    long[] b0;
    int[][] lengths;
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(pool)))) {
      int size = in.readInt();
      b0 = new long[size];
      lengths = new int[size][5];
      for (int r = 0; r < size; r++) {
        b0[r] = in.readLong();
        in.skipNBytes(4 * 8 + 5 * 4 + 5 * 8);
        for (int s = 0; s < 5; s++) {
          lengths[r][s] = in.readUTF().length();
        }
      }
    }
    long[] sums = new long[4];
    for (int n = 0; n < rows; n++) {
      int r = n % b0.length;
      int all = 0;
      for (int s = 0; s < 5; s++) {
        all += lengths[r][s];
      }
      sums[0] += b0[r] + all;
      sums[1] += all;
      sums[2] += b0[r] + lengths[r][0];
      sums[3] += lengths[r][0];
    }
    return sums;
  }
}
