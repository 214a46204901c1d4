package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.Namespace;
import org.junit.jupiter.api.Test;
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

  /**
   * SQLite has one writer at a time: write transactions of the process queue for its write lock
   * instead of polling the database's lock with sleeps.
   */
  @Test
  void writesQueueForTheProcessWriteLock() throws Exception {
    JdbcMetadataStore store = (JdbcMetadataStore) createDatabase().open();
    try {
      store.ensureWarehouse("main", "file:/lake");
      store.writeLock().lock();
      Thread writer;
      try {
        writer =
            Thread.ofPlatform()
                .start(() -> store.createNamespace("main", Namespace.of("queued"), Map.of()));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (writer.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(writer.getState()).isEqualTo(Thread.State.WAITING);
        assertThat(store.loadNamespace("main", Namespace.of("queued"))).isEmpty();
      } finally {
        store.writeLock().unlock();
      }
      writer.join(Duration.ofSeconds(10));
      assertThat(store.loadNamespace("main", Namespace.of("queued"))).contains(Map.of());
    } finally {
      store.close();
    }
  }
}
