package io.lakestream.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;

/**
 * Parsed table and view metadata by file location. Metadata files are immutable once the catalog
 * points at them, so an entry never goes stale; the cache only bounds memory (least recently used
 * entries leave first). Thread safe.
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
    if (cached instanceof TableMetadata metadata) {
      return metadata;
    }
    TableMetadata metadata = TableMetadataParser.read(io, location);
    put(location, metadata);
    return metadata;
  }

  /**
   * Caches the metadata of a file just written, parsed from the bytes written, so that it is what
   * {@link #table} would read from the file.
   */
  void putTable(String location, TableMetadata metadata) {
    put(location, metadata);
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
}
