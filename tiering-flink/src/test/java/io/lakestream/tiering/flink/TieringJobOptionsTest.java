package io.lakestream.tiering.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.tiering.DataFileWriter;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TieringJobOptionsTest {
  @Test
  void defaults() {
    TieringJobOptions options =
        TieringJobOptions.parse(
            new String[] {"--uri", "http://node:8181", "--rpc-address", "node:9123"}, 3);

    assertThat(options.uri()).isEqualTo(URI.create("http://node:8181"));
    assertThat(options.rpcHost()).isEqualTo("node");
    assertThat(options.rpcPort()).isEqualTo(9123);
    assertThat(options.warehouse()).isNull();
    assertThat(options.token()).isNull();
    assertThat(options.credential()).isNull();
    assertThat(options.discoveryInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(options.parallelism()).isEqualTo(3);
    assertThat(options.readTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(options.maxRowsPerRound()).isEqualTo(2_000_000L);
    assertThat(options.dataFileWriter()).isEqualTo(DataFileWriter.DUCKDB);
    assertThat(options.orphanFileAge()).isEqualTo(Duration.ofHours(1));
    assertThat(options.catalogProperties()).isEmpty();
  }

  @Test
  void everyArgument() {
    TieringJobOptions options =
        TieringJobOptions.parse(
            new String[] {
              "--uri", "https://node:8443",
              "--rpc-address", "10.0.0.1:7000",
              "--warehouse", "sales",
              "--credential", "tierer:s3cret",
              "--interval", "500ms",
              "--parallelism", "8",
              "--read-timeout", "2m",
              "--max-rows-per-round", "1000",
              "--data-file-writer", "iceberg",
              "--orphan-file-age", "2h",
              "--catalog.io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"
            },
            1);

    assertThat(options.rpcHost()).isEqualTo("10.0.0.1");
    assertThat(options.rpcPort()).isEqualTo(7000);
    assertThat(options.warehouse()).isEqualTo("sales");
    assertThat(options.credential()).isEqualTo("tierer:s3cret");
    assertThat(options.discoveryInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(options.parallelism()).isEqualTo(8);
    assertThat(options.readTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(options.maxRowsPerRound()).isEqualTo(1000L);
    assertThat(options.dataFileWriter()).isEqualTo(DataFileWriter.ICEBERG);
    assertThat(options.orphanFileAge()).isEqualTo(Duration.ofHours(2));
    assertThat(options.catalogProperties())
        .isEqualTo(Map.of("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"));
    // Never the secret.
    assertThat(options.toString()).doesNotContain("s3cret");
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> parse("--rpc-address", "node:9123"))
        .hasMessageContaining("--uri is required");
    assertThatThrownBy(() -> parse("--uri", "http://node:8181", "--rpc-address", "node"))
        .hasMessageContaining("--rpc-address must be host:port, not node");
    assertThatThrownBy(
            () -> parse("--uri", "http://node:8181", "--rpc-address", "node:1", "--interval", "x"))
        .hasMessageContaining("--interval must be a duration")
        .hasMessageContaining("'x'");
    assertThatThrownBy(
            () ->
                parse("--uri", "http://node:8181", "--rpc-address", "node:1", "--parallelism", "0"))
        .hasMessageContaining("--parallelism must be positive, not 0");
    assertThatThrownBy(
            () ->
                parse(
                    "--uri",
                    "http://node:8181",
                    "--rpc-address",
                    "node:1",
                    "--token",
                    "t",
                    "--credential",
                    "a:b"))
        .hasMessageContaining("Set one of --token and --credential, not both");
    assertThatThrownBy(
            () -> parse("--uri", "http://node:8181", "--rpc-address", "node:1", "--colour", "red"))
        .hasMessageContaining("Unknown arguments: --colour");
    assertThatThrownBy(() -> parse("--uri", "http://node:8181", "--rpc-address"))
        .hasMessageContaining("Argument --rpc-address has no value");
    assertThatThrownBy(() -> parse("node:8181", "--uri"))
        .hasMessageContaining("Expected an argument --name, found 'node:8181'");
    assertThatThrownBy(
            () ->
                parse(
                    "--uri",
                    "http://node:8181",
                    "--rpc-address",
                    "node:1",
                    "--data-file-writer",
                    "orc"))
        .hasMessageContaining("--data-file-writer must be duckdb or iceberg, not 'orc'");
  }

  private static TieringJobOptions parse(String... args) {
    return TieringJobOptions.parse(args, 1);
  }
}
