package io.lakestream.sparktests;

import static java.util.Objects.requireNonNull;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.TieredTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One Lakestream server process (tiering on, see {@link TieredTables#startServer}) and one
 * local-mode Spark session with catalog {@code lake} on it, shared by every IT class of this module
 * so that Spark starts once per test run. A class gets it as a parameter of its {@code @BeforeAll}
 * method with {@code @ExtendWith(SharedSpark.Resolver.class)}; JUnit closes it after the last
 * class: Spark stops, then the server gets SIGTERM and must exit with 0.
 */
final class SharedSpark implements AutoCloseable {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration SERVER_STOP_TIMEOUT = Duration.ofSeconds(30);

  private final ServerProcess server;
  private final int rpcPort;
  private final SparkSession spark;

  private SharedSpark(ServerProcess server, int rpcPort, SparkSession spark) {
    this.server = requireNonNull(server, "server is null");
    this.rpcPort = rpcPort;
    this.spark = requireNonNull(spark, "spark is null");
  }

  private static SharedSpark start() throws IOException, InterruptedException {
    Path testDirectory = Path.of(System.getProperty("lakestream.test.dir", "target"));
    Path run = Files.createTempDirectory(Files.createDirectories(testDirectory), "spark-it-");
    int rpcPort = ServerProcess.freePort();
    ServerProcess server = TieredTables.startServer(run, rpcPort, SERVER_START_TIMEOUT);
    try {
      return new SharedSpark(
          server, rpcPort, LakestreamSpark.session("lake", server.baseUri(), run.resolve("spark")));
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  ServerProcess server() {
    return server;
  }

  /** The server's stream RPC port on 127.0.0.1. */
  int rpcPort() {
    return rpcPort;
  }

  SparkSession spark() {
    return spark;
  }

  @Override
  public void close() {
    try {
      spark.stop();
    } finally {
      int exitCode;
      try {
        exitCode = server.terminate(SERVER_STOP_TIMEOUT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while stopping the server", e);
      }
      if (exitCode != 0) {
        throw new IllegalStateException("The Lakestream server exited with " + exitCode);
      }
    }
  }

  /** Resolves a {@link SharedSpark} parameter, starting it on first use in the test run. */
  static final class Resolver implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == SharedSpark.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context
          .getRoot()
          .getStore(ExtensionContext.Namespace.create(SharedSpark.class))
          .getOrComputeIfAbsent(
              SharedSpark.class,
              key -> {
                try {
                  return start();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("Interrupted while starting", e);
                }
              },
              SharedSpark.class);
    }
  }
}
