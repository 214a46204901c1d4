package io.lakestream.storage;

import io.lakestream.config.ConfigException;

/** The kinds of storage a warehouse location can name. */
public enum StorageKind {
  LOCAL,
  S3;

  /**
   * @throws ConfigException for a location of any other scheme
   */
  public static StorageKind of(String location) {
    if (location.startsWith("file:") || location.startsWith("/")) {
      return LOCAL;
    }
    if (location.startsWith("s3://") || location.startsWith("s3a://")) {
      return S3;
    }
    throw new ConfigException(
        "Unsupported warehouse location '" + location + "': use file:/path or s3://bucket/prefix");
  }
}
