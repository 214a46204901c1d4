package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The host and stream RPC port of a Lakestream server, as a {@link Connection} is given it.
 *
 * <p>A connection URI names one server or several, tried in order ("bootstrap addresses"):
 *
 * <pre>{@code
 * lakestream://stream.example.com:9123
 * lakestream://10.0.0.1:9123,10.0.0.2:9123
 * lakestream://[::1]:9123
 * }</pre>
 *
 * The scheme is {@value #SCHEME}, every address has a port, and the URI has no path, query or user
 * part (a token is passed beside the URI, so that it stays out of configuration files and logs).
 *
 * @param host a host name or IP address (an IPv6 address without brackets)
 * @param port the server's {@code rpc.port}, 1 to 65535
 */
public record ServerAddress(String host, int port) {
  /** The scheme of a connection URI. */
  public static final String SCHEME = "lakestream";

  private static final String PREFIX = SCHEME + "://";

  /**
   * Checks the address; the host is not resolved until a connection uses it.
   *
   * @throws IllegalArgumentException for an empty host or a port out of range
   */
  public ServerAddress {
    requireNonNull(host, "host is null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("Server address has an empty host");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "Server address " + host + ":" + port + ": port must be between 1 and 65535");
    }
  }

  /**
   * The addresses a connection URI names, in its order.
   *
   * @param uri {@code lakestream://host:port} or {@code lakestream://host1:port1,host2:port2}
   * @return the addresses, at least one
   * @throws IllegalArgumentException naming the problem: a scheme other than {@value #SCHEME}, no
   *     address, an empty address, an address without a port or with a port that is not a number
   *     between 1 and 65535, a path, query, fragment or user part
   */
  public static List<ServerAddress> parseUri(String uri) {
    requireNonNull(uri, "uri is null");
    String trimmed = uri.strip();
    if (!trimmed.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "Connection URI '"
              + uri
              + "' must start with "
              + PREFIX
              + " (for example lakestream://host:9123)");
    }
    String authority = trimmed.substring(PREFIX.length());
    if (authority.endsWith("/")) {
      authority = authority.substring(0, authority.length() - 1);
    }
    for (char forbidden : new char[] {'/', '?', '#', '@'}) {
      if (authority.indexOf(forbidden) >= 0) {
        throw new IllegalArgumentException(
            "Connection URI '"
                + uri
                + "' has a "
                + switch (forbidden) {
                  case '/' -> "path";
                  case '?' -> "query";
                  case '#' -> "fragment";
                  default -> "user part";
                }
                + ": only lakestream://host:port[,host:port...] is allowed (pass a token beside"
                + " the URI)");
      }
    }
    if (authority.isBlank()) {
      throw new IllegalArgumentException("Connection URI '" + uri + "' names no server");
    }
    List<ServerAddress> addresses = new ArrayList<>();
    for (String entry : authority.split(",", -1)) {
      addresses.add(parseAddress(uri, entry.strip()));
    }
    return List.copyOf(addresses);
  }

  private static ServerAddress parseAddress(String uri, String entry) {
    if (entry.isEmpty()) {
      throw new IllegalArgumentException("Connection URI '" + uri + "' has an empty address");
    }
    String host;
    String port;
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      if (close < 0 || close + 1 >= entry.length() || entry.charAt(close + 1) != ':') {
        throw new IllegalArgumentException(
            "Connection URI '" + uri + "': address '" + entry + "' must be [IPv6 address]:port");
      }
      host = entry.substring(1, close);
      port = entry.substring(close + 2);
    } else {
      int colon = entry.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(
            "Connection URI '" + uri + "': address '" + entry + "' has no port (host:port)");
      }
      host = entry.substring(0, colon);
      port = entry.substring(colon + 1);
      if (host.indexOf(':') >= 0) {
        throw new IllegalArgumentException(
            "Connection URI '"
                + uri
                + "': address '"
                + entry
                + "' has several colons (write an IPv6 address as [address]:port)");
      }
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException(
          "Connection URI '" + uri + "': address '" + entry + "' has an empty host");
    }
    int number;
    try {
      number = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 1 || number > 65535) {
      throw new IllegalArgumentException(
          "Connection URI '"
              + uri
              + "': port '"
              + port
              + "' of address '"
              + entry
              + "' is not a number between 1 and 65535");
    }
    return new ServerAddress(host, number);
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
