package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.lake.auth.OAuthTokens;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.lake.iceberg.MetadataOnlyFileIO;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.scan.UnionScanPlanner;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.TableType;
import io.trino.spi.connector.SchemaTableName;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * What the connector needs of a Lakestream server besides the Iceberg catalog the embedded Iceberg
 * connector talks to: the stream RPC ({@link Connection}, opened on first use so that a catalog can
 * be created while the server is down) and a REST catalog client of its own to plan union reads
 * ({@link UnionScanPlanner}). One per catalog; thread safe.
 */
final class StreamAccess implements AutoCloseable {
  /** How many snapshots' tiered offsets are kept for planning. */
  static final int TIERED_OFFSETS_KEPT = 4096;

  private final LakestreamConfig config;
  private final Map<String, String> catalogProperties;
  private final ExecutorService planning;
  private volatile Connection connection;
  private RESTCatalog catalog; // guarded by this
  private IcebergLakeCatalog lake; // guarded by this
  private UnionScanPlanner planner; // guarded by this
  // The tiered offsets in the summaries of the snapshots queries were planned on, least recently
  // used first.
  private final Map<PinnedSnapshot, TieredOffsets> tieredOffsets =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<PinnedSnapshot, TieredOffsets> eldest) {
          return size() > TIERED_OFFSETS_KEPT;
        }
      };

  StreamAccess(LakestreamConfig config) {
    this.config = requireNonNull(config, "config is null");
    AtomicInteger threads = new AtomicInteger();
    ClassLoader plugin = StreamAccess.class.getClassLoader();
    this.planning =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "lakestream-planning-" + threads.incrementAndGet());
              thread.setDaemon(true);
              thread.setContextClassLoader(plugin);
              return thread;
            });
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

  /**
   * Plans a union read whose lake part is the given snapshot (empty: an empty lake table). The
   * tiered offsets of a snapshot that carries them in its own summary are kept ({@link
   * #TIERED_OFFSETS_KEPT} snapshots): a snapshot's summary never changes, so planning the next
   * query on the same snapshot (a table not tiered since) needs no catalog round trip.
   */
  UnionScanPlan plan(TablePath path, OptionalLong snapshotId) {
    TieredOffsets known = snapshotId.isEmpty() ? null : offsetsOf(path, snapshotId.getAsLong());
    try {
      if (known != null) {
        UnionScanPlanner current;
        synchronized (this) {
          initializeCatalog();
          current = planner;
        }
        return current.plan(path, snapshotId, known);
      }
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

  /** Like {@link #plan}, in the background (on the connector's planning threads). */
  CompletableFuture<UnionScanPlan> planAsync(TablePath path, OptionalLong snapshotId) {
    return CompletableFuture.supplyAsync(() -> plan(path, snapshotId), planning);
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

  private UnionScanPlan planOnce(TablePath path, OptionalLong snapshotId) {
    UnionScanPlanner current;
    IcebergLakeCatalog tables;
    synchronized (this) {
      initializeCatalog();
      current = planner;
      tables = lake;
    }
    UnionScanPlanner.Planned planned = current.plan(path, tables.loadTable(path), snapshotId);
    if (snapshotId.isPresent()) {
      Snapshot snapshot = planned.lakeTable().snapshot(snapshotId.getAsLong());
      if (snapshot != null && TieredOffsets.isTiered(snapshot)) {
        keepOffsets(path, snapshotId.getAsLong(), TieredOffsets.of(snapshot));
      }
    }
    return planned.plan();
  }

  private TieredOffsets offsetsOf(TablePath path, long snapshotId) {
    synchronized (tieredOffsets) {
      return tieredOffsets.get(new PinnedSnapshot(path, snapshotId));
    }
  }

  private void keepOffsets(TablePath path, long snapshotId, TieredOffsets offsets) {
    synchronized (tieredOffsets) {
      tieredOffsets.put(new PinnedSnapshot(path, snapshotId), offsets);
    }
  }

  /** A snapshot of a table, by the path the query named it by. */
  private record PinnedSnapshot(TablePath path, long snapshotId) {}

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
    planning.shutdownNow();
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
