package io.lakestream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every workload of {@link PeerWorkload} through Lakestream's ordinary client against the packaged
 * server, small; what the client reads is checked against values computed here from the pool.
 */
class LakestreamPeerTest {
  private static final int ROWS = 10_000;
  private static final int KEY_SPACE = 1_000;

  @TempDir static Path directory;
  private static LakestreamPeer peer;
  private static Path pool;

  @BeforeAll
  static void start() throws Exception {
    pool = directory.resolve("pool.bin");
    WideEvents.writePool(pool);
    peer = new LakestreamPeer(lakestreamHome());
    peer.start(directory.resolve("lakestream"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (peer != null) {
      peer.close();
    }
  }

  @Test
  void acknowledgesAfterFsyncAndNamesItsVersion() {
    assertThat(peer.fsyncedAcknowledgement()).isTrue();
    assertThat(peer.label()).startsWith("Lakestream ");
    for (PeerWorkload.Kind kind : PeerWorkload.Kind.values()) {
      assertThat(peer.supports(kind)).as(kind.name()).isTrue();
    }
  }

  @Test
  void appendedRowsAreScannedWholeAndProjectedWithTheirChecksum() throws Exception {
    long before = peer.diskBytes();
    Map<String, Double> append =
        peer.run(workload(PeerWorkload.Kind.W1_APPEND, "appended", "zstd"));
    assertThat(append.get("rows_per_s")).isPositive();
    assertThat(peer.diskBytes()).isGreaterThan(before);

    Map<String, Double> scan = peer.run(workload(PeerWorkload.Kind.W1_SCAN, "appended", "zstd"));
    Map<String, Double> projected =
        peer.run(workload(PeerWorkload.Kind.W1_SCAN_PROJECTED, "appended", "zstd"));

    assertThat(scan.get("rows_per_s")).isPositive();
    assertThat(scan.get("checksum")).isEqualTo((double) checksum(ROWS, 5));
    assertThat(projected.get("rows_per_s")).isPositive();
    assertThat(projected.get("checksum")).isEqualTo((double) checksum(ROWS, 1));
  }

  @Test
  void uncompressedRowsReadBackTheSame() throws Exception {
    peer.run(workload(PeerWorkload.Kind.W1_APPEND, "uncompressed", "none"));

    Map<String, Double> scan =
        peer.run(workload(PeerWorkload.Kind.W1_SCAN, "uncompressed", "none"));

    assertThat(scan.get("checksum")).isEqualTo((double) checksum(ROWS, 5));
  }

  @Test
  void aDroppedTableCannotBeScanned() throws Exception {
    peer.run(workload(PeerWorkload.Kind.W1_APPEND, "dropped", "none"));

    peer.dropTable("dropped");

    assertThatThrownBy(() -> peer.run(workload(PeerWorkload.Kind.W1_SCAN, "dropped", "none")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exited with 1");
  }

  @Test
  void freshnessReportsBothDelays() throws Exception {
    Map<String, Double> freshness =
        peer.run(
            new PeerWorkload(PeerWorkload.Kind.W1_FRESHNESS, pool, "fresh", 20, "none", 1, 1, 1));

    assertThat(freshness)
        .containsOnlyKeys(
            "ack_to_reader_p50_ms",
            "ack_to_reader_p99_ms",
            "send_to_reader_p50_ms",
            "send_to_reader_p99_ms");
    assertThat(freshness.get("ack_to_reader_p50_ms"))
        .isLessThanOrEqualTo(freshness.get("ack_to_reader_p99_ms"));
    // The send is before the acknowledgement, so the reader is at least as far from it.
    assertThat(freshness.get("send_to_reader_p99_ms"))
        .isGreaterThanOrEqualTo(freshness.get("ack_to_reader_p99_ms"));
  }

  @Test
  void lookupsAnswerTheLastUpsertOfEachKeyAndAWrongAnswerFailsTheRun() throws Exception {
    peer.run(keyed(PeerWorkload.Kind.W2_UPSERT, "keyed", 2 * KEY_SPACE, 1));

    Map<String, Double> lookups = peer.run(keyed(PeerWorkload.Kind.W2_LOOKUP, "keyed", 2_000, 16));
    assertThat(lookups.get("lookups_per_s")).isPositive();

    // Half the upserts: every key's last row is another one than the lookups expect.
    peer.run(keyed(PeerWorkload.Kind.W2_UPSERT, "half", KEY_SPACE, 1));
    assertThatThrownBy(() -> peer.run(keyed(PeerWorkload.Kind.W2_LOOKUP, "half", 100, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Lookup answered wrongly");
  }

  /**
   * The sum of {@code b0} plus the lengths of the first {@code strings} string columns over the
   * first {@code rows} W1 rows, from the pool.
   */
  private static long checksum(int rows, int strings) {
    Object[][] rowPool = WideEvents.rowPool();
    long sum = 0;
    for (int n = 0; n < rows; n++) {
      Object[] row = rowPool[n % rowPool.length];
      sum += (Long) row[0];
      for (int s = 0; s < strings; s++) {
        sum += ((String) row[15 + s]).length();
      }
    }
    return sum;
  }

  private static PeerWorkload workload(PeerWorkload.Kind kind, String table, String compression) {
    return new PeerWorkload(kind, pool, table, ROWS, compression, 1, 1, 1);
  }

  private static PeerWorkload keyed(PeerWorkload.Kind kind, String table, int rows, int inFlight) {
    return new PeerWorkload(kind, pool, table, rows, "none", 1, KEY_SPACE, inFlight);
  }

  private static Path lakestreamHome() {
    String home = System.getProperty("lakestream.home");
    assertThat(home).as("system property lakestream.home, set by the benchmarks pom").isNotBlank();
    return Path.of(home);
  }
}
