package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.tiering.DataFileWriter;
import io.lakestream.tiering.IcebergTableTiering;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the tiering job needs to know: the server (its Iceberg REST endpoint and stream RPC, with at
 * most one of a token or OAuth2 client credentials), the warehouse, and how the job schedules and
 * runs its rounds. Parsed from {@code --name value} arguments ({@link #parse}); checked when made.
 *
 * @param uri the server's Iceberg REST endpoint, {@code http://host:8181}
 * @param rpcHost the host of the server's stream RPC
 * @param rpcPort its port
 * @param warehouse the warehouse whose tables to tier, or null for the server's default
 * @param token a bearer token, or null
 * @param credential {@code client-id:client-secret} for the server's OAuth2 token endpoint, or null
 * @param discoveryInterval how often the job lists the catalog for streaming tables
 * @param parallelism how many subtasks run rounds (tables are spread over them)
 * @param readTimeout how long one round may take to read its log ranges
 * @param maxRowsPerRound log rows after which a round commits what it has
 * @param dataFileWriter how log tables' data files are written
 * @param orphanFileAge how old an unreferenced tiering file must be before the sweep deletes it
 * @param catalogProperties more properties of the job's Iceberg {@code RESTCatalog} (such as {@code
 *     io-impl}), from {@code --catalog.<key> <value>}
 */
