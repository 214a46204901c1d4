package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pins every key and default of the server: changing one is a visible, deliberate act. */
class ServerConfigTest {
  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : ServerConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("data-dir", "./data"),
            Map.entry("bind", "127.0.0.1"),
            Map.entry("http.port", "8181"),
            Map.entry("rpc.port", "9123"),
            Map.entry("flight.port", "32010"),
            Map.entry("flight.enabled", "true"),
            Map.entry("http.max-request-size", "16mb"),
            Map.entry("http.request-timeout", "30s"),
            Map.entry("http.max-buffered-request-bytes", "256mb"),
            Map.entry("http.max-connections-per-address", "64"),
            Map.entry("shutdown.timeout", "30s"),
            Map.entry("catalog.database-url", "jdbc:sqlite:<data-dir>/catalog.db"),
            Map.entry("catalog.database-user", "(none)"),
            Map.entry("catalog.database-password", "(none)"),
            Map.entry("catalog.database-pool-size", "8"),
            Map.entry("catalog.default-warehouse", "default"),
            Map.entry("catalog.warehouse-location", "file:<data-dir>/warehouse"),
            Map.entry("catalog.metadata-cache-entries", "1000"),
            Map.entry("catalog.idempotency-key-lifetime", "30m"),
            Map.entry("catalog.confine-table-files", "true"));
  }

  @Test
  void resolvesDerivedDefaultsAgainstTheDataDirectory() {
    ServerConfig config =
        ServerConfig.from(
            Configuration.builder(ServerConfig.allKeys())
                .layer("test", Map.of("data-dir", "/var/lib/lakestream"))
                .build());
    assertThat(config.dataDirectory()).isEqualTo(Path.of("/var/lib/lakestream"));
    assertThat(config.databaseUrl()).isEqualTo("jdbc:sqlite:/var/lib/lakestream/catalog.db");
    assertThat(config.warehouseLocation()).isEqualTo("file:///var/lib/lakestream/warehouse");
    assertThat(config.httpPort()).isEqualTo(8181);
    assertThat(config.rpcPort()).isEqualTo(9123);
    assertThat(config.flightPort()).isEqualTo(32010);
    assertThat(config.flightEnabled()).isTrue();
    assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.maxRequestBytes()).isEqualTo(16L << 20);
    assertThat(config.httpLimits())
        .isEqualTo(
            new io.lakestream.rest.HttpLimits(16L << 20, Duration.ofSeconds(30), 256L << 20, 64));
    assertThat(config.databasePassword()).isNull();
  }

  @Test
  void refusesLimitsThatWouldServeNothing() {
    for (Map.Entry<String, String> zero :
        Map.of("http.request-timeout", "0s", "http.max-buffered-request-bytes", "0").entrySet()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  ServerConfig.from(
                      Configuration.builder(ServerConfig.allKeys())
                          .layer("test", Map.of(zero.getKey(), zero.getValue()))
                          .build()))
          .isInstanceOf(io.lakestream.config.ConfigException.class)
          .hasMessageContaining(zero.getKey());
    }
  }

  @Test
  void neverPrintsThePassword() {
    ServerConfig config =
        ServerConfig.from(
            Configuration.builder(ServerConfig.allKeys())
                .layer(
                    "test",
                    Map.of(
                        "catalog.database-password", "s3cret",
                        "catalog.database-url", "jdbc:postgresql://db/lake?password=s3cret"))
                .build());
    assertThat(config.toString()).doesNotContain("s3cret");
  }
}
