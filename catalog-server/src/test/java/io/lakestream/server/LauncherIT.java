package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.ServerProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up failures through the real launcher: one line naming the problem, non-zero exit. */
class LauncherIT {
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path temp;

  @Test
  void badConfigValue() throws Exception {
    int port = ServerProcess.freePort();
    try (ServerProcess server =
        ServerProcess.launch(
            temp,
            port,
            List.of("--data-dir", temp.resolve("data").toString(), "--http-port", "eighty"))) {
      assertThat(server.awaitExit(EXIT_TIMEOUT)).isEqualTo(2);
      assertThat(errorLines(server))
          .containsExactly(
              "lakestream: Invalid value 'eighty' for http.port (from flag --http-port):"
                  + " expected an integer between 0 and 65535");
    }
  }

  @Test
  void badValueInConfigFile() throws Exception {
    Path file = temp.resolve("lakestream.yaml");
    Files.writeString(file, "shutdown:\n  timeout: soon\n");
    try (ServerProcess server =
        ServerProcess.launch(
            temp,
            0,
            List.of("--data-dir", temp.resolve("data").toString(), "--config", file.toString()))) {
      assertThat(server.awaitExit(EXIT_TIMEOUT)).isEqualTo(2);
      assertThat(errorLines(server)).hasSize(1);
      assertThat(errorLines(server).get(0))
          .contains("'soon'")
          .contains("shutdown.timeout")
          .contains(file.toString());
    }
  }

  @Test
  void occupiedPort() throws Exception {
    try (ServerSocket occupant = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = occupant.getLocalPort();
      try (ServerProcess server =
          ServerProcess.launch(
              temp,
              port,
              List.of(
                  "--data-dir",
                  temp.resolve("data").toString(),
                  "--http-port",
                  Integer.toString(port)))) {
        assertThat(server.awaitExit(EXIT_TIMEOUT)).isEqualTo(1);
        assertThat(errorLines(server))
            .containsExactly(
                "lakestream: Cannot listen on 127.0.0.1:"
                    + port
                    + " (http.port): address already in use or not available");
      }
    }
  }

  @Test
  void unwritableDataDirectory() throws Exception {
    // Root can write anywhere, so make the directory impossible rather than read-only: its parent
    // is a regular file.
    Path file = Files.writeString(temp.resolve("not-a-directory"), "x");
    Path data = file.resolve("data");
    try (ServerProcess server =
        ServerProcess.launch(
            temp,
            0,
            List.of(
                "--data-dir",
                data.toString(),
                "--http-port",
                Integer.toString(ServerProcess.freePort())))) {
      assertThat(server.awaitExit(EXIT_TIMEOUT)).isEqualTo(1);
      assertThat(errorLines(server)).hasSize(1);
      assertThat(errorLines(server).get(0))
          .startsWith("lakestream: Cannot use data directory " + data + " (data-dir): ");
    }
  }

  private static List<String> errorLines(ServerProcess server) throws Exception {
    return server.stderr().lines().filter(line -> !line.isBlank()).toList();
  }
}
