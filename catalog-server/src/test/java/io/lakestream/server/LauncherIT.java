package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.ServerProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
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

  /**
   * Native libraries unpack a copy of themselves (DuckDB's is 70 MB) into the JVM's temporary
   * directory and delete it only at a normal exit: servers killed over and over filled the disk of
   * the machine running the tests. Each server now has a temporary directory of its own, removed by
   * the next start once its process is gone.
   */
  @Test
  void theNextStartRemovesWhatAKilledServerLeftInItsTemporaryDirectory() throws Exception {
    Path scratch = temp.resolve("scratch");
    // What others keep in the same directory is never touched, even when named like a process
    // that is gone: a directory named by a number, a file named like ours.
    Path othersDirectory = Files.createDirectories(scratch.resolve("999999999"));
    Path othersFile = Files.writeString(scratch.resolve("lakestream-999999998"), "not ours");
    Map<String, String> environment = Map.of("LAKESTREAM_SCRATCH_DIR", scratch.toString());
    Path killedServersDirectory;
    try (ServerProcess killed = startWithScratch(temp.resolve("first"), environment)) {
      killedServersDirectory = scratch.resolve("lakestream-" + killed.pid());
      assertThat(killedServersDirectory).isDirectory();
      assertThat(fileNames(killedServersDirectory)).anyMatch(name -> name.startsWith("libduckdb"));
      killed.kill();
    }
    assertThat(fileNames(killedServersDirectory)).anyMatch(name -> name.startsWith("libduckdb"));

    try (ServerProcess next = startWithScratch(temp.resolve("second"), environment)) {
      assertThat(killedServersDirectory).doesNotExist();
      assertThat(fileNames(scratch))
          .containsExactlyInAnyOrder(
              "lakestream-" + next.pid(),
              othersDirectory.getFileName().toString(),
              othersFile.getFileName().toString());
    }
  }

  private static ServerProcess startWithScratch(Path directory, Map<String, String> environment)
      throws Exception {
    int httpPort = ServerProcess.freePort();
    return ServerProcess.launchReady(
        directory.resolve("logs"),
        httpPort,
        List.of(
            "--data-dir", directory.resolve("data").toString(),
            "--http-port", Integer.toString(httpPort),
            "--rpc-port", Integer.toString(ServerProcess.freePort()),
            "--flight-port", Integer.toString(ServerProcess.freePort())),
        environment,
        Duration.ofSeconds(60));
  }

  private static List<String> fileNames(Path directory) throws Exception {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(file -> file.getFileName().toString()).toList();
    }
  }

  private static List<String> errorLines(ServerProcess server) throws Exception {
    return server.stderr().lines().filter(line -> !line.isBlank()).toList();
  }
}
