package io.lakestream.testing;

import io.lakestream.catalog.CommitValidator;
import io.lakestream.catalog.JdbcMetadataStore;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.catalog.MetadataCache;
import io.lakestream.catalog.MetadataStore;
import io.lakestream.catalog.WarehouseCatalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A warehouse catalog on local files over a SQLite metadata store, without a server: for tests of
 * the catalog itself.
 */
public final class LocalWarehouse {
  private LocalWarehouse() {}

  /** A metadata store in {@code directory/catalog.db} (SQLite, two connections). */
  public static JdbcMetadataStore openStore(Path directory) {
    return JdbcMetadataStore.open("jdbc:sqlite:" + directory.resolve("catalog.db"), null, null, 2);
  }

  /**
   * The warehouse {@code main} at {@code location} in {@code store}, with local file IO, a metadata
   * cache of {@code cacheSize} tables, no client storage settings, no commit validator and no
   * locations besides its own.
   */
  public static WarehouseCatalog catalog(String location, MetadataStore store, int cacheSize) {
    return new WarehouseCatalog(
        "main",
        location,
        store,
        new LocalFileIO(),
        new MetadataCache(cacheSize),
        Map.of(),
        CommitValidator.NONE,
        List.of());
  }
}
