package io.lakestream.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;

/**
 * Parsed table and view metadata by file location. Metadata files are immutable once the catalog
 * points at them, so an entry never goes stale; the cache only bounds memory (least recently used
 * entries leave first). A table entry keeps the file's JSON text too when the file is uncompressed,
 * so that answers carrying the metadata copy it instead of serializing the parsed form again.
 * Thread safe.
 */
public final class MetadataCache {
  private final Map<String, Object> entries;

  public MetadataCache(int capacity) {
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
            return size() > capacity;
          }
        };
  }

  TableMetadata table(String location, FileIO io) {
    Object cached = get(location);
    if (cached instanceof CachedTable table) {
      return table.metadata();
    }
    byte[] bytes = read(location, io);
    TableMetadata metadata = TableMetadataParser.read(new InMemoryInputFile(location, bytes));
    putTable(location, metadata, bytes);
    return metadata;
  }

  /**
   * Caches the metadata of a file just written, parsed from the bytes written, so that it is what
   * {@link #table} would read from the file.
   *
   * @param bytes the file's bytes as written, or null when they are not at hand
   */
  void putTable(String location, TableMetadata metadata, byte[] bytes) {
    boolean plainJson =
        bytes != null
            && TableMetadataParser.Codec.fromFileName(location) == TableMetadataParser.Codec.NONE;
    put(location, new CachedTable(metadata, plainJson ? bytes : null));
  }

  /**
   * The JSON text of the cached table metadata file at {@code location}: exactly the file's bytes,
   * when the file is cached and uncompressed. Never reads the file.
   */
  Optional<byte[]> tableJson(String location) {
    return get(location) instanceof CachedTable table
        ? Optional.ofNullable(table.json())
        : Optional.empty();
  }

  private static byte[] read(String location, FileIO io) {
    try (InputStream in = io.newInputFile(location).newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new RuntimeIOException(e, "Cannot read table metadata file %s", location);
    }
  }

  ViewMetadata view(String location, FileIO io) {
    Object cached = get(location);
    if (cached instanceof ViewMetadata metadata) {
      return metadata;
    }
    ViewMetadata metadata = ViewMetadataParser.read(io.newInputFile(location));
    put(location, metadata);
    return metadata;
  }

  private synchronized Object get(String location) {
    return entries.get(location);
  }

  private synchronized void put(String location, Object metadata) {
    entries.put(location, metadata);
  }

  /** Parsed table metadata and, for an uncompressed file, its JSON text (null otherwise). */
  private record CachedTable(TableMetadata metadata, byte[] json) {}
}
