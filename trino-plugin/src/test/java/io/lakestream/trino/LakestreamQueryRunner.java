package io.lakestream.trino;

import static io.trino.testing.TestingSession.testSessionBuilder;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.trino.Session;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
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

  /** The message with which Iceberg's REST catalog client refuses to rename a namespace. */
  static final String RENAME_SCHEMA_REFUSED =
      "renameNamespace is not supported for Iceberg REST catalog";

  /** The message with which Iceberg's REST catalog client refuses a materialized view. */
  static final String MATERIALIZED_VIEW_REFUSED =
      "createMaterializedView is not supported for Iceberg REST catalog";

  /** The connector's refusal of DELETE, UPDATE and MERGE on a log table, whose rows append only. */
  static final String LOG_TABLE_ROWS_APPEND_ONLY = "is a log table, whose rows are append-only";

  /** The connector's refusal of TRUNCATE: it would empty a streaming table's lake, not its log. */
  static final String TRUNCATE_REFUSED = "TRUNCATE would empty its lake files but not its log";

  /** The connector's refusal of a column type that streaming tables cannot hold. */
  static final String NESTED_TYPE_REFUSED =
      "which is not supported: streaming tables cannot hold arrays, maps or rows";

  /** The connector's refusal of CREATE OR REPLACE TABLE of a streaming table. */
  static final String REPLACE_REFUSED = "CREATE OR REPLACE of streaming table";

  /**
   * The connector's refusal of a column change other than ADD COLUMN on a streaming table, whose
   * log is read by column name.
   */
  static String columnChangeRefused(String change) {
    return "is a streaming table, whose log is read by column name: "
        + change
        + " is not supported (ADD COLUMN is)";
  }

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

  /**
   * What the connector does for the behaviours the test bases ask about, where that differs from
   * the bases' defaults; empty for the rest. The tables the bases create with {@code CREATE TABLE}
   * are Lakestream log tables (the default {@code kind}), written through the stream; their
   * metadata (comments, views, schemas) is the Iceberg REST catalog's, so the answers there are
   * those of Trino's Iceberg connector on a REST catalog.
   */
  static Optional<Boolean> hasBehavior(TestingConnectorBehavior behavior) {
    return switch (behavior) {
      // The Iceberg connector pushes no top-N into its scans; on a streaming table a limit caps
      // each split (lake and tail alike), never the whole read, so Trino keeps its Limit.
      case SUPPORTS_TOPN_PUSHDOWN, SUPPORTS_LIMIT_PUSHDOWN -> Optional.of(false);
      // Tables are created in Iceberg format version 2, which has no default values; a column
      // is added as NOT NULL by no Iceberg catalog; views are not refreshed by the Iceberg
      // connector.
      case SUPPORTS_DEFAULT_COLUMN_VALUE,
          SUPPORTS_SET_DEFAULT_COLUMN_VALUE,
          SUPPORTS_DROP_DEFAULT_COLUMN_VALUE,
          SUPPORTS_ADD_COLUMN_NOT_NULL_CONSTRAINT,
          SUPPORTS_REFRESH_VIEW ->
          Optional.of(false);
      // Iceberg's REST catalog client cannot rename namespaces or keep materialized views.
      case SUPPORTS_RENAME_SCHEMA,
          SUPPORTS_CREATE_MATERIALIZED_VIEW,
          SUPPORTS_RENAME_MATERIALIZED_VIEW,
          SUPPORTS_RENAME_MATERIALIZED_VIEW_ACROSS_SCHEMAS,
          SUPPORTS_COMMENT_ON_MATERIALIZED_VIEW_COLUMN ->
          Optional.of(false);
      case SUPPORTS_CREATE_VIEW, SUPPORTS_COMMENT_ON_VIEW, SUPPORTS_COMMENT_ON_VIEW_COLUMN ->
          Optional.of(true);
      // Streaming tables hold flat columns only.
      case SUPPORTS_ARRAY, SUPPORTS_MAP_TYPE, SUPPORTS_ROW_TYPE -> Optional.of(false);
      // A streaming table's log keeps each batch in the schema it was written with and is read by
      // column name: the connector allows ADD COLUMN only.
      case SUPPORTS_DROP_COLUMN, SUPPORTS_RENAME_COLUMN, SUPPORTS_SET_COLUMN_TYPE ->
          Optional.of(false);
      // Replacing a streaming table would leave its log behind: the connector refuses it.
      case SUPPORTS_CREATE_OR_REPLACE_TABLE -> Optional.of(false);
      // CREATE TABLE makes a log table unless it names another kind: its rows are append-only
      // (row changes work on primary-key tables, see LakestreamWritesIT), and truncating it would
      // empty the lake but not the log.
      case SUPPORTS_DELETE,
          SUPPORTS_ROW_LEVEL_DELETE,
          SUPPORTS_UPDATE,
          SUPPORTS_ROW_LEVEL_UPDATE,
          SUPPORTS_MERGE,
          SUPPORTS_TRUNCATE ->
          Optional.of(false);
      default -> Optional.empty();
    };
  }

  /**
   * The pattern of {@code SHOW CREATE TABLE} of a TPC-H table loaded here: its columns ({@code
   * columns}, each line indented by three spaces and ending in a comma but the last) and the lake
   * table's properties, Parquet files under the namespace's directory.
   */
  static String showCreateTablePattern(String table, String columns) {
    return "\\QCREATE TABLE "
        + SharedTrino.LAKESTREAM_CATALOG
        + "."
        + SCHEMA
        + "."
        + table
        + " (\n"
        + columns
        + ")\nWITH (\n   buckets = 2,\n\\E(?s).*\\Q   format = 'PARQUET',\n\\E.*"
        + "\\Q   kind = 'log',\n   location = '\\E.*/"
        + SCHEMA
        + "/"
        + table
        + "'\\Q,\n   tiering_interval = '1h'\n)\\E";
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
