package io.lakestream.testing;

import io.lakestream.catalog.LocalFileIO;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;

/** Iceberg {@code RESTCatalog} clients of a test server, with the local file IO tests use. */
public final class RestCatalogs {
  private RestCatalogs() {}

  /**
   * An anonymous client of the catalog at {@code baseUri}, such as {@code http://127.0.0.1:8181}.
   */
  public static RESTCatalog open(String baseUri) {
    return open(baseUri, null);
  }

  /**
   * A client of the catalog at {@code baseUri} that signs in with {@code credential} ({@code
   * client:secret}) at the server's OAuth2 token endpoint, or anonymous when it is null.
   */
  public static RESTCatalog open(String baseUri, String credential) {
    // The Iceberg client probes the properties with containsKey(null): mutable maps only.
    Map<String, String> properties =
        new HashMap<>(Map.of("uri", baseUri, "io-impl", LocalFileIO.class.getName()));
    if (credential != null) {
      properties.put("credential", credential);
      properties.put("oauth2-server-uri", baseUri + "/v1/oauth/tokens");
    }
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lakestream", properties);
    return catalog;
  }
}
