package io.lakestream.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import io.lakestream.testing.TieredTables;
import io.lakestream.testing.TrinoCatalogContract;
import io.trino.Session;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One Lakestream server process (tiering on, see {@link TieredTables#startServer}), one in-JVM
 * Trino query runner whose catalog {@code lake} is Trino's Iceberg connector ({@code
 * iceberg.catalog.type=rest}) on that server, and one Spark SQL session in a separate JVM ({@link
 * SparkSqlProcess}) on the same server, shared by every IT class of this module so that each starts
 * once per test run. Table data lives on the local file system under the server's {@code file:}
 * warehouse. A class gets it as a parameter of its {@code @BeforeAll} method with
 * {@code @ExtendWith(SharedTrino.Resolver.class)}; JUnit closes it after the last class, and the
 * server must then exit with 0 on SIGTERM.
 *
 * <p>The {@code lakestream} catalog's plugin is the packaged plugin directory, loaded by Trino's
 * own plugin loading ({@link PackagedPlugin}), not the plugin classes on this class path.
 */
final class SharedTrino implements AutoCloseable {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration SERVER_STOP_TIMEOUT = Duration.ofSeconds(30);

  /** The catalog of this plugin's connector; {@code lake} is Trino's Iceberg connector. */
  static final String LAKESTREAM_CATALOG = "lakestream";

  /**
   * Trino's TPC-H connector with standard column names and decimal money columns, the reference for
   * TPC-H data loaded through the stream ({@link TpchStreamLoader.Layout#STANDARD_DECIMAL}).
   */
  static final String TPCH_CATALOG = "tpch";

  private final ServerProcess server;
  private final int rpcPort;
  private final QueryRunner trino;
  private final SparkSqlProcess spark;

  private SharedTrino(ServerProcess server, int rpcPort, QueryRunner trino, SparkSqlProcess spark) {
    this.server = requireNonNull(server, "server is null");
    this.rpcPort = rpcPort;
    this.trino = requireNonNull(trino, "trino is null");
    this.spark = requireNonNull(spark, "spark is null");
  }

  private static SharedTrino start() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("trino-it-");
    int rpcPort = ServerProcess.freePort();
    ServerProcess server = TieredTables.startServer(run, rpcPort, SERVER_START_TIMEOUT);
    SparkSqlProcess spark = null;
    QueryRunner trino = null;
    try {
      // Spark creates its session while Trino starts.
      spark =
          SparkSqlProcess.start(
              Path.of(requiredProperty("lakestream.spark.lib")),
              run.resolve("spark"),
              server.baseUri());
      Session session = testSessionBuilder().setCatalog("lake").setSchema("default").build();
      DistributedQueryRunner runner =
          DistributedQueryRunner.builder(session)
              .setWorkerCount(0)
              // A testing server's base data directory is its plugin.dir.
              .setBaseDataDir(
                  Optional.of(PackagedPlugin.pluginsDirectory(run.resolve("trino-plugins"))))
              .build();
      trino = runner;
      trino.installPlugin(new IcebergPlugin());
      // Trino 483 names its local file system "local".
      trino.createCatalog(
          "lake",
          "iceberg",
          TrinoCatalogContract.icebergCatalogProperties(server.baseUri(), "fs.local.enabled"));
      // The packaged plugin, through Trino's plugin loading, as a Trino server installs it.
      PackagedPlugin.loadPlugins(runner);
      trino.createCatalog(
          LAKESTREAM_CATALOG,
          LakestreamConnectorFactory.NAME,
          lakestreamCatalogProperties(server.baseUri(), rpcPort));
      trino.installPlugin(new TpchPlugin());
      trino.createCatalog(
          TPCH_CATALOG, "tpch", TpchStreamLoader.Layout.STANDARD_DECIMAL.tpchCatalogProperties());
      return new SharedTrino(server, rpcPort, trino, spark);
    } catch (Exception e) {
      if (trino != null) {
        trino.close();
      }
      if (spark != null) {
        spark.close();
      }
      server.close();
      throw e;
    }
  }

  /** A {@code lakestream} catalog's properties for a server on this machine. */
  static Map<String, String> lakestreamCatalogProperties(String restUri, int rpcPort) {
    return Map.of(
        LakestreamConfig.URI_KEY,
        restUri,
        LakestreamConfig.RPC_ADDRESS,
        "127.0.0.1:" + rpcPort,
        "fs.local.enabled",
        "true",
        "local.location",
        "/");
  }

  ServerProcess server() {
    return server;
  }

  /** The server's stream RPC port on 127.0.0.1. */
  int rpcPort() {
    return rpcPort;
  }

  QueryRunner trino() {
    return trino;
  }

  /** Runs a statement in the query runner and returns its rows, values as Trino's. */
  List<List<Object>> rows(String statement) {
    return trino.execute(statement).getMaterializedRows().stream()
        .map(MaterializedRow::getFields)
        .toList();
  }

  SparkSqlProcess spark() {
    return spark;
  }

  @Override
  public void close() throws Exception {
    try {
      spark.close();
    } finally {
      try {
        trino.close();
      } finally {
        SharedPerTestRun.terminateCleanly(server, SERVER_STOP_TIMEOUT);
      }
    }
  }

  private static String requiredProperty(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException("System property " + name + " is not set by the build");
    }
    return value;
  }

  /** Resolves a {@link SharedTrino} parameter, starting it on first use in the test run. */
  static final class Resolver extends SharedPerTestRun<SharedTrino> {
    Resolver() {
      super(SharedTrino.class, "the shared server and Trino", SharedTrino::start);
    }
  }
}
