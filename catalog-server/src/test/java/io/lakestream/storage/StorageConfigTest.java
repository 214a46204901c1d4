package io.lakestream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StorageConfigTest {
  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : StorageConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("catalog.warehouses", "(none)"),
            Map.entry("catalog.allowed-locations", "(none)"),
            Map.entry("s3.endpoint", "(AWS)"),
            Map.entry("s3.region", "us-east-1"),
            Map.entry("s3.access-key-id", "(none)"),
            Map.entry("s3.secret-access-key", "(none)"),
            Map.entry("s3.path-style-access", "false"),
            Map.entry("s3.vend-static-credentials", "false"));
  }

  @Test
  void parsesWarehousesAndKeepsTheSecretOutOfItsDescription() {
    StorageConfig config =
        StorageConfig.from(
            Configuration.builder(StorageConfig.KEYS)
                .layer(
                    "test",
                    Map.of(
                        "catalog.warehouses", "lake=s3://bucket/root, scratch=file:/tmp/scratch",
                        "s3.secret-access-key", "top-secret"))
                .build());
    assertThat(config.warehouses())
        .containsEntry("lake", "s3://bucket/root")
        .containsEntry("scratch", "file:/tmp/scratch");
    assertThat(config.toString()).doesNotContain("top-secret");
  }

  @Test
  void refusesUnsupportedLocationsAndBadNames() {
    assertThatThrownBy(
            () ->
                StorageConfig.from(
                    Configuration.builder(StorageConfig.KEYS)
                        .layer("test", Map.of("catalog.warehouses", "lake=hdfs://nn/path"))
                        .build()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Unsupported warehouse location 'hdfs://nn/path'");
    assertThatThrownBy(
            () ->
                StorageConfig.from(
                    Configuration.builder(StorageConfig.KEYS)
                        .layer("test", Map.of("catalog.warehouses", "my lake=file:/x"))
                        .build()))
        .hasMessageContaining("Invalid warehouse name 'my lake'");
  }
}
