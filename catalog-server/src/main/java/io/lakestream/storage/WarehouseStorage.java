package io.lakestream.storage;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;

/**
 * The file access of one warehouse: the {@link FileIO} the server writes metadata with, and the
 * settings handed to clients that ask for vended credentials (none for local storage, which clients
 * reach through their own file system).
 */
public record WarehouseStorage(StorageKind kind, FileIO io, Map<String, String> clientConfig) {
  public WarehouseStorage {
    requireNonNull(kind, "kind is null");
    requireNonNull(io, "io is null");
    clientConfig = Map.copyOf(clientConfig);
  }

  /** Opens the storage of a warehouse location. */
  public static WarehouseStorage open(String location, StorageConfig config) {
    return switch (StorageKind.of(location)) {
      case LOCAL -> new WarehouseStorage(StorageKind.LOCAL, new LocalFileIO(), Map.of());
      case S3 -> {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("client.region", config.s3Region());
        properties.put("s3.path-style-access", Boolean.toString(config.s3PathStyleAccess()));
        if (config.s3Endpoint() != null) {
          properties.put("s3.endpoint", config.s3Endpoint());
        }
        if (config.s3AccessKeyId() != null) {
          properties.put("s3.access-key-id", config.s3AccessKeyId());
        }
        if (config.s3SecretAccessKey() != null) {
          properties.put("s3.secret-access-key", config.s3SecretAccessKey());
        }
        Map<String, String> server = new LinkedHashMap<>(properties);
        server.put("http-client.type", "urlconnection");
        S3FileIO io = new S3FileIO();
        io.initialize(server);
        yield new WarehouseStorage(StorageKind.S3, io, properties);
      }
    };
  }
}
