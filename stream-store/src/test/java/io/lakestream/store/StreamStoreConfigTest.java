package io.lakestream.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamStoreConfigTest {
  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : StreamStoreConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("log.flush-mode", "fsync"),
            Map.entry("log.segment-bytes", "256mb"),
            Map.entry("log.segment-age", "1d"),
            Map.entry("log.retention", "7d"),
            Map.entry("log.retention-bytes", "0"),
            Map.entry("log.max-batch-bytes", "16mb"),
            Map.entry("rpc.max-request-size", "64mb"),
            Map.entry("rpc.max-in-flight-bytes", "128mb"),
            Map.entry("rpc.request-timeout", "30s"),
            Map.entry("rpc.max-connections", "4096"),
            Map.entry("rpc.max-connections-per-address", "1024"),
            Map.entry("rpc.max-buffered-request-bytes", "256mb"),
            Map.entry("kv.block-cache", "512mb"),
            Map.entry("kv.row-cache", "512mb"),
            Map.entry("kv.write-buffer", "64mb"),
            Map.entry("kv.checkpoint-interval", "10m"),
            Map.entry("kv.checkpoint-bytes", "256mb"));
  }

  @Test
  void readsTheRpcLimits() {
    StreamStoreConfig defaults =
        StreamStoreConfig.from(Configuration.builder(StreamStoreConfig.KEYS).build());
    assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.maxConnections()).isEqualTo(4096);
    assertThat(defaults.maxConnectionsPerAddress()).isEqualTo(1024);
    assertThat(defaults.maxBufferedRequestBytes()).isEqualTo(256L << 20);
    StreamStoreConfig set =
        StreamStoreConfig.from(
            Configuration.builder(StreamStoreConfig.KEYS)
                .layer(
                    "test",
                    Map.of(
                        "rpc.request-timeout", "2s",
                        "rpc.max-connections", "10",
                        "rpc.max-connections-per-address", "3",
                        "rpc.max-buffered-request-bytes", "8mb"))
                .build());
    assertThat(set.requestTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(set.maxConnections()).isEqualTo(10);
    assertThat(set.maxConnectionsPerAddress()).isEqualTo(3);
    assertThat(set.maxBufferedRequestBytes()).isEqualTo(8L << 20);
  }

  @Test
  void readsTheStateSettings() {
    StreamStoreConfig config =
        StreamStoreConfig.from(
            Configuration.builder(StreamStoreConfig.KEYS)
                .layer(
                    "test",
                    Map.of(
                        "kv.checkpoint-interval", "30s",
                        "kv.block-cache", "1gb",
                        "kv.row-cache", "0"))
                .build());
    assertThat(config.kv().checkpointInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.kv().blockCacheBytes()).isEqualTo(1L << 30);
    assertThat(config.kv().rowCacheBytes()).isZero();
  }
}
