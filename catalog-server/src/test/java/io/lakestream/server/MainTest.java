package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.ConfigException;
import io.lakestream.config.Configuration;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path temp;

  @Test
  void flagsOverrideEnvironmentWhichOverridesTheFile() throws IOException {
    Path file = temp.resolve("lakestream.yaml");
    Files.writeString(file, "http:\n  port: 1000\nrpc:\n  port: 1001\nflight.port: 1002\n");
    Configuration configuration =
        Main.parse(
                new String[] {"--config", file.toString(), "--http-port=3000"},
                Map.of("LAKESTREAM_HTTP_PORT", "2000", "LAKESTREAM_RPC_PORT", "2001"),
                new PrintStream(new ByteArrayOutputStream()))
            .orElseThrow();
    assertThat(configuration.get(ServerConfig.HTTP_PORT)).isEqualTo(3000);
    assertThat(configuration.get(ServerConfig.RPC_PORT)).isEqualTo(2001);
    assertThat(configuration.get(ServerConfig.FLIGHT_PORT)).isEqualTo(1002);
  }

  @Test
  void readsPropertiesFiles() throws IOException {
    Path file = temp.resolve("lakestream.properties");
    Files.writeString(file, "bind=0.0.0.0\ncatalog.default-warehouse=lake\n");
    Configuration configuration =
        Main.parse(new String[] {"--config", file.toString()}, Map.of(), System.out).orElseThrow();
    assertThat(configuration.get(ServerConfig.BIND)).isEqualTo("0.0.0.0");
    assertThat(configuration.get(ServerConfig.DEFAULT_WAREHOUSE)).isEqualTo("lake");
  }

  @Test
  void unknownFlagsAndKeysAreOneLineErrors() throws IOException {
    assertThatThrownBy(() -> Main.parse(new String[] {"--http-prot", "1"}, Map.of(), System.out))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Unknown flag --http-prot; see --help");
    Path file = temp.resolve("bad.yaml");
    Files.writeString(file, "http:\n  prot: 1\n");
    assertThatThrownBy(
            () -> Main.parse(new String[] {"--config", file.toString()}, Map.of(), System.out))
        .hasMessage("Unknown configuration key 'http.prot' in file " + file);
    assertThatThrownBy(
            () ->
                Main.parse(
                    new String[] {"--config", temp.resolve("missing.yaml").toString()},
                    Map.of(),
                    System.out))
        .hasMessageStartingWith("Configuration file not found: ");
  }

  @Test
  void helpListsEveryKey() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit =
        Main.run(
            new String[] {"--help"},
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err);
    assertThat(exit).isZero();
    String help = out.toString(StandardCharsets.UTF_8);
    for (var key : ServerConfig.allKeys()) {
      assertThat(help).contains(key.flag()).contains(key.environmentVariable());
    }
  }

  @Test
  void configErrorsExitWithCodeTwoAndOneLine() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Main.run(
            new String[] {"--http-port", "http"},
            Map.of(),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "lakestream: Invalid value 'http' for http.port (from flag --http-port): expected an integer between 0 and 65535"
                + System.lineSeparator());
  }
}
