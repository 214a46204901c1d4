package io.lakestream.storage;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The file access of one warehouse: the {@link FileIO} the server writes metadata with, and what
 * clients that ask for delegated access get (nothing for local storage, which clients reach through
 * their own file system).
 *
 * @param clientConfig storage settings without secrets (region, endpoint, addressing) that clients
 *     need to reach the warehouse's files
 * @param staticCredentials the server's own S3 keys as client settings, only when {@code
 *     s3.vend-static-credentials} allows handing them out; empty otherwise
 * @param signer signs clients' S3 requests inside a table's locations (Iceberg remote signing);
 *     empty for local storage
 */
public record WarehouseStorage(
    StorageKind kind,
    FileIO io,
    Map<String, String> clientConfig,
    Map<String, String> staticCredentials,
    Optional<S3RequestSigner> signer) {
  public WarehouseStorage {
    requireNonNull(kind, "kind is null");
    requireNonNull(io, "io is null");
    clientConfig = Map.copyOf(clientConfig);
    staticCredentials = Map.copyOf(staticCredentials);
    requireNonNull(signer, "signer is null");
  }

  /** Opens the storage of a warehouse location. */
  public static WarehouseStorage open(String location, StorageConfig config) {
    return switch (StorageKind.of(location)) {
      case LOCAL ->
          new WarehouseStorage(
              StorageKind.LOCAL, new LocalFileIO(), Map.of(), Map.of(), Optional.empty());
      case S3 -> {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("client.region", config.s3Region());
        properties.put("s3.path-style-access", Boolean.toString(config.s3PathStyleAccess()));
        if (config.s3Endpoint() != null) {
          properties.put("s3.endpoint", config.s3Endpoint());
        }
        Map<String, String> keys = new LinkedHashMap<>();
        if (config.s3AccessKeyId() != null) {
          keys.put("s3.access-key-id", config.s3AccessKeyId());
        }
        if (config.s3SecretAccessKey() != null) {
          keys.put("s3.secret-access-key", config.s3SecretAccessKey());
        }
        Map<String, String> server = new LinkedHashMap<>(properties);
        server.putAll(keys);
        server.put("http-client.type", "urlconnection");
        S3FileIO io = new S3FileIO();
        io.initialize(server);
        AwsCredentialsProvider credentials =
            config.s3AccessKeyId() != null && config.s3SecretAccessKey() != null
                ? StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(config.s3AccessKeyId(), config.s3SecretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
        yield new WarehouseStorage(
            StorageKind.S3,
            io,
            properties,
            config.s3VendStaticCredentials() ? keys : Map.of(),
            Optional.of(new S3RequestSigner(credentials, config.s3Region(), config.s3Endpoint())));
      }
    };
  }
}
