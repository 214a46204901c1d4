package io.lakestream.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.auth.AuthConfig;
import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import io.lakestream.flight.server.FlightSqlConfig;
import io.lakestream.rest.HttpLimits;
import io.lakestream.storage.StorageConfig;
import io.lakestream.store.StreamStoreConfig;
import io.lakestream.tiering.TieringConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Configuration of the server process: where it keeps its data, where it listens, and its catalog
 * database. Every key, default and description is here; {@code bin/lakestream server --help} prints
 * them.
 */
public record ServerConfig(
    Path dataDirectory,
    String bindAddress,
    int httpPort,
    int rpcPort,
    int flightPort,
    boolean flightEnabled,
    long maxRequestBytes,
    Duration httpRequestTimeout,
    long maxBufferedRequestBytes,
    int maxConnectionsPerAddress,
    Duration shutdownTimeout,
    String databaseUrl,
    String databaseUser,
    String databasePassword,
    int databasePoolSize,
    String defaultWarehouse,
    String warehouseLocation,
    int metadataCacheEntries,
    Duration idempotencyKeyLifetime,
    boolean confineTableFiles,
    AuthConfig auth,
    StorageConfig storage,
    StreamStoreConfig stream,
    TieringConfig tiering,
    FlightSqlConfig flight) {

  public static final ConfigKey<String> DATA_DIR =
      ConfigKey.string(
          "data-dir",
          "./data",
          "Directory for the embedded catalog database, the local warehouse and stream data");
  public static final ConfigKey<String> BIND =
      ConfigKey.string("bind", "127.0.0.1", "Address every listener binds to");
  public static final ConfigKey<Integer> HTTP_PORT =
      ConfigKey.port(
          "http.port", 8181, "Port of the Iceberg REST catalog, /health, /ready, /metrics");
  public static final ConfigKey<Integer> RPC_PORT =
      ConfigKey.port("rpc.port", 9123, "Port of the stream RPC (append, fetch, offsets)");
  public static final ConfigKey<Integer> FLIGHT_PORT =
      ConfigKey.port(
          "flight.port", 32010, "Port of the Arrow Flight SQL endpoint (SQL over union reads)");
  public static final ConfigKey<Boolean> FLIGHT_ENABLED =
      ConfigKey.bool("flight.enabled", true, "Whether the server serves Arrow Flight SQL");
  public static final ConfigKey<Long> MAX_REQUEST_SIZE =
      ConfigKey.bytes(
          "http.max-request-size", 16L << 20, "Largest accepted HTTP request body; larger get 413");
  public static final ConfigKey<Duration> HTTP_REQUEST_TIMEOUT =
      ConfigKey.duration(
          "http.request-timeout",
          Duration.ofSeconds(30),
          "Time from a request's first byte to its last; a slower one's connection is closed"
              + " (408)");
  public static final ConfigKey<Long> MAX_BUFFERED_REQUEST_BYTES =
      ConfigKey.bytes(
          "http.max-buffered-request-bytes",
          256L << 20,
          "Heap the bodies of all unanswered HTTP requests may hold together (at most a quarter"
              + " of the heap); a body beyond it gets 503 with Retry-After");
  public static final ConfigKey<Integer> MAX_CONNECTIONS_PER_ADDRESS =
      ConfigKey.integer(
          "http.max-connections-per-address",
          64,
          1,
          1_000_000,
          "Open HTTP connections from one client address; further ones are closed at once");
  public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT =
      ConfigKey.duration(
          "shutdown.timeout",
          Duration.ofSeconds(30),
          "How long a graceful shutdown waits for in-flight requests");
  public static final ConfigKey<String> DATABASE_URL =
      ConfigKey.derivedString(
          "catalog.database-url",
          "jdbc:sqlite:<data-dir>/catalog.db",
          "JDBC URL of the catalog database: jdbc:sqlite:FILE or jdbc:postgresql://HOST/DB");
  public static final ConfigKey<String> DATABASE_USER =
      ConfigKey.derivedString(
          "catalog.database-user", "(none)", "User name for the catalog database");
  public static final ConfigKey<String> DATABASE_PASSWORD =
      ConfigKey.secret("catalog.database-password", "Password for the catalog database");
  public static final ConfigKey<Integer> DATABASE_POOL_SIZE =
      ConfigKey.integer(
          "catalog.database-pool-size", 8, 1, 256, "Connections to the catalog database");
  public static final ConfigKey<String> DEFAULT_WAREHOUSE =
      ConfigKey.string(
          "catalog.default-warehouse",
          "default",
          "Warehouse used by clients that name none; created on first start");
  public static final ConfigKey<String> WAREHOUSE_LOCATION =
      ConfigKey.derivedString(
          "catalog.warehouse-location",
          "file:<data-dir>/warehouse",
          "Location of the default warehouse when it is first created");
  public static final ConfigKey<Integer> METADATA_CACHE_ENTRIES =
      ConfigKey.integer(
          "catalog.metadata-cache-entries",
          1000,
          0,
          1_000_000,
          "Parsed table and view metadata files kept in memory");

  public static final ConfigKey<Duration> IDEMPOTENCY_KEY_LIFETIME =
      ConfigKey.duration(
          "catalog.idempotency-key-lifetime",
          Duration.ofMinutes(30),
          "How long a mutating request's Idempotency-Key and outcome are remembered");

  public static final ConfigKey<Boolean> CONFINE_TABLE_FILES =
      ConfigKey.bool(
          "catalog.confine-table-files",
          true,
          "Refuse commits whose snapshots name files outside the table's own location (see"
              + " Security); false only for test suites that append files at made-up paths");

  /** Every key of the server, in the order {@code --help} lists them. */
  public static final List<ConfigKey<?>> KEYS =
      List.of(
          DATA_DIR,
          BIND,
          HTTP_PORT,
          RPC_PORT,
          FLIGHT_PORT,
          FLIGHT_ENABLED,
          MAX_REQUEST_SIZE,
          HTTP_REQUEST_TIMEOUT,
          MAX_BUFFERED_REQUEST_BYTES,
          MAX_CONNECTIONS_PER_ADDRESS,
          SHUTDOWN_TIMEOUT,
          DATABASE_URL,
          DATABASE_USER,
          DATABASE_PASSWORD,
          DATABASE_POOL_SIZE,
          DEFAULT_WAREHOUSE,
          WAREHOUSE_LOCATION,
          METADATA_CACHE_ENTRIES,
          IDEMPOTENCY_KEY_LIFETIME,
          CONFINE_TABLE_FILES);

  /** Every key the server process reads: its own and those of the modules it hosts. */
  public static List<ConfigKey<?>> allKeys() {
    List<ConfigKey<?>> keys = new java.util.ArrayList<>(KEYS);
    keys.addAll(AuthConfig.KEYS);
    keys.addAll(StorageConfig.KEYS);
    keys.addAll(StreamStoreConfig.KEYS);
    keys.addAll(TieringConfig.KEYS);
    keys.addAll(FlightSqlConfig.KEYS);
    return List.copyOf(keys);
  }

  public ServerConfig {
    requireNonNull(auth, "auth is null");
    requireNonNull(storage, "storage is null");
    requireNonNull(stream, "stream is null");
    requireNonNull(tiering, "tiering is null");
    requireNonNull(flight, "flight is null");
    requireNonNull(dataDirectory, "dataDirectory is null");
    requireNonNull(bindAddress, "bindAddress is null");
    requireNonNull(shutdownTimeout, "shutdownTimeout is null");
    requireNonNull(databaseUrl, "databaseUrl is null");
    requireNonNull(defaultWarehouse, "defaultWarehouse is null");
    requireNonNull(warehouseLocation, "warehouseLocation is null");
  }

  /** What HTTP clients may make the server hold. */
  public HttpLimits httpLimits() {
    return new HttpLimits(
        maxRequestBytes, httpRequestTimeout, maxBufferedRequestBytes, maxConnectionsPerAddress);
  }

  /** Resolves derived defaults against the data directory. */
  public static ServerConfig from(Configuration configuration) {
    Path dataDirectory = Path.of(configuration.get(DATA_DIR)).toAbsolutePath().normalize();
    String databaseUrl =
        configuration
            .getIfSet(DATABASE_URL)
            .orElse("jdbc:sqlite:" + dataDirectory.resolve("catalog.db"));
    String warehouseLocation =
        configuration
            .getIfSet(WAREHOUSE_LOCATION)
            .orElse(dataDirectory.resolve("warehouse").toUri().toString());
    if (configuration.get(HTTP_REQUEST_TIMEOUT).isZero()) {
      throw new ConfigException("Invalid http.request-timeout: it must be longer than 0");
    }
    if (configuration.get(MAX_BUFFERED_REQUEST_BYTES) <= 0) {
      throw new ConfigException("Invalid http.max-buffered-request-bytes: it must be above 0");
    }
    return new ServerConfig(
        dataDirectory,
        configuration.get(BIND),
        configuration.get(HTTP_PORT),
        configuration.get(RPC_PORT),
        configuration.get(FLIGHT_PORT),
        configuration.get(FLIGHT_ENABLED),
        configuration.get(MAX_REQUEST_SIZE),
        configuration.get(HTTP_REQUEST_TIMEOUT),
        configuration.get(MAX_BUFFERED_REQUEST_BYTES),
        configuration.get(MAX_CONNECTIONS_PER_ADDRESS),
        configuration.get(SHUTDOWN_TIMEOUT),
        databaseUrl,
        configuration.get(DATABASE_USER),
        configuration.get(DATABASE_PASSWORD),
        configuration.get(DATABASE_POOL_SIZE),
        configuration.get(DEFAULT_WAREHOUSE),
        warehouseLocation,
        configuration.get(METADATA_CACHE_ENTRIES),
        configuration.get(IDEMPOTENCY_KEY_LIFETIME),
        configuration.get(CONFINE_TABLE_FILES),
        AuthConfig.from(configuration),
        StorageConfig.from(configuration),
        StreamStoreConfig.from(configuration),
        TieringConfig.from(configuration),
        FlightSqlConfig.from(configuration));
  }

  @Override
  public String toString() {
    // Never print the password, whatever else is logged.
    return "ServerConfig[dataDirectory="
        + dataDirectory
        + ", bindAddress="
        + bindAddress
        + ", httpPort="
        + httpPort
        + ", databaseUrl="
        + databaseUrl.replaceAll("(?i)(password=)[^&;]*", "$1***")
        + ", defaultWarehouse="
        + defaultWarehouse
        + ", auth="
        + auth
        + ", storage="
        + storage
        + "]";
  }
}
