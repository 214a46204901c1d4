package io.lakestream.sparktests;

import static java.util.Objects.requireNonNull;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import io.lakestream.testing.TieredTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

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
    Path run = SharedPerTestRun.newRunDirectory("spark-it-");
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

  /** Runs a statement in the Spark session and returns its rows, values as Spark's. */
  List<List<Object>> rows(String statement) {
    List<List<Object>> rows = new ArrayList<>();
    for (Row row : spark.sql(statement).collectAsList()) {
      List<Object> values = new ArrayList<>(row.length());
      for (int i = 0; i < row.length(); i++) {
        values.add(row.get(i));
      }
      rows.add(values);
    }
    return rows;
  }

  @Override
  public void close() {
    try {
      spark.stop();
    } finally {
      SharedPerTestRun.terminateCleanly(server, SERVER_STOP_TIMEOUT);
    }
  }

  /** Resolves a {@link SharedSpark} parameter, starting it on first use in the test run. */
  static final class Resolver extends SharedPerTestRun<SharedSpark> {
    Resolver() {
      super(SharedSpark.class, "the shared server and Spark", SharedSpark::start);
    }
  }
}
