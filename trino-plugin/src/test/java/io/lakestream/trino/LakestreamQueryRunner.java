package io.lakestream.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.trino.Session;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * The query runner of Trino's connector test bases ({@code BaseConnectorSmokeTest}, {@code
 * BaseConnectorTest}) on the shared Lakestream server: three nodes, catalog {@code lakestream}
 * (this connector, the session's catalog) with schema {@value #SCHEMA} holding Trino's eight TPC-H
 * {@code tiny} tables as Lakestream log tables written through the stream (90% tiered, the rest in
 * the log, see {@link TpchStreamLoader}), and catalog {@code tpch} (Trino's tpch connector with its
 * defaults, which the bases compare with).
 */
final class LakestreamQueryRunner {
  /** The session's schema, a namespace of the server. */
  static final String SCHEMA = "tpch";

  private static final double TINY_SCALE = 0.01;
  private static final double TIERED_SHARE = 0.9;
  private static final Duration TIERING_TIMEOUT = Duration.ofMinutes(2);
  private static final Set<String> LOADED_SERVERS = new HashSet<>();

  private LakestreamQueryRunner() {}

  static QueryRunner create(SharedTrino shared) throws Exception {
    loadTinyTables(shared);
    Session session =
        testSessionBuilder().setCatalog(SharedTrino.LAKESTREAM_CATALOG).setSchema(SCHEMA).build();
    QueryRunner runner = DistributedQueryRunner.builder(session).setWorkerCount(2).build();
    try {
      runner.installPlugin(new TpchPlugin());
      runner.createCatalog("tpch", "tpch");
      runner.installPlugin(new LakestreamPlugin());
      runner.createCatalog(
          SharedTrino.LAKESTREAM_CATALOG,
          LakestreamConnectorFactory.NAME,
          SharedTrino.lakestreamCatalogProperties(shared.server().baseUri(), shared.rpcPort()));
      return runner;
    } catch (RuntimeException e) {
      runner.close();
      throw e;
    }
  }

  /** Loads the tiny tables once per server, for every test class that runs on it. */
  private static synchronized void loadTinyTables(SharedTrino shared) {
    String server = shared.server().baseUri();
    if (LOADED_SERVERS.contains(server)) {
      return;
    }
    try (Connection connection = Connection.open("127.0.0.1", shared.rpcPort(), null)) {
      if (!connection.admin().tableExists(TablePath.of(SCHEMA + ".region"))) {
        long start = System.nanoTime();
        new TpchStreamLoader(server, connection)
            .load(
                SCHEMA,
                TINY_SCALE,
                TpchStreamLoader.Layout.SIMPLIFIED_DOUBLE,
                TIERED_SHARE,
                TIERING_TIMEOUT);
        System.out.printf(
            "Loaded TPC-H tiny through the stream in %.1f s%n", (System.nanoTime() - start) / 1e9);
      }
    }
    LOADED_SERVERS.add(server);
  }
}
