package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata store contract on an SQLite file, as a single server uses it by default. */
class SqliteMetadataStoreTest extends MetadataStoreConformanceTest {
  private final AtomicInteger databases = new AtomicInteger();

  @TempDir Path directory;

  @Override
  protected boolean readsWithoutWaiting() {
    return true;
  }

  @Override
  protected Database createDatabase() {
    String url =
        "jdbc:sqlite:" + directory.resolve("catalog-" + databases.incrementAndGet() + ".db");
    return () -> JdbcMetadataStore.open(url, null, null, 4);
  }

  /**
   * A read without waiting does not wait for a writer that holds the database: it answers the last
   * committed pointer while another connection's write transaction is open, and the new one after.
   */
  @Test
  void readsWithoutWaitingAnswerWhileAnotherConnectionWrites() throws Exception {
    String url = "jdbc:sqlite:" + directory.resolve("busy.db");
    JdbcMetadataStore store = JdbcMetadataStore.open(url, null, null, 2);
    TableIdentifier orders = TableIdentifier.of("sales", "orders");
    try (Connection writer = DriverManager.getConnection(url)) {
      store.ensureWarehouse("main", "file:/lake");
      store.createNamespace("main", Namespace.of("sales"), Map.of());
      store.createEntity("main", orders, EntityKind.TABLE, "file:/v1");
      writer.setAutoCommit(false);
      try (Statement statement = writer.createStatement()) {
        statement.executeUpdate(
            "UPDATE lakestream_entities SET metadata_location = 'file:/v2'"
                + " WHERE metadata_location = 'file:/v1'");
        assertThat(
                store.loadEntityWithoutWaiting("main", orders).map(EntityPointer::metadataLocation))
            .contains("file:/v1");
      }
      writer.commit();
      assertThat(
              store.loadEntityWithoutWaiting("main", orders).map(EntityPointer::metadataLocation))
          .contains("file:/v2");
    } finally {
      store.close();
    }
    assertThat(store.loadEntityWithoutWaiting("main", orders)).isEmpty();
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
