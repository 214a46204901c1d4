package io.lakestream.trino.compat;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import io.lakestream.testing.TrinoCatalogContract;
import io.trino.Session;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One Lakestream server process and one in-JVM Trino 476 query runner whose catalog {@code lake} is
 * Trino 476's own Iceberg connector ({@code iceberg.catalog.type=rest}) on that server, shared by
 * every IT class of this module so that each starts once per test run. Table data lives on the
 * local file system under the server's {@code file:} warehouse. A class gets it as a parameter of
 * its {@code @BeforeAll} method with {@code @ExtendWith(SharedTrino476.Resolver.class)}; JUnit
 * closes it after the last class, and the server must then exit with 0 on SIGTERM.
 */
final class SharedTrino476 implements AutoCloseable {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration SERVER_STOP_TIMEOUT = Duration.ofSeconds(30);

  private final ServerProcess server;
  private final QueryRunner trino;

  private SharedTrino476(ServerProcess server, QueryRunner trino) {
    this.server = requireNonNull(server, "server is null");
    this.trino = requireNonNull(trino, "trino is null");
  }

  private static SharedTrino476 start() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("trino476-it-");
    ServerProcess server =
        ServerProcess.startReady(run.resolve("data"), run.resolve("logs"), SERVER_START_TIMEOUT);
    try {
      Session session = testSessionBuilder().setCatalog("lake").setSchema("default").build();
      QueryRunner trino = DistributedQueryRunner.builder(session).setWorkerCount(0).build();
      try {
        trino.installPlugin(new IcebergPlugin());
        // Trino 476 names its local file system "native-local" (483: "local").
        trino.createCatalog(
            "lake",
            "iceberg",
            TrinoCatalogContract.icebergCatalogProperties(
                server.baseUri(), "fs.native-local.enabled"));
        return new SharedTrino476(server, trino);
      } catch (RuntimeException e) {
        trino.close();
        throw e;
      }
    } catch (Exception e) {
      server.close();
      throw e;
    }
  }

  ServerProcess server() {
    return server;
  }

  QueryRunner trino() {
    return trino;
  }

  @Override
  public void close() throws Exception {
    try {
      trino.close();
    } finally {
      SharedPerTestRun.terminateCleanly(server, SERVER_STOP_TIMEOUT);
    }
  }

  /** Resolves a {@link SharedTrino476} parameter, starting it on first use in the test run. */
  static final class Resolver extends SharedPerTestRun<SharedTrino476> {
    Resolver() {
      super(SharedTrino476.class, "the server and Trino 476", SharedTrino476::start);
    }
  }
}
