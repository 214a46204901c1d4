package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.ConfigKey;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pins the tiering keys, their defaults and the interval table property. */
class TieringConfigTest {
  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : TieringConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("tiering.enabled", "true"),
            Map.entry("tiering.discovery-interval", "10s"),
            Map.entry("tiering.read-timeout", "5m"),
            Map.entry("tiering.orphan-file-age", "1h"),
            Map.entry("tiering.max-rows-per-round", "2000000"),
            Map.entry("tiering.data-file-writer", "duckdb"),
            Map.entry("tiering.threads", "4"));
    assertThat(TieringConfig.defaults())
        .isEqualTo(
            new TieringConfig(
                true,
                Duration.ofSeconds(10),
                Duration.ofMinutes(5),
                Duration.ofHours(1),
                2_000_000,
                DataFileWriter.DUCKDB,
                4));
  }

  @Test
  void orphanFileAgeMustNotBeNegative() {
    assertThatThrownBy(
            () ->
                new TieringConfig(
                    true,
                    Duration.ofSeconds(10),
                    Duration.ofMinutes(5),
                    Duration.ofSeconds(-1),
                    2_000_000,
                    DataFileWriter.DUCKDB,
                    4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tiering.orphan-file-age");
  }

  @Test
  void threadsMustBePositive() {
    assertThatThrownBy(
            () ->
                new TieringConfig(
                    true,
                    Duration.ofSeconds(10),
                    Duration.ofMinutes(5),
                    Duration.ofHours(1),
                    2_000_000,
                    DataFileWriter.DUCKDB,
                    0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tiering.threads");
  }

  @Test
  void intervalDefaultsTo30sAndIsAtLeastOneSecond() {
    assertThat(TieringConfig.interval(Map.of())).isEqualTo(Duration.ofSeconds(30));
    assertThat(TieringConfig.interval(Map.of("lakestream.tiering.interval", "2m")))
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(TieringConfig.interval(Map.of("lakestream.tiering.interval", "1s")))
        .isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> TieringConfig.interval(Map.of("lakestream.tiering.interval", "500ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'500ms'")
        .hasMessageContaining("1s");
    assertThatThrownBy(() -> TieringConfig.interval(Map.of("lakestream.tiering.interval", "soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid lakestream.tiering.interval 'soon'");
  }
}
