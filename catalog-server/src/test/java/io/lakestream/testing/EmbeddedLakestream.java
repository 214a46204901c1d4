package io.lakestream.testing;

import io.lakestream.client.Connection;
import io.lakestream.config.Configuration;
import io.lakestream.server.LakestreamServer;
import io.lakestream.server.ServerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A server in the test's JVM on free ports with embedded defaults, an Iceberg {@code RESTCatalog}
 * on it and a stream RPC connection: what most stream tests start from.
 */
public final class EmbeddedLakestream implements AutoCloseable {
  private final LakestreamServer server;
  private final RESTCatalog catalog;
  private final Connection connection;

  private EmbeddedLakestream(LakestreamServer server) {
    this.server = server;
    this.catalog = RestCatalogs.open("http://127.0.0.1:" + server.httpPort());
    this.connection = Connection.open("127.0.0.1", server.rpcPort(), null);
  }

  /** Starts a server whose data lives under {@code data}. */
  public static EmbeddedLakestream start(Path data) {
    return start(data, Map.of());
  }

  /** Starts a server whose data lives under {@code data}, with some settings of its own. */
  public static EmbeddedLakestream start(Path data, Map<String, String> settings) {
    return new EmbeddedLakestream(startServer(data, settings));
  }

  /**
   * Starts a bare server on free ports whose data lives under {@code data}, with some settings of
   * its own (which win over the defaults here).
   */
  public static LakestreamServer startServer(Path data, Map<String, String> settings) {
    Map<String, String> layer =
        new HashMap<>(
            Map.of(
                "data-dir",
                data.toString(),
                "http.port",
                "0",
                "rpc.port",
                "0",
                "flight.port",
                "0"));
    layer.putAll(settings);
    return LakestreamServer.start(
        ServerConfig.from(
            Configuration.builder(ServerConfig.allKeys()).layer("test", layer).build()));
  }

  public LakestreamServer server() {
    return server;
  }

  public RESTCatalog catalog() {
    return catalog;
  }

  public Connection connection() {
    return connection;
  }

  @Override
  public void close() throws Exception {
    connection.close();
    catalog.close();
    server.close();
  }
}
