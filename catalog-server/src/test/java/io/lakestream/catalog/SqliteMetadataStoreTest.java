package io.lakestream.catalog;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;

/** The metadata store contract on an SQLite file, as a single server uses it by default. */
class SqliteMetadataStoreTest extends MetadataStoreConformanceTest {
  private final AtomicInteger databases = new AtomicInteger();

  @TempDir Path directory;

  @Override
  protected Database createDatabase() {
    String url =
        "jdbc:sqlite:" + directory.resolve("catalog-" + databases.incrementAndGet() + ".db");
    return () -> JdbcMetadataStore.open(url, null, null, 4);
  }
}