public record TieringJobOptions(
    URI uri,
    String rpcHost,
    int rpcPort,
    String warehouse,
    String token,
    String credential,
    Duration discoveryInterval,
    int parallelism,
    Duration readTimeout,
    long maxRowsPerRound,
    DataFileWriter dataFileWriter,
    Duration orphanFileAge,
    Map<String, String> catalogProperties)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_ORPHAN_FILE_AGE = Duration.ofHours(1);

  /** The arguments {@link #parse} knows, for the usage message. */
  public static final String USAGE =
      "Usage: TieringJob --uri http://host:8181 --rpc-address host:9123"
          + " [--warehouse name] [--token token | --credential client-id:client-secret]"
          + " [--interval 10s] [--parallelism n] [--read-timeout 5m]"
          + " [--max-rows-per-round n] [--data-file-writer duckdb|iceberg]"
          + " [--orphan-file-age 1h] [--catalog.<key> value]...";

  public TieringJobOptions {
    requireNonNull(uri, "uri is null");
    requireNonNull(rpcHost, "rpcHost is null");
    requireNonNull(discoveryInterval, "discoveryInterval is null");
    requireNonNull(readTimeout, "readTimeout is null");
    requireNonNull(dataFileWriter, "dataFileWriter is null");
    requireNonNull(orphanFileAge, "orphanFileAge is null");
    catalogProperties = Map.copyOf(catalogProperties);
    if (uri.getScheme() == null || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "--uri must be an http(s) URI such as http://host:8181, not " + uri);
    }
    if (rpcPort < 1 || rpcPort > 65535) {
      throw new IllegalArgumentException("--rpc-address has no valid port: " + rpcPort);
    }
    if (token != null && credential != null) {
      throw new IllegalArgumentException("Set one of --token and --credential, not both");
    }
    if (credential != null && credential.indexOf(':') <= 0) {
      throw new IllegalArgumentException("--credential must be client-id:client-secret");
    }
    if (discoveryInterval.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException(
          "--interval must be at least 100ms, not " + discoveryInterval);
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("--parallelism must be positive, not " + parallelism);
    }
    if (readTimeout.isZero() || readTimeout.isNegative()) {
      throw new IllegalArgumentException("--read-timeout must be positive, not " + readTimeout);
    }
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException(
          "--max-rows-per-round must be positive, not " + maxRowsPerRound);
    }
    if (orphanFileAge.isNegative()) {
      throw new IllegalArgumentException(
          "--orphan-file-age must not be negative, not " + orphanFileAge);
    }
  }

  /**
   * Options from {@code --name value} pairs; {@code --uri} and {@code --rpc-address} are required.
   *
   * @param defaultParallelism the parallelism when {@code --parallelism} is not given
   * @throws IllegalArgumentException naming the argument and value that are wrong
   */
  public static TieringJobOptions parse(String[] args, int defaultParallelism) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> catalog = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String name = args[i];
      if (!name.startsWith("--") || name.length() == 2) {
        throw new IllegalArgumentException("Expected an argument --name, found '" + name + "'");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Argument " + name + " has no value");
      }
      String key = name.substring(2);
      if (key.startsWith("catalog.") && key.length() > "catalog.".length()) {
        catalog.put(key.substring("catalog.".length()), args[i + 1]);
      } else if (values.put(key, args[i + 1]) != null) {
        throw new IllegalArgumentException("Argument " + name + " is given twice");
      }
    }
    String uri = required(values, "uri");
    String rpc = required(values, "rpc-address");
    int colon = rpc.lastIndexOf(':');
    int port = colon > 0 ? integer("rpc-address", rpc.substring(colon + 1)) : -1;
    if (port < 1) {
      throw new IllegalArgumentException("--rpc-address must be host:port, not " + rpc);
    }
    TieringJobOptions options;
    try {
      options =
          new TieringJobOptions(
              URI.create(uri),
              rpc.substring(0, colon),
              port,
              values.remove("warehouse"),
              values.remove("token"),
              values.remove("credential"),
              duration(values, "interval", DEFAULT_DISCOVERY_INTERVAL),
              values.containsKey("parallelism")
                  ? integer("parallelism", values.remove("parallelism"))
                  : defaultParallelism,
              duration(values, "read-timeout", DEFAULT_READ_TIMEOUT),
              values.containsKey("max-rows-per-round")
                  ? integer("max-rows-per-round", values.remove("max-rows-per-round"))
                  : IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND,
              writer(values.remove("data-file-writer")),
              duration(values, "orphan-file-age", DEFAULT_ORPHAN_FILE_AGE),
              catalog);
    } catch (IllegalArgumentException e) {
      throw e.getMessage() != null && e.getMessage().startsWith("--")
          ? e
          : new IllegalArgumentException("Invalid argument: " + e.getMessage(), e);
    }
    if (!values.isEmpty()) {
      throw new IllegalArgumentException(
          "Unknown arguments: --" + String.join(", --", values.keySet()));
    }
    return options;
  }

  private static String required(Map<String, String> values, String key) {
    String value = values.remove(key);
    if (value == null) {
      throw new IllegalArgumentException("Argument --" + key + " is required. " + USAGE);
    }
    return value;
  }

  private static int integer(String key, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be an integer, not '" + value + "'");
    }
  }

  private static DataFileWriter writer(String value) {
    if (value == null) {
      return DataFileWriter.DUCKDB;
    }
    try {
      return DataFileWriter.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--data-file-writer must be duckdb or iceberg, not '" + value + "'");
    }
  }

  /** A duration such as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h} or ISO-8601. */
  private static Duration duration(Map<String, String> values, String key, Duration fallback) {
    String raw = values.remove(key);
    if (raw == null) {
      return fallback;
    }
    String value = raw.trim().toLowerCase(Locale.ROOT);
    try {
      if (value.startsWith("p")) {
        return Duration.parse(value.toUpperCase(Locale.ROOT));
      }
      if (value.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
      }
      long amount = Long.parseLong(value.substring(0, value.length() - 1));
      switch (value.charAt(value.length() - 1)) {
        case 's':
          return Duration.ofSeconds(amount);
        case 'm':
          return Duration.ofMinutes(amount);
        case 'h':
          return Duration.ofHours(amount);
        case 'd':
          return Duration.ofDays(amount);
        default:
          break;
      }
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--" + key + " must be a duration such as 500ms, 10s, 5m or 1h, not '" + raw + "'");
  }

  @Override
  public String toString() {
    // Never the token or the secret.
    return "Lakestream server "
        + uri
        + " (stream RPC "
        + rpcHost
        + ":"
        + rpcPort
        + (warehouse == null ? "" : ", warehouse " + warehouse)
        + ")";
  }
}
