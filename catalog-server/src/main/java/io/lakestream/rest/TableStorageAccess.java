package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import io.lakestream.storage.S3RequestSigner;
import io.lakestream.storage.WarehouseStorage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.credentials.Credential;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.responses.RemoteSignResponse;

/**
 * What a table answer tells a client about reaching the table's files, when the client asks for
 * delegated access with {@code X-Iceberg-Access-Delegation} (a comma-separated list of {@code
 * vended-credentials} and {@code remote-signing}), and the signing of that client's S3 requests.
 *
 * <ul>
 *   <li>Local warehouses delegate nothing: clients reach their files through their own file system.
 *   <li>An S3 warehouse answers {@code vended-credentials} with the server's own keys only when
 *       {@code s3.vend-static-credentials=true}; those reach whatever the keys reach, not only the
 *       table.
 *   <li>Otherwise (the default, and always for {@code remote-signing}) it answers with remote
 *       signing: {@code s3.remote-signing-enabled=true} and a signer endpoint that names the table
 *       ({@code v1/<prefix>/namespaces/<namespace>/tables/<table>/sign}, Iceberg's remote-signing
 *       route), relative to the catalog URI the client already uses. The route signs only requests
 *       inside the table's locations ({@link S3RequestSigner}); no key leaves the server.
 * </ul>
 *
 * <p>Thread safe: it holds no mutable state.
 */
final class TableStorageAccess {
  /** The table properties that name where a table's files go, besides its location. */
  private static final List<String> PATH_PROPERTIES =
      List.of(
          TableProperties.WRITE_DATA_LOCATION,
          TableProperties.WRITE_METADATA_LOCATION,
          "write.object-storage.path",
          "write.folder-storage.path");

  private final Map<String, WarehouseStorage> storage;
  private final String defaultWarehouse;

  /**
   * @param storage each warehouse's storage, by warehouse name
   */
  TableStorageAccess(Map<String, WarehouseStorage> storage, String defaultWarehouse) {
    this.storage = Map.copyOf(requireNonNull(storage, "storage is null"));
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
  }

  /**
   * The settings and credentials a table answer carries for this request: none unless the client
   * asked for delegated access to a warehouse that has any to give.
   */
  Access forTable(RestRequest request, TableIdentifier identifier, String tableLocation) {
    Optional<WarehouseStorage> warehouse = storage(request);
    List<String> asked = delegation(request);
    if (warehouse.isEmpty() || warehouse.get().clientConfig().isEmpty() || asked.isEmpty()) {
      return Access.NONE;
    }
    WarehouseStorage files = warehouse.get();
    Map<String, String> config = new LinkedHashMap<>(files.clientConfig());
    if (asked.contains("vended-credentials") && !files.staticCredentials().isEmpty()) {
      config.putAll(files.staticCredentials());
      return new Access(
          config,
          List.of(ImmutableCredential.builder().prefix(tableLocation).config(config).build()));
    }
    if (files.signer().isEmpty()) {
      return Access.NONE;
    }
    String endpoint = new ResourcePaths(prefix(request)).remoteSign(identifier);
    config.put("s3.remote-signing-enabled", "true");
    // Iceberg 1.11 reads signer.endpoint; older clients (and PyIceberg) read s3.signer.endpoint.
    config.put("signer.endpoint", endpoint);
    config.put("s3.signer.endpoint", endpoint);
    return new Access(config, List.of());
  }

  /**
   * The credentials of {@code GET .../credentials}: the static keys when the warehouse vends them,
   * none otherwise (clients of such warehouses sign through the table's sign route).
   */
  List<Credential> credentials(RestRequest request, String tableLocation) {
    Optional<WarehouseStorage> warehouse = storage(request);
    if (warehouse.isEmpty() || warehouse.get().staticCredentials().isEmpty()) {
      return List.of();
    }
    Map<String, String> config = new LinkedHashMap<>(warehouse.get().clientConfig());
    config.putAll(warehouse.get().staticCredentials());
    return List.of(ImmutableCredential.builder().prefix(tableLocation).config(config).build());
  }

  /**
   * Signs a client's S3 request for a table's files.
   *
   * @throws BadRequestException if the warehouse's files are not on S3
   * @throws org.apache.iceberg.exceptions.ForbiddenException if the request reaches anything
   *     outside the table's locations
   */
  RemoteSignResponse sign(RestRequest request, TableMetadata metadata, RemoteSignRequest body) {
    S3RequestSigner signer =
        storage(request)
            .flatMap(WarehouseStorage::signer)
            .orElseThrow(
                () ->
                    new BadRequestException(
                        "Cannot sign for warehouse '%s': its files are not on S3",
                        prefix(request)));
    List<String> locations = new ArrayList<>();
    locations.add(metadata.location());
    for (String property : PATH_PROPERTIES) {
      String path = metadata.properties().get(property);
      if (path != null) {
        locations.add(path);
      }
    }
    return signer.sign(body, locations);
  }

  private Optional<WarehouseStorage> storage(RestRequest request) {
    return Optional.ofNullable(storage.get(prefix(request)));
  }

  private String prefix(RestRequest request) {
    return request.warehouse() == null ? defaultWarehouse : request.warehouse();
  }

  private static List<String> delegation(RestRequest request) {
    List<String> modes = new ArrayList<>();
    request
        .header("X-Iceberg-Access-Delegation")
        .ifPresent(
            value -> {
              for (String mode : value.split(",")) {
                String trimmed = mode.trim().toLowerCase(Locale.ROOT);
                if (trimmed.equals("vended-credentials") || trimmed.equals("remote-signing")) {
                  modes.add(trimmed);
                }
              }
            });
    return modes;
  }

  /**
   * The storage part of a table answer.
   *
   * @param config settings for the client's FileIO
   * @param credentials storage credentials, with the table location as their prefix
   */
  record Access(Map<String, String> config, List<Credential> credentials) {
    static final Access NONE = new Access(Map.of(), List.of());

    Access {
      config = Map.copyOf(config);
      credentials = List.copyOf(credentials);
    }

    boolean isEmpty() {
      return config.isEmpty() && credentials.isEmpty();
    }

    /**
     * What names this access in cache keys and entity tags (a stable text of the settings; the tags
     * are digests, so no secret shows in them).
     */
    String tag() {
      return isEmpty() ? "" : "#access" + new TreeMap<>(config);
    }
  }
}
