package io.lakestream.testing;

import io.lakestream.catalog.LocalFileIO;
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
    this.catalog = new RESTCatalog();
    catalog.initialize(
        "lakestream",
        new HashMap<>(
            Map.of(
                "uri",
                "http://127.0.0.1:" + server.httpPort(),
                "io-impl",
                LocalFileIO.class.getName())));
    this.connection = Connection.open("127.0.0.1", server.rpcPort(), null);
  }

  /** Starts a server whose data lives under {@code data}. */
  public static EmbeddedLakestream start(Path data) {
    return start(data, Map.of());
  }

  /** Starts a server whose data lives under {@code data}, with some settings of its own. */
  public static EmbeddedLakestream start(Path data, Map<String, String> settings) {
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
    return new EmbeddedLakestream(
        LakestreamServer.start(
            ServerConfig.from(
                Configuration.builder(ServerConfig.allKeys()).layer("test", layer).build())));
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
