package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The packaged server ({@code bin/lakestream server}, see {@link ServerProcess}) on HTTP, RPC and
 * Flight ports chosen once, with its data under {@code directory/data} and its output under a log
 * directory: it can be killed with SIGKILL and started again on the same data and ports, so that
 * clients' addresses stay valid across a crash. Not thread safe.
 */
public final class PackagedServer implements AutoCloseable {
  private final Path dataDir;
  private final Path logDirectory;
  private final int httpPort;
  private final int rpcPort;
  private final int flightPort;
  private final List<String> flags;
  private final Map<String, String> environment;
  private final Duration startTimeout;
  private ServerProcess process;

  private PackagedServer(
      Path dataDir,
      Path logDirectory,
      List<String> extraFlags,
      Map<String, String> environment,
      Duration startTimeout)
      throws IOException {
    this.dataDir = requireNonNull(dataDir, "dataDir is null");
    this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    this.httpPort = ServerProcess.freePort();
    this.rpcPort = ServerProcess.freePort();
    this.flightPort = ServerProcess.freePort();
    List<String> all =
        new ArrayList<>(
            List.of(
                "--data-dir", dataDir.toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(rpcPort),
                "--flight-port", Integer.toString(flightPort)));
    all.addAll(extraFlags);
    this.flags = List.copyOf(all);
    this.environment = Map.copyOf(environment);
    this.startTimeout = requireNonNull(startTimeout, "startTimeout is null");
  }

  /**
   * Starts the server with its data in {@code directory/data} and its output in {@code
   * directory/logs}, and waits until it is ready.
   *
   * @param extraFlags flags after the data directory and ports, such as {@code --tiering-enabled
   *     false}
   */
  public static PackagedServer start(Path directory, Duration startTimeout, String... extraFlags)
      throws IOException, InterruptedException {
    return start(
        directory.resolve("data"),
        directory.resolve("logs"),
        List.of(extraFlags),
        Map.of(),
        startTimeout);
  }

  /** Starts the server with the given flags and environment, and waits until it is ready. */
  public static PackagedServer start(
      Path dataDir,
      Path logDirectory,
      List<String> extraFlags,
      Map<String, String> environment,
      Duration startTimeout)
      throws IOException, InterruptedException {
    PackagedServer server =
        new PackagedServer(dataDir, logDirectory, extraFlags, environment, startTimeout);
    server.restart();
    return server;
  }

  /**
   * Starts the server again (it must not be running) on the same data and ports, relaunching while
   * a port is still held by the process that was just killed, and waits until it is ready.
   */
  public void restart() throws IOException, InterruptedException {
    if (process != null && process.process().isAlive()) {
      throw new IllegalStateException("Server " + process.pid() + " is still running");
    }
    process = ServerProcess.launchReady(logDirectory, httpPort, flags, environment, startTimeout);
  }

  /** Sends SIGKILL and waits for the process to be gone. */
  public void kill() throws InterruptedException {
    process.kill();
  }

  /** The running (or last) server process. */
  public ServerProcess process() {
    return process;
  }

  public Path dataDir() {
    return dataDir;
  }

  public int httpPort() {
    return httpPort;
  }

  public int rpcPort() {
    return rpcPort;
  }

  public int flightPort() {
    return flightPort;
  }

  public String baseUri() {
    return process.baseUri();
  }

  /** The JDBC URL of the Flight SQL endpoint, without credentials. */
  public String flightJdbcUrl() {
    return FlightJdbc.url(flightPort);
  }

  /** A new anonymous catalog client of this server; the caller closes it. */
  public RESTCatalog openCatalog() {
    return RestCatalogs.open(baseUri());
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      process.close();
    }
  }
}
