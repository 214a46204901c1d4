package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.ServerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * Where the server is and how to authenticate, shared by every command that talks to a server. Each
 * setting comes from its flag, else its environment variable, else the profile file, else the
 * default:
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>flag</th><th>environment</th><th>profile key</th><th>default</th></tr>
 *   <tr><td>--server</td><td>LAKESTREAM_SERVER</td><td>server</td>
 *       <td>lakestream://127.0.0.1:9123</td></tr>
 *   <tr><td>--catalog</td><td>LAKESTREAM_CATALOG</td><td>catalog</td>
 *       <td>http://(first server host):8181</td></tr>
 *   <tr><td>--flight</td><td>LAKESTREAM_FLIGHT</td><td>flight</td>
 *       <td>(first server host):32010</td></tr>
 *   <tr><td>--token</td><td>LAKESTREAM_TOKEN</td><td>token</td><td>none</td></tr>
 * </table>
 *
 * <p>The profile is a Java properties file: {@code --profile FILE}, else {@code
 * LAKESTREAM_PROFILE}, else {@code ~/.lakestream/profile} when it exists. The token is never
 * printed.
 */
public final class ServerOptions {
  static final String DEFAULT_SERVER = "lakestream://127.0.0.1:9123";
  static final int DEFAULT_CATALOG_PORT = 8181;
  static final int DEFAULT_FLIGHT_PORT = 32010;

  @Option(
      names = "--server",
      paramLabel = "URI",
      description =
          "Stream RPC address, lakestream://host:port[,host:port...] "
              + "(env LAKESTREAM_SERVER; default "
              + DEFAULT_SERVER
              + ")")
  String server;

  @Option(
      names = "--catalog",
      paramLabel = "URL",
      description =
          "Iceberg REST catalog, http://host:port (env LAKESTREAM_CATALOG; default the server's"
              + " host, port 8181)")
  String catalog;

  @Option(
      names = "--flight",
      paramLabel = "HOST:PORT",
      description =
          "Flight SQL endpoint (env LAKESTREAM_FLIGHT; default the server's host, port 32010)")
  String flight;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description = "Bearer token (env LAKESTREAM_TOKEN); never printed")
  String token;

  @Option(
      names = "--profile",
      paramLabel = "FILE",
      description =
          "Properties file with server, catalog, flight, token (env LAKESTREAM_PROFILE;"
              + " default ~/.lakestream/profile)")
  Path profile;

  private Properties loadedProfile;

  /** The environment the settings fall back on; the process's unless a test replaces it. */
  static Map<String, String> environment = System.getenv();

  private String setting(String flag, String variable, String key) {
    if (flag != null) {
      return flag;
    }
    String fromEnvironment = environment.get(variable);
    if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
      return fromEnvironment;
    }
    return profile().getProperty(key);
  }

  private Properties profile() {
    if (loadedProfile != null) {
      return loadedProfile;
    }
    Properties properties = new Properties();
    Path file = profile;
    boolean named = file != null;
    if (file == null && environment.get("LAKESTREAM_PROFILE") != null) {
      file = Path.of(environment.get("LAKESTREAM_PROFILE"));
      named = true;
    }
    if (file == null) {
      String home = System.getProperty("user.home");
      file = home == null ? null : Path.of(home, ".lakestream", "profile");
    }
    if (file != null && (named || Files.isRegularFile(file))) {
      try (InputStream in = Files.newInputStream(file)) {
        properties.load(in);
      } catch (IOException e) {
        throw new CliFailure("Cannot read the profile " + file + ": " + e.getMessage(), e);
      }
    }
    loadedProfile = properties;
    return properties;
  }

  /** The stream RPC URI. */
  String serverUri() {
    String uri = setting(server, "LAKESTREAM_SERVER", "server");
    return uri == null ? DEFAULT_SERVER : uri;
  }

  private String serverHost() {
    try {
      List<ServerAddress> addresses = ServerAddress.parseUri(serverUri());
      return addresses.get(0).host();
    } catch (IllegalArgumentException e) {
      throw new UsageError("Invalid --server: " + e.getMessage());
    }
  }

  /** The REST catalog's base URI, without a trailing slash. */
  String catalogUri() {
    String uri = setting(catalog, "LAKESTREAM_CATALOG", "catalog");
    if (uri == null) {
      return "http://" + hostForUri(serverHost()) + ":" + DEFAULT_CATALOG_PORT;
    }
    try {
      URI parsed = URI.create(uri);
      if (parsed.getScheme() == null || parsed.getHost() == null) {
        throw new IllegalArgumentException("expected http://host:port");
      }
    } catch (IllegalArgumentException e) {
      throw new UsageError("Invalid --catalog '" + uri + "': " + e.getMessage());
    }
    return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
  }

  /** The Flight SQL endpoint as host:port. */
  String flightAddress() {
    String address = setting(flight, "LAKESTREAM_FLIGHT", "flight");
    if (address == null) {
      return hostForUri(serverHost()) + ":" + DEFAULT_FLIGHT_PORT;
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || !address.substring(colon + 1).matches("[0-9]{1,5}")) {
      throw new UsageError("Invalid --flight '" + address + "': expected host:port");
    }
    return address;
  }

  private static String hostForUri(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** The bearer token, or null. */
  String token() {
    String value = setting(token, "LAKESTREAM_TOKEN", "token");
    return value == null || value.isEmpty() ? null : value;
  }

  /**
   * Connects to the stream RPC.
   *
   * @throws CliFailure when no server can be reached or the token is refused
   */
  Connection connect() {
    String uri = serverUri();
    try {
      return Connection.open(uri, token());
    } catch (IllegalArgumentException e) {
      throw new UsageError("Invalid --server '" + uri + "': " + e.getMessage());
    }
  }
}
