package io.lakestream.storage;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where warehouses keep their files: local directories ({@code file:} locations) and S3-compatible
 * object storage ({@code s3://bucket/prefix}), with one set of S3 settings for every S3 warehouse.
 *
 * @param warehouses warehouses beyond the default one, by name, each with its location
 * @param allowedLocations locations besides each warehouse's own under which tables, views and
 *     namespaces may be placed; empty: a warehouse's tables stay under its location
 * @param s3VendStaticCredentials whether clients that ask for vended credentials get the configured
 *     S3 keys themselves (which reach everything the keys reach) instead of remote signing scoped
 *     to the table's location
 */
public record StorageConfig(
    Map<String, String> warehouses,
    List<String> allowedLocations,
    String s3Endpoint,
    String s3Region,
    String s3AccessKeyId,
    String s3SecretAccessKey,
    boolean s3PathStyleAccess,
    boolean s3VendStaticCredentials) {

  public static final ConfigKey<String> WAREHOUSES =
      ConfigKey.derivedString(
          "catalog.warehouses",
          "(none)",
          "More warehouses: name=location,name=location (file:/dir or s3://bucket/prefix)");
  public static final ConfigKey<String> ALLOWED_LOCATIONS =
      ConfigKey.derivedString(
          "catalog.allowed-locations",
          "(none)",
          "Locations besides the warehouse's own where tables, views and namespaces may be placed:"
              + " file:/dir,s3://bucket/prefix,...");
  public static final ConfigKey<String> S3_ENDPOINT =
      ConfigKey.derivedString(
          "s3.endpoint", "(AWS)", "Endpoint of S3-compatible storage, e.g. http://minio:9000");
  public static final ConfigKey<String> S3_REGION =
      ConfigKey.string("s3.region", "us-east-1", "Region of the S3 storage");
  public static final ConfigKey<String> S3_ACCESS_KEY_ID =
      ConfigKey.derivedString("s3.access-key-id", "(none)", "Access key id for S3 storage");
  public static final ConfigKey<String> S3_SECRET_ACCESS_KEY =
      ConfigKey.secret("s3.secret-access-key", "Secret access key for S3 storage");
  public static final ConfigKey<Boolean> S3_PATH_STYLE_ACCESS =
      ConfigKey.bool(
          "s3.path-style-access",
          false,
          "Address buckets by path (MinIO and most S3-compatible servers need true)");
  public static final ConfigKey<Boolean> S3_VEND_STATIC_CREDENTIALS =
      ConfigKey.bool(
          "s3.vend-static-credentials",
          false,
          "Hand the configured S3 keys themselves to clients that ask for vended credentials"
              + " (unscoped: they reach all the keys reach); off: such clients get remote signing"
              + " confined to the table's location");

  public static final List<ConfigKey<?>> KEYS =
      List.of(
          WAREHOUSES,
          ALLOWED_LOCATIONS,
          S3_ENDPOINT,
          S3_REGION,
          S3_ACCESS_KEY_ID,
          S3_SECRET_ACCESS_KEY,
          S3_PATH_STYLE_ACCESS,
          S3_VEND_STATIC_CREDENTIALS);

  public StorageConfig {
    warehouses = Map.copyOf(warehouses);
    allowedLocations = List.copyOf(allowedLocations);
    requireNonNull(s3Region, "s3Region is null");
  }

  public static StorageConfig from(Configuration configuration) {
    return new StorageConfig(
        parseWarehouses(configuration.get(WAREHOUSES)),
        parseAllowedLocations(configuration.get(ALLOWED_LOCATIONS)),
        configuration.get(S3_ENDPOINT),
        configuration.get(S3_REGION),
        configuration.get(S3_ACCESS_KEY_ID),
        configuration.get(S3_SECRET_ACCESS_KEY),
        configuration.get(S3_PATH_STYLE_ACCESS),
        configuration.get(S3_VEND_STATIC_CREDENTIALS));
  }

  private static List<String> parseAllowedLocations(String text) {
    if (text == null || text.isBlank()) {
      return List.of();
    }
    List<String> locations = new java.util.ArrayList<>();
    for (String entry : text.split(",")) {
      String location = entry.trim();
      if (location.isEmpty()) {
        continue;
      }
      StorageKind.of(location);
      try {
        io.lakestream.catalog.TableLocations.canonical(location);
      } catch (RuntimeException e) {
        throw new ConfigException(
            "Invalid catalog.allowed-locations entry '" + location + "': " + e.getMessage());
      }
      locations.add(location);
    }
    return locations;
  }

  private static Map<String, String> parseWarehouses(String text) {
    Map<String, String> warehouses = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return warehouses;
    }
    for (String entry : text.split(",")) {
      int equals = entry.indexOf('=');
      if (equals <= 0 || equals == entry.length() - 1) {
        throw new ConfigException(
            "Invalid catalog.warehouses entry '" + entry.trim() + "': expected name=location");
      }
      String name = entry.substring(0, equals).trim();
      String location = entry.substring(equals + 1).trim();
      if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
        throw new ConfigException(
            "Invalid warehouse name '"
                + name
                + "' in catalog.warehouses: use letters, digits, _ and -");
      }
      StorageKind.of(location);
      if (warehouses.put(name, location) != null) {
        throw new ConfigException("Warehouse '" + name + "' appears twice in catalog.warehouses");
      }
    }
    return warehouses;
  }

  @Override
  public String toString() {
    return "StorageConfig[warehouses="
        + warehouses
        + ", allowedLocations="
        + allowedLocations
        + ", s3Endpoint="
        + s3Endpoint
        + ", s3Region="
        + s3Region
        + ", s3PathStyleAccess="
        + s3PathStyleAccess
        + ", s3VendStaticCredentials="
        + s3VendStaticCredentials
        + "]";
  }
}
