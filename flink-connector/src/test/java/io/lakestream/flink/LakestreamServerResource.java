package io.lakestream.flink;

import io.lakestream.client.Connection;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.apache.flink.connector.testframe.TestResource;

/**
 * The packaged Lakestream server as the external system of Flink's connector testing framework: one
 * server process (tiering off, the suites read the log) per test class, with a client connection
 * for the test contexts to create tables, write split data and read back what a sink wrote.
 */
final class LakestreamServerResource implements TestResource {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);

  /** The database (namespace) the contexts create their tables in. */
  static final String DATABASE = "testfw";

  private final String name;
  private PackagedServer server;
  private Connection client;

  /**
   * @param name names the server's run directory
   */
  LakestreamServerResource(String name) {
    this.name = name;
  }

  @Override
  public void startUp() throws Exception {
    server =
        PackagedServer.start(
            SharedPerTestRun.newRunDirectory(name + "-"),
            SERVER_START_TIMEOUT,
            "--tiering-enabled",
            "false");
    client = Connection.open("127.0.0.1", server.rpcPort(), null);
    client.admin().createNamespace(null, List.of(DATABASE));
  }

  @Override
  public void tearDown() throws Exception {
    try {
      if (client != null) {
        client.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /** The server as the connector's builders take it. */
  ServerAddress address() {
    return new ServerAddress(
        URI.create(server.baseUri()), "127.0.0.1", server.rpcPort(), null, null, null);
  }

  /** The test's own client connection (thread safe); never closed by callers. */
  Connection client() {
    return client;
  }
}
