package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import io.lakestream.store.kv.KvConfig;
import io.lakestream.store.log.FlushMode;
import io.lakestream.store.log.LogConfig;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the stream store and its RPC endpoint.
 *
 * @param requestTimeout how long a started request frame may take to arrive whole before its
 *     connection is closed
 * @param maxConnections open RPC connections of all clients together; further ones are closed
 * @param maxConnectionsPerAddress open RPC connections from one client address
 * @param maxBufferedRequestBytes bytes of partly received RPC frames that all connections may hold
 *     together (at most a quarter of the heap is used, whatever the value)
 */
public record StreamStoreConfig(
    LogConfig log,
    KvConfig kv,
    int maxRequestBytes,
    long maxInFlightBytes,
    Duration requestTimeout,
    int maxConnections,
    int maxConnectionsPerAddress,
    long maxBufferedRequestBytes) {
  public static final ConfigKey<FlushMode> FLUSH_MODE =
      ConfigKey.choice(
          "log.flush-mode",
          FlushMode.class,
          FlushMode.FSYNC,
          "fsync: acknowledge after the batch is on disk (survives power loss); os: after the"
              + " write to the page cache (survives a process crash only, lower latency)");
  public static final ConfigKey<Long> SEGMENT_BYTES =
      ConfigKey.bytes("log.segment-bytes", 256L << 20, "Size at which a log segment rolls");
  public static final ConfigKey<Duration> SEGMENT_AGE =
      ConfigKey.duration("log.segment-age", Duration.ofDays(1), "Age at which a log segment rolls");
  public static final ConfigKey<Duration> RETENTION =
      ConfigKey.duration(
          "log.retention",
          Duration.ofDays(7),
          "Log segments older than this may be deleted (never above the tiered offset)");
  public static final ConfigKey<Long> RETENTION_BYTES =
      ConfigKey.bytes("log.retention-bytes", 0, "Per-bucket size limit of the log; 0 for none");
  public static final ConfigKey<Long> MAX_BATCH_BYTES =
      ConfigKey.bytes("log.max-batch-bytes", 16L << 20, "Largest accepted batch");
  public static final ConfigKey<Long> MAX_REQUEST_BYTES =
      ConfigKey.bytes("rpc.max-request-size", 64L << 20, "Largest accepted RPC request frame");
  public static final ConfigKey<Long> MAX_IN_FLIGHT_BYTES =
      ConfigKey.bytes(
          "rpc.max-in-flight-bytes",
          128L << 20,
          "Unanswered request bytes per connection before the server stops reading it");
  public static final ConfigKey<Duration> REQUEST_TIMEOUT =
      ConfigKey.duration(
          "rpc.request-timeout",
          Duration.ofSeconds(30),
          "Time a started request frame may take to arrive whole; a connection with a slower one"
              + " is closed");
  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      ConfigKey.integer(
          "rpc.max-connections",
          4096,
          1,
          1_000_000,
          "Open RPC connections of all clients together; further ones are closed at once");
  public static final ConfigKey<Integer> MAX_CONNECTIONS_PER_ADDRESS =
      ConfigKey.integer(
          "rpc.max-connections-per-address",
          1024,
          1,
          1_000_000,
          "Open RPC connections from one client address; further ones are closed at once");
  public static final ConfigKey<Long> MAX_BUFFERED_REQUEST_BYTES =
      ConfigKey.bytes(
          "rpc.max-buffered-request-bytes",
          256L << 20,
          "Heap that the partly received request frames of all RPC connections may hold together"
              + " (at most a quarter of the heap, whatever the setting); a connection whose frame"
              + " would exceed it is answered SERVER_BUSY and closed");

  public static final ConfigKey<Long> KV_BLOCK_CACHE =
      ConfigKey.bytes(
          "kv.block-cache",
          KvConfig.defaults().blockCacheBytes(),
          "RocksDB block cache shared by all primary-key table buckets of the server; their"
              + " memtables are charged to it and flushed early when together they reach half of"
              + " it");
  public static final ConfigKey<Long> KV_ROW_CACHE =
      ConfigKey.bytes(
          "kv.row-cache",
          KvConfig.defaults().rowCacheBytes(),
          "Heap kept for the durable rows of primary-key table buckets, shared by all of them: the"
              + " write path finds a key's row there instead of reading RocksDB, and lookups"
              + " answer from it; 0 turns it off");
  public static final ConfigKey<Long> KV_WRITE_BUFFER =
      ConfigKey.bytes(
          "kv.write-buffer",
          KvConfig.defaults().writeBufferBytes(),
          "RocksDB memtable size of each primary-key table bucket");
  public static final ConfigKey<Duration> KV_CHECKPOINT_INTERVAL =
      ConfigKey.duration(
          "kv.checkpoint-interval",
          KvConfig.defaults().checkpointInterval(),
          "A bucket's state is checkpointed this long after the last checkpoint once it changed;"
              + " a restart replays the changelog written since");
  public static final ConfigKey<Long> KV_CHECKPOINT_BYTES =
      ConfigKey.bytes(
          "kv.checkpoint-bytes",
          KvConfig.defaults().checkpointBytes(),
          "A bucket's state is also checkpointed once this much was written since the last one");

  public static final List<ConfigKey<?>> KEYS =
      List.of(
          FLUSH_MODE,
          SEGMENT_BYTES,
          SEGMENT_AGE,
          RETENTION,
          RETENTION_BYTES,
          MAX_BATCH_BYTES,
          MAX_REQUEST_BYTES,
          MAX_IN_FLIGHT_BYTES,
          REQUEST_TIMEOUT,
          MAX_CONNECTIONS,
          MAX_CONNECTIONS_PER_ADDRESS,
          MAX_BUFFERED_REQUEST_BYTES,
          KV_BLOCK_CACHE,
          KV_ROW_CACHE,
          KV_WRITE_BUFFER,
          KV_CHECKPOINT_INTERVAL,
          KV_CHECKPOINT_BYTES);

  public StreamStoreConfig {
    requireNonNull(log, "log is null");
    requireNonNull(kv, "kv is null");
    requireNonNull(requestTimeout, "requestTimeout is null");
  }

  public static StreamStoreConfig from(Configuration configuration) {
    long retentionBytes = configuration.get(RETENTION_BYTES);
    if (configuration.get(REQUEST_TIMEOUT).isZero()) {
      throw new ConfigException("Invalid rpc.request-timeout: it must be longer than 0");
    }
    if (configuration.get(MAX_BUFFERED_REQUEST_BYTES) <= 0) {
      throw new ConfigException("Invalid rpc.max-buffered-request-bytes: it must be above 0");
    }
    return new StreamStoreConfig(
        new LogConfig(
            configuration.get(SEGMENT_BYTES),
            configuration.get(SEGMENT_AGE),
            4096,
            configuration.get(FLUSH_MODE),
            (int) Math.min(Integer.MAX_VALUE, configuration.get(MAX_BATCH_BYTES)),
            configuration.get(RETENTION),
            retentionBytes == 0 ? -1 : retentionBytes),
        new KvConfig(
            configuration.get(KV_BLOCK_CACHE),
            configuration.get(KV_ROW_CACHE),
            configuration.get(KV_WRITE_BUFFER),
            configuration.get(KV_CHECKPOINT_INTERVAL),
            configuration.get(KV_CHECKPOINT_BYTES)),
        (int) Math.min(Integer.MAX_VALUE, configuration.get(MAX_REQUEST_BYTES)),
        configuration.get(MAX_IN_FLIGHT_BYTES),
        configuration.get(REQUEST_TIMEOUT),
        configuration.get(MAX_CONNECTIONS),
        configuration.get(MAX_CONNECTIONS_PER_ADDRESS),
        configuration.get(MAX_BUFFERED_REQUEST_BYTES));
  }
}
