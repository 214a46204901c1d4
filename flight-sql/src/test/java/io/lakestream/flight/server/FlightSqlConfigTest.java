package io.lakestream.flight.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pins the Flight SQL keys and defaults, and the checks of the TLS files. */
class FlightSqlConfigTest {
  @TempDir Path directory;

  private static FlightSqlConfig read(Map<String, String> values) {
    return FlightSqlConfig.from(
        Configuration.builder(FlightSqlConfig.KEYS).layer("test", values).build());
  }

  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : FlightSqlConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("flight.query-memory-limit", "1gb"),
            Map.entry("flight.query-threads", "2"),
            Map.entry("flight.result-timeout", "5m"),
            Map.entry("flight.query-timeout", "5m"),
            Map.entry("flight.max-concurrent-queries-per-principal", "4"),
            Map.entry("flight.tls.certificate-chain", ""),
            Map.entry("flight.tls.private-key", ""));
    assertThat(FlightSqlConfig.defaults())
        .isEqualTo(
            new FlightSqlConfig(
                1L << 30, 2, Duration.ofMinutes(5), Duration.ofMinutes(5), 4, Optional.empty()));
    assertThat(FlightSqlConfig.defaults().duckDbMemoryLimit()).isEqualTo("1048576KiB");
  }

  @Test
  void tlsNeedsBothReadableFiles() throws Exception {
    Path chain = Files.writeString(directory.resolve("chain.pem"), "chain");
    Path key = Files.writeString(directory.resolve("key.pem"), "key");
    assertThat(
            read(Map.of(
                    "flight.tls.certificate-chain", chain.toString(),
                    "flight.tls.private-key", key.toString()))
                .tls())
        .contains(new FlightSqlConfig.Tls(chain, key));
    assertThatThrownBy(() -> read(Map.of("flight.tls.certificate-chain", chain.toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must be set together");
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "flight.tls.certificate-chain", chain.toString(),
                        "flight.tls.private-key", directory.resolve("missing.pem").toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("flight.tls.private-key")
        .hasMessageContaining("missing.pem");
  }

  @Test
  void limitsAreChecked() {
    assertThatThrownBy(() -> read(Map.of("flight.query-memory-limit", "1kb")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("flight.query-memory-limit");
    assertThatThrownBy(() -> read(Map.of("flight.query-threads", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("flight.query-threads");
  }
}
