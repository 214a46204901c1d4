package io.lakestream.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.auth.AuthMode;
import io.lakestream.auth.Authenticator;
import io.lakestream.auth.Authorizer;
import io.lakestream.auth.TokenService;
import io.lakestream.catalog.JdbcIdempotencyStore;
import io.lakestream.catalog.JdbcMetadataStore;
import io.lakestream.catalog.JdbcTieredOffsetsStore;
import io.lakestream.catalog.MetadataCache;
import io.lakestream.catalog.WarehouseCatalog;
import io.lakestream.catalog.Warehouses;
import io.lakestream.client.Connection;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.server.FlightSqlServer;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.metrics.ServerMetrics;
import io.lakestream.rest.AuthorizingHandler;
import io.lakestream.rest.CatalogHttpServer;
import io.lakestream.rest.IcebergRestHandlers;
import io.lakestream.rest.IdempotentHandler;
import io.lakestream.rest.OAuthTokenEndpoint;
import io.lakestream.rest.RestHandler;
import io.lakestream.rest.RestRouter;
import io.lakestream.rest.TieringStatusHandler;
import io.lakestream.storage.WarehouseStorage;
import io.lakestream.store.ArrowBatchProjector;
import io.lakestream.store.RetentionFloor;
import io.lakestream.store.StreamService;
import io.lakestream.store.kv.KvManager;
import io.lakestream.store.log.LogManager;
import io.lakestream.store.log.TableRetention;
import io.lakestream.store.rpc.RpcServer;
import io.lakestream.stream.CatalogStreamAccess;
import io.lakestream.stream.CatalogTableResolver;
import io.lakestream.stream.StreamAdmin;
import io.lakestream.stream.StreamTableProperties;
import io.lakestream.tiering.LakeTierers;
import io.lakestream.tiering.TieringService;
import io.lakestream.tiering.TieringStatusReader;
import io.lakestream.ui.Console;
import io.lakestream.ui.ConsoleApi;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Lakestream server process: the catalog database, the warehouses and the HTTP server, started
 * in dependency order and closed in reverse. {@link #close()} is the graceful shutdown: the server
 * stops reporting ready, stops accepting, lets in-flight requests finish, then closes its stores.
 */
public final class LakestreamServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LakestreamServer.class);

  private final ServerConfig config;
  private final AtomicBoolean ready = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ScheduledExecutorService housekeeping =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-housekeeping");
            thread.setDaemon(true);
            return thread;
          });
  private JdbcMetadataStore store;
  private LogManager logs;
  private KvManager kvs;
  private volatile CatalogTableResolver resolver;
  private RpcServer rpc;
  private volatile StreamService streamService;
  private CatalogHttpServer http;
  private Connection tieringConnection;
  private volatile TieringService tiering;
  private volatile TieringStatusReader tieringStatus;
  private volatile JdbcTieredOffsetsStore tieredOffsets;
  private Connection flightConnection;
  private Connection consoleConnection;
  private volatile ConsoleApi consoleApi;
  private volatile FlightSqlServer flight;

  private LakestreamServer(ServerConfig config) {
    this.config = requireNonNull(config, "config is null");
  }

  /**
   * Starts a server and returns once it is ready.
   *
   * @throws StartupException with a one-line message when something stands in the way
   */
  public static LakestreamServer start(ServerConfig config) {
    LakestreamServer server = new LakestreamServer(config);
    try {
      server.startComponents();
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private void startComponents() {
    prepareDataDirectory(config.dataDirectory());
    if (RestRouter.ROOTS.contains(config.defaultWarehouse())) {
      throw new StartupException(
          "Invalid catalog.default-warehouse '"
              + config.defaultWarehouse()
              + "': the names "
              + RestRouter.ROOTS
              + " are reserved");
    }
    try {
      store =
          JdbcMetadataStore.open(
              config.databaseUrl(),
              config.databaseUser(),
              config.databasePassword(),
              config.databasePoolSize());
    } catch (RuntimeException e) {
      throw new StartupException(e.getMessage(), e);
    }
    MetadataCache cache = new MetadataCache(config.metadataCacheEntries());
    Map<String, String> locations = new LinkedHashMap<>();
    locations.put(config.defaultWarehouse(), config.warehouseLocation());
    for (Map.Entry<String, String> extra : config.storage().warehouses().entrySet()) {
      if (RestRouter.ROOTS.contains(extra.getKey())
          || extra.getKey().equals(config.defaultWarehouse())) {
        throw new StartupException(
            "Invalid warehouse name '"
                + extra.getKey()
                + "' in catalog.warehouses: it is reserved or the default warehouse");
      }
      locations.put(extra.getKey(), extra.getValue());
    }
    Map<String, WarehouseCatalog> catalogs = new LinkedHashMap<>();
    Map<String, WarehouseStorage> storages = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : locations.entrySet()) {
      String location = store.ensureWarehouse(entry.getKey(), entry.getValue());
      if (!location.equals(entry.getValue())) {
        LOG.warn(
            "Warehouse {} keeps its recorded location {} (configured: {})",
            entry.getKey(),
            location,
            entry.getValue());
      }
      WarehouseStorage storage;
      try {
        storage = WarehouseStorage.open(location, config.storage());
      } catch (RuntimeException e) {
        throw new StartupException(
            "Cannot open storage of warehouse "
                + entry.getKey()
                + " at "
                + location
                + ": "
                + e.getMessage(),
            e);
      }
      storages.put(entry.getKey(), storage);
      catalogs.put(
          entry.getKey(),
          new WarehouseCatalog(
              entry.getKey(),
              location,
              store,
              storage.io(),
              cache,
              storage.clientConfig(),
              StreamTableProperties::validateCommit,
              config.storage().allowedLocations(),
              config.confineTableFiles()));
    }
    Warehouses warehouses = new Warehouses(catalogs, config.defaultWarehouse());
    try {
      logs =
          new LogManager(
              config.dataDirectory().resolve("streams"), config.stream().log(), Clock.systemUTC());
      kvs =
          new KvManager(
              config.dataDirectory().resolve("kv"), config.stream().kv(), Clock.systemUTC());
    } catch (IOException e) {
      throw new StartupException(
          "Cannot open the stream store under " + config.dataDirectory() + ": " + e.getMessage(),
          e);
    }
    logs.retentionFloor(new RetentionFloor(kvs, this::tieredOffset));
    logs.retentionTime(this::logRetention);
    logs.onPartitionExpired(
        (tableId, partition) -> {
          try {
            kvs.dropPartition(tableId, partition);
          } catch (IOException e) {
            LOG.warn(
                "Cannot delete the state of expired partition {} of {}", partition, tableId, e);
          }
        });
    catalogs.values().forEach(catalog -> catalog.onTableDropped(this::dropStream));
    catalogs.values().forEach(catalog -> catalog.onTableCommitted(this::streamCommitted));
    housekeeping.scheduleWithFixedDelay(this::enforceLogRetention, 1, 1, TimeUnit.MINUTES);
    housekeeping.scheduleWithFixedDelay(this::checkpointState, 10, 10, TimeUnit.SECONDS);
    ObjectMapper mapper = CatalogHttpServer.icebergMapper();
    JdbcIdempotencyStore idempotency = new JdbcIdempotencyStore(store);
    idempotency.purgeExpired(System.currentTimeMillis());
    housekeeping.scheduleWithFixedDelay(
        () -> purgeIdempotencyKeys(idempotency), 10, 10, TimeUnit.MINUTES);
    TokenService tokens = new TokenService(config.auth(), Clock.systemUTC());
    Authorizer authorizer =
        new Authorizer(config.auth().grants(), config.auth().metricsPrincipals());
    RestHandler handler =
        new AuthorizingHandler(
            new IdempotentHandler(
                new TieringStatusHandler(
                    new IcebergRestHandlers(
                        warehouses, storages, mapper, config.idempotencyKeyLifetime()),
                    warehouses,
                    () -> Optional.ofNullable(tieringStatus),
                    tieringOffReason()),
                idempotency,
                mapper,
                config.idempotencyKeyLifetime(),
                Clock.systemUTC()),
            authorizer,
            mapper,
            config.defaultWarehouse());
    Authenticator authenticator =
        config.auth().mode() == AuthMode.OAUTH2 ? tokens : Authenticator.none();
    if (config.auth().mode() == AuthMode.NONE && !isLoopback(config.bindAddress())) {
      LOG.warn(
          "Authentication is off (auth.mode=none) and the server listens on {}: anyone who can"
              + " reach it has full access",
          config.bindAddress());
    }
    ServerMetrics metrics = new ServerMetrics();
    metrics.registerStreamStore(logs, kvs, () -> resolver, config.dataDirectory());
    metrics.registerTiering(() -> Optional.ofNullable(tieringStatus), config.defaultWarehouse());
    metrics.registerFlightSql(
        () -> flight == null ? 0 : flight.runningQueries(),
        () -> flight == null ? 0 : flight.computingQueries());
    metrics.registerNativeMemory(
        Map.of(
            "stream",
            () -> streamService == null ? -1 : streamService.arrowAllocatedBytes(),
            "flight_sql",
            () -> flight == null ? -1 : flight.arrowAllocatedBytes(),
            "console",
            () -> consoleApi == null ? -1 : consoleApi.arrowAllocatedBytes()));
    http =
        new CatalogHttpServer(
            handler,
            authenticator,
            authorizer,
            new OAuthTokenEndpoint(tokens),
            mapper,
            metrics,
            config.httpLimits(),
            config.shutdownTimeout(),
            ready::get);
    requirePortFree(config.bindAddress(), config.httpPort(), "http.port");
    try {
      http.start(config.bindAddress(), config.httpPort());
    } catch (IllegalStateException e) { // the bind failure is its cause
      throw new StartupException(
          "Cannot listen on "
              + config.bindAddress()
              + ":"
              + config.httpPort()
              + " (http.port): "
              + (hasCause(e, BindException.class)
                  ? "address already in use or not available"
                  : e.getMessage()),
          e);
    }
    requirePortFree(config.bindAddress(), config.rpcPort(), "rpc.port");
    resolver = new CatalogTableResolver(warehouses);
    CatalogStreamAccess streamAccess =
        new CatalogStreamAccess(
            tokens,
            authorizer,
            config.auth().mode() == AuthMode.OAUTH2,
            warehouses.defaultWarehouse());
    streamService =
        new StreamService(
            logs,
            kvs,
            resolver,
            streamAccess,
            new ArrowBatchProjector(),
            new StreamAdmin(warehouses, streamAccess));
    rpc =
        new RpcServer(
            streamService,
            config.stream().maxRequestBytes(),
            config.stream().maxInFlightBytes(),
            config.stream().requestTimeout(),
            config.stream().maxConnections(),
            config.stream().maxConnectionsPerAddress(),
            config.stream().maxBufferedRequestBytes());
    try {
      rpc.start(config.bindAddress(), config.rpcPort());
    } catch (Exception e) { // Netty rethrows bind failures unchecked
      throw new StartupException(
          "Cannot listen on "
              + config.bindAddress()
              + ":"
              + config.rpcPort()
              + " (rpc.port): "
              + e.getMessage(),
          e);
    }
    startTiering(catalogs, tokens);
    startFlightSql(catalogs, tokens, authorizer);
    startConsole(warehouses, tokens, authorizer, authenticator);
    ready.set(true);
    LOG.info(
        "Lakestream ready: Iceberg REST catalog on http://{}:{}/v1, data in {}",
        config.bindAddress(),
        http.port(),
        config.dataDirectory());
  }

  /**
   * Starts the embedded tiering service over the server's own catalogs (in process) and a stream
   * RPC connection to itself.
   */
  private void startTiering(Map<String, WarehouseCatalog> catalogs, TokenService tokens) {
    if (!config.tiering().enabled()) {
      LOG.info("Tiering is off (tiering.enabled=false)");
      return;
    }
    Map<String, WarehouseCatalog> byWarehouse = new LinkedHashMap<>();
    catalogs.forEach(
        (name, catalog) ->
            byWarehouse.put(
                name.equals(config.defaultWarehouse())
                    ? IcebergLakeCatalog.DEFAULT_WAREHOUSE
                    : name,
                catalog));
    IcebergLakeCatalog lake = new IcebergLakeCatalog(byWarehouse);
    // The catalog's own copy of every table's tiered offsets, which no engine's maintenance of the
    // tables can remove.
    tieredOffsets = new JdbcTieredOffsetsStore(store);
    String host =
        config.bindAddress().equals("0.0.0.0") || config.bindAddress().equals("::")
            ? "127.0.0.1"
            : config.bindAddress();
    // With authentication on, the tierer reads streams with internal tokens of this server, asked
    // for afresh at every (re)connect so that expiry never locks it out.
    TokenService internalTokens = config.auth().mode() == AuthMode.OAUTH2 ? tokens : null;
    tieringConnection =
        Connection.openRenewing(
            host,
            rpc.port(),
            () -> internalTokens == null ? null : internalTokens.issueInternal("tiering"));
    tiering =
        new TieringService(
            lake,
            LakeTierers.standard(
                lake,
                tieringConnection,
                TieringHook.NONE,
                config.tiering().readTimeout(),
                config.tiering().maxRowsPerRound(),
                config.tiering().dataFileWriter(),
                tieredOffsets),
            config.tiering(),
            Clock.systemUTC());
    tieringStatus =
        new TieringStatusReader(lake, tieringConnection, tiering, Clock.systemUTC(), tieredOffsets);
    tiering.start();
  }

  /** Why this server does not run tiering, or null when it does. */
  private String tieringOffReason() {
    if (!config.tiering().enabled()) {
      return "Tiering is off on this server (tiering.enabled=false)";
    }
    return null;
  }

  /**
   * Starts the Arrow Flight SQL endpoint over the server's own catalogs and a stream RPC connection
   * to itself (with internal tokens when authentication is on; callers' grants are checked by the
   * endpoint).
   */
  private void startFlightSql(
      Map<String, WarehouseCatalog> catalogs, TokenService tokens, Authorizer authorizer) {
    if (!config.flightEnabled()) {
      LOG.info("Arrow Flight SQL is off (flight.enabled=false)");
      return;
    }
    requirePortFree(config.bindAddress(), config.flightPort(), "flight.port");
    boolean oauth2 = config.auth().mode() == AuthMode.OAUTH2;
    flightConnection =
        Connection.openRenewing(
            loopbackHost(), rpc.port(), () -> oauth2 ? tokens.issueInternal("flight-sql") : null);
    try {
      flight =
          FlightSqlServer.start(
              new FlightSqlServer.Options(
                  config.bindAddress(),
                  config.flightPort(),
                  config.tiering().readTimeout(),
                  config.flight(),
                  config.dataDirectory().resolve("flight-sql")),
              new LakestreamTables(catalogs, config.defaultWarehouse()),
              flightConnection,
              oauth2 ? new CatalogFlightSqlAccess(tokens, authorizer) : FlightSqlAccess.none());
    } catch (IOException | RuntimeException e) {
      throw new StartupException(
          "Cannot listen on "
              + config.bindAddress()
              + ":"
              + config.flightPort()
              + " (flight.port): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The web console at /ui: its stream reads go through an internal connection, after its checks.
   */
  private void startConsole(
      Warehouses warehouses,
      TokenService tokens,
      Authorizer authorizer,
      Authenticator authenticator) {
    boolean oauth2 = config.auth().mode() == AuthMode.OAUTH2;
    consoleConnection =
        Connection.openRenewing(
            loopbackHost(), rpc.port(), () -> oauth2 ? tokens.issueInternal("console") : null);
    consoleApi =
        new ConsoleApi(
            warehouses, authorizer, () -> consoleConnection, loopbackHost(), this::flightPort);
    http.serveConsole(new Console(authenticator, () -> Optional.ofNullable(consoleApi)));
  }

  private String loopbackHost() {
    return config.bindAddress().equals("0.0.0.0") || config.bindAddress().equals("::")
        ? "127.0.0.1"
        : config.bindAddress();
  }

  /** The port of Arrow Flight SQL; fails when it is off. */
  public int flightPort() {
    if (flight == null) {
      throw new IllegalStateException("Arrow Flight SQL is off (flight.enabled=false)");
    }
    return flight.port();
  }

  /** The catalog's record of tiered offsets, while tiering runs. */
  public Optional<TieredOffsetsStore> tieredOffsets() {
    return Optional.ofNullable(tieredOffsets);
  }

  /** The embedded tiering service, when it runs. */
  public java.util.Optional<TieringService> tiering() {
    return java.util.Optional.ofNullable(tiering);
  }

  /**
   * Binds and releases the port first, so that a port in use is reported with the key that sets it,
   * before any listener starts.
   */
  private static void requirePortFree(String host, int port, String key) {
    if (port == 0) {
      return;
    }
    try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new java.net.InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new StartupException(
          "Cannot listen on "
              + host
              + ":"
              + port
              + " ("
              + key
              + "): "
              + (e instanceof BindException
                  ? "address already in use or not available"
                  : e.getMessage()),
          e);
    }
  }

  private static boolean isLoopback(String address) {
    try {
      return java.net.InetAddress.getByName(address).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private static void purgeIdempotencyKeys(JdbcIdempotencyStore idempotency) {
    try {
      idempotency.purgeExpired(System.currentTimeMillis());
    } catch (RuntimeException e) {
      LOG.warn("Cannot purge expired idempotency keys", e);
    }
  }

  private static boolean hasCause(Throwable error, Class<? extends Throwable> type) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause) || cause.getClass().getSimpleName().contains("BindException")) {
        return true;
      }
    }
    return false;
  }

  private static void prepareDataDirectory(Path directory) {
    try {
      Files.createDirectories(directory);
      Path probe = Files.createTempFile(directory, ".write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException | SecurityException e) {
      throw new StartupException(
          "Cannot use data directory "
              + directory
              + " (data-dir): "
              + (e.getMessage() == null ? e.getClass().getSimpleName() : describe(e)),
          e);
    }
  }

  private static String describe(Exception e) {
    if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    if (e instanceof java.nio.file.FileAlreadyExistsException) {
      return "a file is in the way";
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private void enforceLogRetention() {
    try {
      int deleted = logs.enforceRetention();
      if (deleted > 0) {
        LOG.info("Log retention deleted {} segments and partitions", deleted);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Log retention failed", e);
    }
  }

  /**
   * How far a bucket is tiered, for the store's {@link RetentionFloor}: not at all while tiering is
   * off or for a table that is not a stream table, 0 (hold everything) for a table not looked up
   * since the start, whose tiered offsets are not known yet.
   */
  private long tieredOffset(String tableId, String partition, int bucket) {
    CatalogTableResolver tables = resolver;
    if (tiering == null || tables == null) {
      return RetentionFloor.TieredOffsetSource.NOT_TIERED;
    }
    Optional<org.apache.iceberg.TableMetadata> metadata = tables.metadataById(tableId);
    if (metadata.isEmpty()) {
      return 0;
    }
    if (metadata.get().properties().get(StreamTableProperties.KIND) == null) {
      return RetentionFloor.TieredOffsetSource.NOT_TIERED;
    }
    try {
      return TieredOffsets.committedIn(metadata.get()).offset(partition, bucket);
    } catch (IllegalArgumentException e) {
      return 0;
    }
  }

  /** A table's log retention: its own property, else the server's {@code log.retention}. */
  private Duration logRetention(String tableId) {
    Duration serverDefault = config.stream().log().retention();
    CatalogTableResolver tables = resolver;
    if (tables == null) {
      return serverDefault;
    }
    try {
      return tables
          .metadataById(tableId)
          .map(metadata -> TableRetention.of(metadata.properties(), serverDefault))
          .orElse(serverDefault);
    } catch (IllegalArgumentException e) {
      // Refused at create and commit; a value written around the catalog keeps the server's.
      return serverDefault;
    }
  }

  private void checkpointState() {
    try {
      kvs.checkpointDue();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Checkpointing primary-key table state failed", e);
    }
  }

  /**
   * Forgets the stream table a commit changed, so that the stream RPC's next request sees its new
   * schema at once: a reader's column indexes are those of the schema it has, which may be the new
   * one already.
   */
  private void streamCommitted(org.apache.iceberg.TableMetadata metadata) {
    CatalogTableResolver tables = resolver;
    if (tables != null && metadata.properties().containsKey(StreamTableProperties.KIND)) {
      tables.invalidate(metadata.uuid());
    }
  }

  private void dropStream(org.apache.iceberg.TableMetadata metadata) {
    CatalogTableResolver tables = resolver;
    if (tables != null) {
      tables.invalidate(metadata.uuid());
    }
    JdbcTieredOffsetsStore offsets = tieredOffsets;
    if (offsets != null) {
      try {
        offsets.remove(metadata.uuid());
      } catch (RuntimeException e) {
        LOG.warn(
            "Dropped table {} but could not forget its tiered offsets", metadata.location(), e);
      }
    }
    try {
      kvs.dropTable(metadata.uuid());
      logs.dropTable(metadata.uuid());
    } catch (IOException e) {
      LOG.warn("Dropped table {} but could not delete its stream data", metadata.location(), e);
    }
  }

  /** The port of the stream RPC. */
  public int rpcPort() {
    return rpc.port();
  }

  /** The port the HTTP server listens on. */
  public int httpPort() {
    return http.port();
  }

  public boolean isReady() {
    return ready.get();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ready.set(false);
    if (http != null) {
      try {
        http.close();
      } catch (RuntimeException e) {
        LOG.warn("Error stopping the HTTP server", e);
      }
    }
    if (flight != null) {
      flight.close();
    }
    if (consoleApi != null) {
      try {
        consoleApi.close();
      } catch (Exception e) {
        LOG.warn("Cannot close the console's Flight SQL client", e);
      }
    }
    if (consoleConnection != null) {
      consoleConnection.close();
    }
    if (flightConnection != null) {
      flightConnection.close();
    }
    if (tiering != null) {
      tiering.close();
    }
    if (tieringConnection != null) {
      tieringConnection.close();
    }
    if (rpc != null) {
      rpc.close();
    }
    housekeeping.shutdownNow();
    if (kvs != null) {
      kvs.close();
    }
    if (logs != null) {
      try {
        logs.close();
      } catch (IOException e) {
        LOG.warn("Error closing the stream store", e);
      }
    }
    housekeeping.shutdownNow();
    if (store != null) {
      store.close();
    }
    LOG.info("Lakestream stopped");
  }
}
