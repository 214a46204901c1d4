package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigKey;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A catalog file's {@code lakestream.*} properties. Every other property of the file goes to the
 * embedded Iceberg connector as it is (file system properties such as {@code fs.native-s3.enabled}
 * or {@code s3.endpoint}, and {@code iceberg.*} tuning), which rejects the ones it does not know.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code lakestream.uri}</td><td>(required)</td><td>the server's Iceberg REST
 *       endpoint, {@code http://host:8181} or {@code https://...}</td></tr>
 *   <tr><td>{@code lakestream.rpc-address}</td><td>the endpoint's host, port 9123</td><td>the
 *       server's stream RPC, {@code host:port}</td></tr>
 *   <tr><td>{@code lakestream.credential}</td><td>(none)</td><td>OAuth2 client credentials
 *       {@code id:secret}, exchanged at the server's token endpoint (secret)</td></tr>
 *   <tr><td>{@code lakestream.token}</td><td>(none)</td><td>a bearer token instead (secret)</td></tr>
 *   <tr><td>{@code lakestream.warehouse}</td><td>(the server's default)</td><td>the
 *       warehouse</td></tr>
 *   <tr><td>{@code lakestream.log-read-timeout}</td><td>{@code 60s}</td><td>how long reading
 *       a split's log range may go without a record arriving before the query fails</td></tr>
 * </table>
 */
public record LakestreamConfig(
    URI uri,
    String rpcHost,
    int rpcPort,
    Optional<String> credential,
    Optional<String> token,
    Optional<String> warehouse,
    Duration logReadTimeout,
    Map<String, String> icebergProperties) {
  public static final String URI_KEY = "lakestream.uri";
  public static final String RPC_ADDRESS = "lakestream.rpc-address";
  public static final String CREDENTIAL = "lakestream.credential";
  public static final String TOKEN = "lakestream.token";
  public static final String WAREHOUSE = "lakestream.warehouse";
  public static final String LOG_READ_TIMEOUT = "lakestream.log-read-timeout";

  /** The embedded Iceberg connector's property for statistics collected by writes. */
  static final String COLLECT_STATISTICS_ON_WRITE = "iceberg.extended-statistics.collect-on-write";

  /** The stream RPC port when {@code lakestream.rpc-address} names none. */
  public static final int DEFAULT_RPC_PORT = 9123;

  public static final Duration DEFAULT_LOG_READ_TIMEOUT = Duration.ofSeconds(60);

  private static final ConfigKey<Duration> LOG_READ_TIMEOUT_KEY =
      ConfigKey.duration(
          LOG_READ_TIMEOUT,
          DEFAULT_LOG_READ_TIMEOUT,
          "how long reading a split's log range may go without a record arriving before the"
              + " query fails");

  public LakestreamConfig {
    requireNonNull(uri, "uri is null");
    requireNonNull(rpcHost, "rpcHost is null");
    requireNonNull(credential, "credential is null");
    requireNonNull(token, "token is null");
    requireNonNull(warehouse, "warehouse is null");
    requireNonNull(logReadTimeout, "logReadTimeout is null");
    icebergProperties = Map.copyOf(icebergProperties);
  }

  /**
   * Reads a catalog file's properties.
   *
   * @throws IllegalArgumentException naming the property that is missing, unknown or invalid
   */
  public static LakestreamConfig parse(Map<String, String> properties) {
    Map<String, String> rest = new LinkedHashMap<>(properties);
    String uriValue = rest.remove(URI_KEY);
    if (uriValue == null || uriValue.isBlank()) {
      throw new IllegalArgumentException(
          "Catalog property "
              + URI_KEY
              + " is required: the server's REST endpoint, e.g."
              + " http://127.0.0.1:8181");
    }
    URI uri;
    try {
      uri = URI.create(uriValue.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Catalog property " + URI_KEY + " is not a URI: " + uriValue, e);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "Catalog property "
              + URI_KEY
              + " must be an http:// or https:// URI with a host: "
              + uriValue);
    }
    String rpcHost = uri.getHost();
    int rpcPort = DEFAULT_RPC_PORT;
    String address = rest.remove(RPC_ADDRESS);
    if (address != null) {
      int colon = address.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "Catalog property " + RPC_ADDRESS + " must be host:port: " + address);
      }
      rpcHost = address.substring(0, colon).strip();
      rpcPort = port(address.substring(colon + 1).strip(), address);
    }
    Optional<String> credential = Optional.ofNullable(rest.remove(CREDENTIAL));
    Optional<String> token = Optional.ofNullable(rest.remove(TOKEN));
    if (credential.isPresent() && token.isPresent()) {
      throw new IllegalArgumentException(
          "Catalog properties " + CREDENTIAL + " and " + TOKEN + " exclude each other: set one");
    }
    if (credential.isPresent() && credential.get().indexOf(':') <= 0) {
      throw new IllegalArgumentException(
          "Catalog property " + CREDENTIAL + " must be client-id:client-secret");
    }
    Optional<String> warehouse = Optional.ofNullable(rest.remove(WAREHOUSE));
    Duration timeout = DEFAULT_LOG_READ_TIMEOUT;
    String timeoutValue = rest.remove(LOG_READ_TIMEOUT);
    if (timeoutValue != null) {
      timeout = LOG_READ_TIMEOUT_KEY.parse(timeoutValue, "the catalog file");
    }
    for (String key : rest.keySet()) {
      if (key.startsWith("lakestream.")) {
        throw new IllegalArgumentException(
            "Unknown catalog property "
                + key
                + "; the lakestream.* properties are "
                + URI_KEY
                + ", "
                + RPC_ADDRESS
                + ", "
                + CREDENTIAL
                + ", "
                + TOKEN
                + ", "
                + WAREHOUSE
                + " and "
                + LOG_READ_TIMEOUT);
      }
      if (key.equals("iceberg.catalog.type") || key.startsWith("iceberg.rest-catalog.")) {
        throw new IllegalArgumentException(
            "Catalog property "
                + key
                + " is set by the connector from the lakestream.*"
                + " properties; remove it");
      }
    }
    Map<String, String> iceberg = new LinkedHashMap<>(rest);
    // Collecting statistics on write calls a function the Iceberg plugin registers with the
    // engine; a Trino without that plugin could not write plain Iceberg tables here.
    iceberg.putIfAbsent(COLLECT_STATISTICS_ON_WRITE, "false");
    iceberg.put("iceberg.catalog.type", "rest");
    iceberg.put("iceberg.rest-catalog.uri", uri.toString());
    warehouse.ifPresent(value -> iceberg.put("iceberg.rest-catalog.warehouse", value));
    if (credential.isPresent() || token.isPresent()) {
      iceberg.put("iceberg.rest-catalog.security", "OAUTH2");
      credential.ifPresent(value -> iceberg.put("iceberg.rest-catalog.oauth2.credential", value));
      token.ifPresent(value -> iceberg.put("iceberg.rest-catalog.oauth2.token", value));
    }
    return new LakestreamConfig(
        uri, rpcHost, rpcPort, credential, token, warehouse, timeout, iceberg);
  }

  private static int port(String value, String address) {
    try {
      int port = Integer.parseInt(value);
      if (port > 0 && port < 65536) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "Catalog property " + RPC_ADDRESS + " has an invalid port: " + address);
  }

  @Override
  public String toString() {
    // Never the credential or token.
    return "LakestreamConfig{uri="
        + uri
        + ", rpc="
        + rpcHost
        + ":"
        + rpcPort
        + ", warehouse="
        + warehouse.orElse("(default)")
        + ", auth="
        + (credential.isPresent() ? "credential" : token.isPresent() ? "token" : "none")
        + "}";
  }
}
