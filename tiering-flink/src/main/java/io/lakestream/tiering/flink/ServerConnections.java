package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.auth.OAuthTokens;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * What one subtask of the tiering job holds open to the server: an Iceberg {@code RESTCatalog} on
 * its REST endpoint (the lake side: listing tables, loading and committing them, with a file IO
 * that reads and writes the warehouse's files) and, for rounds, a stream RPC {@link Connection}
 * (the log side). Not thread safe to close; the catalog and connection themselves are.
 */
final class ServerConnections implements AutoCloseable {
  private final RESTCatalog catalog;
  private final LakeCatalog lake;
  private final Connection connection;

  private ServerConnections(RESTCatalog catalog, LakeCatalog lake, Connection connection) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = connection;
  }

  /**
   * Opens the catalog and, when {@code withStreams}, the stream RPC connection.
   *
   * @throws RuntimeException naming the server when either cannot be opened
   */
  static ServerConnections open(TieringJobOptions options, boolean withStreams) {
    RESTCatalog catalog = new RESTCatalog();
    // The Iceberg client probes the properties with containsKey(null): a mutable map.
    Map<String, String> properties = new HashMap<>(options.catalogProperties());
    properties.put("uri", options.uri().toString());
    if (options.token() != null) {
      properties.put("token", options.token());
    }
    if (options.credential() != null) {
      properties.put("credential", options.credential());
    }
    if (options.warehouse() != null) {
      properties.put("warehouse", options.warehouse());
    }
    try {
      catalog.initialize("lakestream-tiering", properties);
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw new IllegalStateException(
          "Cannot open the Iceberg REST catalog of " + options + ": " + e.getMessage(), e);
    }
    LakeCatalog lake =
        new IcebergLakeCatalog(
            Map.of(
                options.warehouse() == null
                    ? IcebergLakeCatalog.DEFAULT_WAREHOUSE
                    : options.warehouse(),
                catalog));
    if (!withStreams) {
      return new ServerConnections(catalog, lake, null);
    }
    try {
      Connection connection =
          options.credential() != null
              ? Connection.openRenewing(
                  options.rpcHost(),
                  options.rpcPort(),
                  new OAuthTokens(options.uri(), options.credential(), Clock.systemUTC()))
              : Connection.open(options.rpcHost(), options.rpcPort(), options.token());
      return new ServerConnections(catalog, lake, connection);
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw new IllegalStateException(
          "Cannot open the stream RPC of " + options + ": " + e.getMessage(), e);
    }
  }

  LakeCatalog lake() {
    return lake;
  }

  /** The stream RPC connection; only when opened {@code withStreams}. */
  Connection connection() {
    if (connection == null) {
      throw new IllegalStateException("Opened without the stream RPC");
    }
    return connection;
  }

  @Override
  public void close() {
    try {
      if (connection != null) {
        connection.close();
      }
    } finally {
      closeQuietly(catalog);
    }
  }

  private static void closeQuietly(RESTCatalog catalog) {
    try {
      catalog.close();
    } catch (IOException | RuntimeException e) {
      // closing: nothing to do about it
    }
  }
}
