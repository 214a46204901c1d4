package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LakestreamConfigTest {
  @Test
  void pinsDefaults() {
    LakestreamConfig config = LakestreamConfig.parse(Map.of("lakestream.uri", "http://h1:8181"));

    assertThat(config.uri()).isEqualTo(URI.create("http://h1:8181"));
    assertThat(config.rpcHost()).isEqualTo("h1");
    assertThat(config.rpcPort()).isEqualTo(9123);
    assertThat(config.credential()).isEmpty();
    assertThat(config.token()).isEmpty();
    assertThat(config.warehouse()).isEmpty();
    assertThat(config.logReadTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.icebergProperties())
        .isEqualTo(
            Map.of(
                "iceberg.catalog.type",
                "rest",
                "iceberg.rest-catalog.uri",
                "http://h1:8181",
                "iceberg.extended-statistics.collect-on-write",
                "false"));
  }

  @Test
  void passesOtherPropertiesToTheIcebergConnectorWithCredentials() {
    LakestreamConfig config =
        LakestreamConfig.parse(
            Map.of(
                "lakestream.uri", "https://catalog.example:8443",
                "lakestream.rpc-address", "stream.example:19123",
                "lakestream.credential", "bi:s3cret",
                "lakestream.warehouse", "prod",
                "lakestream.log-read-timeout", "5s",
                "fs.native-s3.enabled", "true"));

    assertThat(config.rpcHost()).isEqualTo("stream.example");
    assertThat(config.rpcPort()).isEqualTo(19123);
    assertThat(config.credential()).isEqualTo(Optional.of("bi:s3cret"));
    assertThat(config.logReadTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.icebergProperties())
        .containsEntry("fs.native-s3.enabled", "true")
        .containsEntry("iceberg.rest-catalog.security", "OAUTH2")
        .containsEntry("iceberg.rest-catalog.oauth2.credential", "bi:s3cret")
        .containsEntry("iceberg.rest-catalog.warehouse", "prod")
        .doesNotContainKey("lakestream.credential");
    assertThat(config.toString()).doesNotContain("s3cret");
  }

  @Test
  void refusesMissingUnknownAndConflictingProperties() {
    assertThatThrownBy(() -> LakestreamConfig.parse(Map.of()))
        .hasMessageContaining("lakestream.uri is required");
    assertThatThrownBy(() -> LakestreamConfig.parse(Map.of("lakestream.uri", "ftp://h:1")))
        .hasMessageContaining("http:// or https://");
    assertThatThrownBy(
            () ->
                LakestreamConfig.parse(
                    Map.of("lakestream.uri", "http://h:1", "lakestream.tokn", "x")))
        .hasMessageContaining("Unknown catalog property lakestream.tokn");
    assertThatThrownBy(
            () ->
                LakestreamConfig.parse(
                    Map.of(
                        "lakestream.uri", "http://h:1",
                        "lakestream.token", "t0ken",
                        "lakestream.credential", "a:b")))
        .hasMessageContaining("exclude each other")
        .hasMessageNotContaining("t0ken");
    assertThatThrownBy(
            () ->
                LakestreamConfig.parse(
                    Map.of("lakestream.uri", "http://h:1", "lakestream.rpc-address", "h:99999")))
        .hasMessageContaining("invalid port");
    assertThatThrownBy(
            () ->
                LakestreamConfig.parse(
                    Map.of("lakestream.uri", "http://h:1", "iceberg.rest-catalog.uri", "x")))
        .hasMessageContaining("iceberg.rest-catalog.uri is set by the connector");
    assertThatThrownBy(
            () ->
                LakestreamConfig.parse(
                    Map.of("lakestream.uri", "http://h:1", "lakestream.log-read-timeout", "soon")))
        .hasMessageContaining("lakestream.log-read-timeout");
  }
}
