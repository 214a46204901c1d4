package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarehouseCatalogTest {
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private WarehouseCatalog catalog;

  @BeforeEach
  void open() {
    store = JdbcMetadataStore.open("jdbc:sqlite:" + directory.resolve("catalog.db"), null, null, 2);
    catalog =
        new WarehouseCatalog(
            "main",
            directory.toUri().toString(),
            store,
            new LocalFileIO(),
            new MetadataCache(16),
            Map.of(),
            CommitValidator.NONE);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** A second commit to the same table waits until the first is done. */
  @Test
  void commitsToOneTableRunOneAtATime() throws Exception {
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () ->
                catalog.commitExclusively(
                    ORDERS,
                    () -> {
                      firstInside.countDown();
                      await(releaseFirst);
                      return null;
                    }));
    assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();

    CountDownLatch secondInside = new CountDownLatch(1);
    Thread second =
        Thread.ofPlatform()
            .start(
                () ->
                    catalog.commitExclusively(
                        ORDERS,
                        () -> {
                          secondInside.countDown();
                          return null;
                        }));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (second.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(second.getState()).isEqualTo(Thread.State.WAITING);
    assertThat(secondInside.getCount()).isEqualTo(1);

    releaseFirst.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertThat(secondInside.await(10, TimeUnit.SECONDS)).isTrue();
    second.join();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
