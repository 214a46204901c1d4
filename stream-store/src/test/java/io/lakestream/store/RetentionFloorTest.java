package io.lakestream.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.store.kv.KvConfig;
import io.lakestream.store.kv.KvManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionFloorTest {
  @TempDir Path directory;

  @Test
  void neverAboveTheTieredOffsetNorTheStateCheckpoint() throws Exception {
    try (KvManager kvs = new KvManager(directory, KvConfig.defaults(), Clock.systemUTC())) {
      // A log table (no state): only tiering holds retention back.
      assertThat(new RetentionFloor(kvs, (table, partition, bucket) -> 42).floor("log", "", 0))
          .isEqualTo(42);
      assertThat(
              new RetentionFloor(
                      kvs,
                      (table, partition, bucket) -> RetentionFloor.TieredOffsetSource.NOT_TIERED)
                  .floor("log", "", 0))
          .isEqualTo(Long.MAX_VALUE);
      // A primary-key table without a checkpoint: its whole changelog is kept, whatever is tiered.
      Files.createDirectories(directory.resolve("pk"));
      assertThat(new RetentionFloor(kvs, (table, partition, bucket) -> 42).floor("pk", "", 0))
          .isZero();
    }
  }
}
