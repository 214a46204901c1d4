package io.lakestream.trino.compat;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

import io.lakestream.testing.ServerProcess;
import io.trino.Session;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

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
    Path testDirectory = Path.of(System.getProperty("lakestream.test.dir", "target"));
    Path run = Files.createTempDirectory(Files.createDirectories(testDirectory), "trino476-it-");
    ServerProcess server =
        ServerProcess.startReady(run.resolve("data"), run.resolve("logs"), SERVER_START_TIMEOUT);
    try {
      Session session = testSessionBuilder().setCatalog("lake").setSchema("default").build();
      QueryRunner trino = DistributedQueryRunner.builder(session).setWorkerCount(0).build();
      try {
        trino.installPlugin(new IcebergPlugin());
        trino.createCatalog(
            "lake",
            "iceberg",
            Map.of(
                "iceberg.catalog.type", "rest",
                "iceberg.rest-catalog.uri", server.baseUri(),
                "iceberg.register-table-procedure.enabled", "true",
                // Trino 476 names its local file system "native-local" (483: "local"); it serves
                // the file: scheme of the server's warehouse too, rooted here at /.
                "fs.native-local.enabled", "true",
                "local.location", "/"));
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
      int exitCode = server.terminate(SERVER_STOP_TIMEOUT);
      if (exitCode != 0) {
        throw new IllegalStateException("The Lakestream server exited with " + exitCode);
      }
    }
  }

  /** Resolves a {@link SharedTrino476} parameter, starting it on first use in the test run. */
  static final class Resolver implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == SharedTrino476.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context
          .getRoot()
          .getStore(ExtensionContext.Namespace.create(SharedTrino476.class))
          .getOrComputeIfAbsent(
              SharedTrino476.class,
              key -> {
                try {
                  return start();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } catch (RuntimeException e) {
                  throw e;
                } catch (Exception e) {
                  if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                  }
                  throw new IllegalStateException("Cannot start the server and Trino 476", e);
                }
              },
              SharedTrino476.class);
    }
  }
}
