package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.lake.auth.OAuthTokens;
import io.lakestream.lake.iceberg.MetadataOnlyFileIO;
import java.io.Serializable;
import java.net.URI;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;

/**
 * Where a Lakestream server is and how to authenticate to it: its Iceberg REST endpoint, its stream
 * RPC and at most one of a token or OAuth2 client credentials. Checked when made, so a catalog with
 * a bad option fails at {@code CREATE CATALOG} with a message naming the option.
 *
 * @param warehouse the warehouse, or null for the server's default
 * @param token a bearer token, or null
 * @param credential {@code client-id:client-secret}, or null
 */
public record ServerAddress(
    URI uri, String rpcHost, int rpcPort, String warehouse, String token, String credential)
    implements Serializable {
  public ServerAddress {
    requireNonNull(uri, "uri is null");
    requireNonNull(rpcHost, "rpcHost is null");
    if (token != null && credential != null) {
      throw new ValidationException(
          "Set one of '"
              + LakestreamOptions.TOKEN.key()
              + "' and '"
              + LakestreamOptions.CREDENTIAL.key()
              + "', not both");
    }
    if (credential != null && credential.indexOf(':') <= 0) {
      throw new ValidationException(
          "Option '" + LakestreamOptions.CREDENTIAL.key() + "' must be client-id:client-secret");
    }
  }

  /** The address the validated options of a catalog (or a table) name. */
  static ServerAddress of(ReadableConfig options) {
    String uriText = options.get(LakestreamOptions.URI);
    URI uri;
    try {
      uri = URI.create(uriText);
    } catch (IllegalArgumentException e) {
      throw new ValidationException(
          "Option '" + LakestreamOptions.URI.key() + "' is not a URI: " + uriText, e);
    }
    if (uri.getScheme() == null || uri.getHost() == null) {
      throw new ValidationException(
          "Option '"
              + LakestreamOptions.URI.key()
              + "' must be an http(s) URI such as"
              + " http://host:8181, not "
              + uriText);
    }
    String rpc = options.get(LakestreamOptions.RPC_ADDRESS);
    int colon = rpc.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(rpc.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65535) {
      throw new ValidationException(
          "Option '" + LakestreamOptions.RPC_ADDRESS.key() + "' must be host:port, not " + rpc);
    }
    return new ServerAddress(
        uri,
        rpc.substring(0, colon),
        port,
        options.getOptional(LakestreamOptions.WAREHOUSE).orElse(null),
        options.getOptional(LakestreamOptions.TOKEN).orElse(null),
        options.getOptional(LakestreamOptions.CREDENTIAL).orElse(null));
  }

  /** A new connection to the stream RPC, authenticated as configured; the caller closes it. */
  public Connection connect() {
    return credential != null
        ? Connection.openRenewing(
            rpcHost, rpcPort, new OAuthTokens(uri, credential, Clock.systemUTC()))
        : Connection.open(rpcHost, rpcPort, token);
  }

  /** The path of a table of a database (namespace) of this server's warehouse. */
  public TablePath path(String database, String table) {
    return new TablePath(warehouse, List.of(database), table);
  }

  Optional<String> warehouseName() {
    return Optional.ofNullable(warehouse);
  }

  /** The properties of an Iceberg {@code RESTCatalog} of this server. */
  public Map<String, String> restCatalogProperties() {
    Map<String, String> properties = new HashMap<>();
    properties.put("uri", uri.toString());
    properties.put("io-impl", MetadataOnlyFileIO.class.getName());
    if (token != null) {
      properties.put("token", token);
    }
    if (credential != null) {
      properties.put("credential", credential);
    }
    if (warehouse != null) {
      properties.put("warehouse", warehouse);
    }
    return properties;
  }

  @Override
  public String toString() {
    // Never the token or the secret.
    return "Lakestream server " + uri + " (stream RPC " + rpcHost + ":" + rpcPort + ")";
  }
}
