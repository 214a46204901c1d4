package io.lakestream.store.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.batch.LogBatch;
import io.lakestream.store.testing.TestingClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
  private static final String TABLE = "5b0c6c3e-1f7a-4a53-9d0e-1f3c2a9b8e71";
  private static final long HOUR = Duration.ofHours(1).toMillis();

  @TempDir Path root;
  private final TestingClock clock = new TestingClock(1_000_000_000L);

  private LogManager manager() throws Exception {
    return new LogManager(
        root,
        new LogConfig(
            1 << 20, Duration.ofDays(1), 256, FlushMode.FSYNC, 1 << 20, Duration.ofHours(1), -1),
        clock);
  }

  private static LogBatch batch(String text) {
    return LogBatch.create(
        1,
        0,
        LogBatch.NO_WRITER,
        0,
        (short) 0,
        ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void partitionsAreCreatedByTheirFirstWriteAndListedAfterARestart() throws Exception {
    try (LogManager logs = manager()) {
      assertThat(logs.partitions(TABLE)).isEmpty();
      logs.tablet(TABLE, "day=2026-11-30/region=us+west", 1).append(batch("a")).durable().get();
      logs.tablet(TABLE, "day=2026-11-29/region=eu", 0).append(batch("b")).durable().get();
      assertThat(logs.existingTablet(TABLE, "day=2026-11-28/region=eu", 0)).isEmpty();
      // A partition that exists has every bucket, written or not.
      assertThat(logs.existingTablet(TABLE, "day=2026-11-29/region=eu", 3)).isPresent();
    }
    try (LogManager logs = manager()) {
      assertThat(logs.partitions(TABLE))
          .containsExactly("day=2026-11-29/region=eu", "day=2026-11-30/region=us+west");
      assertThat(
              logs.existingTablet(TABLE, "day=2026-11-30/region=us+west", 1)
                  .orElseThrow()
                  .highWatermark())
          .isEqualTo(1);
      assertThat(logs.existingTablet(TABLE, "", 0)).isPresent();
    }
  }

  @Test
  void retentionRemovesAPartitionOnlyOnceEveryBucketIsPastIt() throws Exception {
    try (LogManager logs = manager()) {
      List<String> expired = new CopyOnWriteArrayList<>();
      logs.onPartitionExpired((table, partition) -> expired.add(table + ":" + partition));
      logs.tablet(TABLE, "day=old", 0).append(batch("a")).durable().get();
      logs.tablet(TABLE, "day=old", 1).append(batch("b")).durable().get();
      logs.tablet(TABLE, "day=mixed", 0).append(batch("c")).durable().get();
      clock.advance(HOUR / 2);
      logs.tablet(TABLE, "day=mixed", 1).append(batch("d")).durable().get();
      logs.tablet(TABLE, "day=new", 0).append(batch("e")).durable().get();

      clock.advance(HOUR / 2 + 1);
      assertThat(logs.enforceRetention()).isEqualTo(1);
      assertThat(logs.partitions(TABLE)).containsExactly("day=mixed", "day=new");
      assertThat(expired).containsExactly(TABLE + ":day=old");
      assertThat(Files.exists(root.resolve(TABLE).resolve("partitions").resolve("day%3Dold")))
          .isFalse();
      // The bucket of "mixed" closed by the check reopens and still has its row.
      assertThat(logs.existingTablet(TABLE, "day=mixed", 0).orElseThrow().highWatermark())
          .isEqualTo(1);

      clock.advance(HOUR / 2);
      assertThat(logs.enforceRetention()).isEqualTo(2);
      assertThat(logs.partitions(TABLE)).isEmpty();

      // Written again after it expired, a partition starts anew.
      LogTablet again = logs.tablet(TABLE, "day=old", 0);
      assertThat(again.append(batch("f")).baseOffset()).isZero();
    }
  }

  @Test
  void retentionLeavesUnpartitionedTablesAlone() throws Exception {
    try (LogManager logs = manager()) {
      logs.tablet(TABLE, 0).append(batch("a")).durable().get();
      clock.advance(10 * HOUR);
      logs.enforceRetention();
      assertThat(logs.tablet(TABLE, 0).highWatermark()).isEqualTo(1);
    }
  }

  @Test
  void retentionKeepsSegmentsAtAndAboveABucketsFloor() throws Exception {
    try (LogManager logs =
        new LogManager(
            root,
            new LogConfig(
                64, Duration.ofDays(1), 256, FlushMode.FSYNC, 1 << 20, Duration.ofHours(1), -1),
            clock)) {
      LogTablet tablet = logs.tablet(TABLE, 0);
      for (int i = 0; i < 5; i++) {
        tablet.append(batch("row-" + i)).durable().get();
      }
      assertThat(tablet.segmentCount()).isEqualTo(5);
      clock.advance(2 * HOUR);
      logs.retentionFloor((table, partition, bucket) -> 2);
      logs.enforceRetention();
      assertThat(tablet.logStartOffset()).isEqualTo(2);
      logs.retentionFloor((table, partition, bucket) -> Long.MAX_VALUE);
      logs.enforceRetention();
      assertThat(tablet.segmentCount()).isEqualTo(1);
    }
  }

  @Test
  void aTableWithARetentionOfItsOwnExpiresByIt() throws Exception {
    String shortLived = "0a1b2c3d-0000-4000-8000-000000000001";
    try (LogManager logs =
        new LogManager(
            root,
            new LogConfig(
                64, Duration.ofDays(1), 256, FlushMode.FSYNC, 1 << 20, Duration.ofHours(1), -1),
            clock)) {
      // The server keeps rows a day; one table asks for an hour.
      logs.retentionTime(
          table -> table.equals(shortLived) ? Duration.ofHours(1) : Duration.ofDays(1));
      LogTablet kept = logs.tablet(TABLE, 0);
      LogTablet expiring = logs.tablet(shortLived, 0);
      for (int i = 0; i < 3; i++) {
        kept.append(batch("row-" + i)).durable().get();
        expiring.append(batch("row-" + i)).durable().get();
      }
      logs.tablet(shortLived, "day=old", 0).append(batch("p")).durable().get();
      logs.tablet(TABLE, "day=old", 0).append(batch("p")).durable().get();

      clock.advance(HOUR / 2);
      logs.enforceRetention();
      assertThat(expiring.logStartOffset()).isZero();

      clock.advance(HOUR);
      logs.enforceRetention();
      // Every segment but the active one is past the table's hour; the other table keeps all.
      assertThat(expiring.logStartOffset()).isEqualTo(2);
      assertThat(kept.logStartOffset()).isZero();
      assertThat(logs.partitions(shortLived)).isEmpty();
      assertThat(logs.partitions(TABLE)).containsExactly("day=old");
    }
  }

  @Test
  void refusesPartitionNamesTooLongForAFileName() throws Exception {
    try (LogManager logs = manager()) {
      assertThatThrownBy(() -> logs.tablet(TABLE, "p=" + "x".repeat(300), 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("too long");
    }
  }
}
