package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.scan.UnionScanPlanner;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.TableType;
import io.trino.spi.connector.SchemaTableName;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * What the connector needs of a Lakestream server besides the Iceberg catalog the embedded Iceberg
 * connector talks to: the stream RPC ({@link Connection}, opened on first use so that a catalog can
 * be created while the server is down) and a REST catalog client of its own to plan union reads
 * ({@link UnionScanPlanner}). One per catalog; thread safe.
 */
final class StreamAccess implements AutoCloseable {
  private final LakestreamConfig config;
  private final Map<String, String> catalogProperties;
  private volatile Connection connection;
  private RESTCatalog catalog; // guarded by this
  private IcebergLakeCatalog lake; // guarded by this
  private UnionScanPlanner planner; // guarded by this

  StreamAccess(LakestreamConfig config) {
    this.config = requireNonNull(config, "config is null");
    Map<String, String> properties = new HashMap<>();
    properties.put("uri", config.uri().toString());
    properties.put("io-impl", MetadataOnlyFileIO.class.getName());
    config.credential().ifPresent(value -> properties.put("credential", value));
    config.token().ifPresent(value -> properties.put("token", value));
    config.warehouse().ifPresent(value -> properties.put("warehouse", value));
    this.catalogProperties = Map.copyOf(properties);
  }

  /** Whether a table handle of the Iceberg connector is a Lakestream streaming table's. */
  static boolean isStreamTable(IcebergTableHandle handle) {
    return handle.getTableType() == TableType.DATA
        && kind(handle.getStorageProperties()).isPresent();
  }

  /** The streaming table kind named by a table's properties, if it is a streaming table. */
  static Optional<TableKind> kind(Map<String, String> properties) {
    String kind = properties.get(LakestreamProperties.KIND);
    if (TableKind.LOG.is(kind)) {
      return Optional.of(TableKind.LOG);
    }
    if (TableKind.PRIMARY_KEY.is(kind)) {
      return Optional.of(TableKind.PRIMARY_KEY);
    }
    return Optional.empty();
  }

  /** The path the stream RPC knows a table by. */
  TablePath path(SchemaTableName name) {
    return new TablePath(
        config.warehouse().orElse(null), List.of(name.getSchemaName()), name.getTableName());
  }

  /** The stream RPC, connected (and authenticated) on first use. */
  Connection connection() {
    Connection open = connection;
    if (open == null) {
      synchronized (this) {
        open = connection;
        if (open == null) {
          try {
            open =
                config.credential().isPresent()
                    ? Connection.openRenewing(
                        config.rpcHost(),
                        config.rpcPort(),
                        new OAuthTokens(config.uri(), config.credential().get(), Clock.systemUTC()))
                    : Connection.open(
                        config.rpcHost(), config.rpcPort(), config.token().orElse(null));
          } catch (RuntimeException e) {
            throw StreamErrors.toTrino(
                "Cannot connect to the Lakestream stream RPC at "
                    + config.rpcHost()
                    + ":"
                    + config.rpcPort(),
                e);
          }
          connection = open;
        }
      }
    }
    return open;
  }

  /** Plans a union read whose lake part is the given snapshot (empty: an empty lake table). */
  UnionScanPlanner.Planned plan(TablePath path, OptionalLong snapshotId) {
    try {
      try {
        return planOnce(path, snapshotId);
      } catch (NotAuthorizedException e) {
        if (config.credential().isEmpty()) {
          throw e;
        }
        // The REST client renews its token by exchanging the current one, which fails for good
        // once that one has expired (a renewal missed while the server was down or the JVM
        // stalled); a new client exchanges the credential afresh.
        closeCatalog();
        return planOnce(path, snapshotId);
      }
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot plan the union read of " + path, e);
    }
  }

  /**
   * The lake table of a streaming table as the catalog has it now (metadata only: its files are not
   * readable through it), for what its metadata says: tiered offsets, snapshot summaries.
   */
  org.apache.iceberg.Table loadLakeTable(TablePath path) {
    try {
      IcebergLakeCatalog tables;
      synchronized (this) {
        initializeCatalog();
        tables = lake;
      }
      return tables.loadTable(path);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot load the lake table of " + path, e);
    }
  }

  /** The streaming table of the stream RPC. */
  io.lakestream.client.Table stream(TablePath path) {
    try {
      return connection().table(path);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot open the stream of " + path, e);
    }
  }

  private void initializeCatalog() {
    if (planner == null) {
      catalog = new RESTCatalog();
      catalog.initialize("lakestream", catalogProperties);
      lake = IcebergLakeCatalog.of(catalog);
      planner = new UnionScanPlanner(lake, connection());
    }
  }

  private UnionScanPlanner.Planned planOnce(TablePath path, OptionalLong snapshotId) {
    UnionScanPlanner current;
    IcebergLakeCatalog tables;
    synchronized (this) {
      initializeCatalog();
      current = planner;
      tables = lake;
    }
    return current.plan(path, tables.loadTable(path), snapshotId);
  }

  private synchronized void closeCatalog() {
    RESTCatalog closing = catalog;
    catalog = null;
    lake = null;
    planner = null;
    if (closing != null) {
      try {
        closing.close();
      } catch (IOException | RuntimeException e) {
        // A new catalog client replaces it either way.
      }
    }
  }

  /** The server's Iceberg REST endpoint. */
  java.net.URI catalogUri() {
    return config.uri();
  }

  Duration logReadTimeout() {
    return config.logReadTimeout();
  }

  @Override
  public void close() throws Exception {
    Connection open = connection;
    try {
      if (open != null) {
        open.close();
      }
    } finally {
      synchronized (this) {
        if (catalog != null) {
          catalog.close();
        }
      }
    }
  }
}
