package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Settings of the KV tablets.
 *
 * @param blockCacheBytes capacity of the RocksDB block cache (data, index and filter blocks) that
 *     all tablets of a {@link KvManager} share (a tablet opened on its own gets one this size)
 * @param rowCacheBytes heap budget of the {@link RowCache} of durable rows that all tablets of a
 *     {@link KvManager} share (a tablet opened on its own gets one this size); zero turns it off
 * @param writeBufferBytes size of a RocksDB memtable before it is flushed
 * @param checkpointInterval {@link KvTablet#shouldCheckpoint()} turns true this long after the last
 *     checkpoint once anything was written since
 * @param checkpointBytes {@link KvTablet#shouldCheckpoint()} turns true once this many key and
 *     value bytes were written since the last checkpoint
 */
public record KvConfig(
    long blockCacheBytes,
    long rowCacheBytes,
    long writeBufferBytes,
    Duration checkpointInterval,
    long checkpointBytes) {
  public KvConfig {
    requireNonNull(checkpointInterval, "checkpointInterval is null");
    if (rowCacheBytes < 0) {
      throw new IllegalArgumentException(
          "KV row cache size must not be negative: " + rowCacheBytes);
    }
    if (blockCacheBytes <= 0 || writeBufferBytes <= 0 || checkpointBytes <= 0) {
      throw new IllegalArgumentException(
          "KV sizes must be positive: blockCacheBytes="
              + blockCacheBytes
              + ", writeBufferBytes="
              + writeBufferBytes
              + ", checkpointBytes="
              + checkpointBytes);
    }
  }

  /**
   * The defaults: a 512 MiB block cache and a 512 MiB row cache shared by the node's tablets, 64
   * MiB memtables (RocksDB's own default), a checkpoint every 10 minutes or every 256 MiB written.
   */
  public static KvConfig defaults() {
    return new KvConfig(512L << 20, 512L << 20, 64L << 20, Duration.ofMinutes(10), 256L << 20);
  }
}
