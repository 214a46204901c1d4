package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.IdempotencyStore.KeyClaimedException;
import io.lakestream.catalog.IdempotencyStore.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Idempotency keys recorded by the metadata store's own transactions, on an SQLite file. */
class JdbcIdempotencyStoreTest {
  private static final String WAREHOUSE = "main";
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final long LIFETIME = 60_000;

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private JdbcIdempotencyStore keys;

  @BeforeEach
  void open() {
    store = JdbcMetadataStore.open("jdbc:sqlite:" + directory.resolve("catalog.db"), null, null, 4);
    keys = new JdbcIdempotencyStore(store);
    store.ensureWarehouse(WAREHOUSE, "file:/lake");
    store.createNamespace(WAREHOUSE, Namespace.of("sales"), Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/v1");
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * The answer declared before a change is stored by the change's own transaction: nothing after it
   * (which a crash could prevent) is needed for a retry to get it.
   */
  @Test
  void declaredAnswerIsCompletedByTheChangesTransaction() {
    IdempotencyClaim claim = new IdempotencyClaim("key-1", "request-a", 1_000, LIFETIME);
    Outcome answer = new Outcome(200, Map.of("ETag", "\"v2\""), "{\"committed\":\"v2\"}");
    claim.answerOnCommit(committed -> answer);

    keys.runClaiming(claim, () -> swap("file:/v1", "file:/v2"));

    assertThat(claim.recorded()).isTrue();
    assertThat(claim.completedOutcome()).contains(answer);
    assertThat(keys.find("key-1", 2_000))
        .contains(new IdempotencyStore.Existing("request-a", java.util.Optional.of(answer)));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS).orElseThrow().metadataLocation())
        .isEqualTo("file:/v2");
  }

  /** Without a declared answer the key is only claimed, and its outcome is stored afterwards. */
  @Test
  void undeclaredAnswerLeavesTheKeyInProgressUntilCompleted() {
    IdempotencyClaim claim = new IdempotencyClaim("key-2", "request-b", 1_000, LIFETIME);

    keys.runClaiming(claim, () -> swap("file:/v1", "file:/v2"));

    assertThat(claim.recorded()).isTrue();
    assertThat(claim.completedOutcome()).isEmpty();
    assertThat(keys.find("key-2", 2_000).orElseThrow().outcome()).isEmpty();
    Outcome outcome = new Outcome(204, Map.of(), null);
    assertThat(keys.complete(claim, outcome)).isTrue();
    assertThat(keys.find("key-2", 2_000).orElseThrow().outcome()).contains(outcome);
  }

  /**
   * The record of a request that changed nothing commits without its own fsync, on a connection set
   * to synchronous=NORMAL for it; every pooled connection is back at FULL afterwards, so the
   * catalog's own changes stay durable.
   */
  @Test
  void refusalsAreStoredAndLeaveEveryConnectionFullySynchronous() throws Exception {
    for (int i = 0; i < 8; i++) {
      IdempotencyClaim refused = new IdempotencyClaim("refused-" + i, "request", 1_000, LIFETIME);
      Outcome conflict = new Outcome(409, Map.of(), "{\"error\":{\"code\":409}}");
      assertThat(keys.complete(refused, conflict)).isTrue();
      assertThat(keys.find("refused-" + i, 2_000).orElseThrow().outcome()).contains(conflict);
    }
    List<java.sql.Connection> pooled = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        pooled.add(store.dataSource().getConnection());
      }
      for (java.sql.Connection connection : pooled) {
        try (java.sql.Statement statement = connection.createStatement();
            java.sql.ResultSet synchronous = statement.executeQuery("PRAGMA synchronous")) {
          assertThat(synchronous.next()).isTrue();
          assertThat(synchronous.getInt(1)).as("synchronous of a pooled connection").isEqualTo(2);
        }
      }
    } finally {
      for (java.sql.Connection connection : pooled) {
        connection.close();
      }
    }
  }

  @Test
  void failedChangeRecordsNeitherKeyNorAnswer() {
    IdempotencyClaim claim = new IdempotencyClaim("key-3", "request-c", 1_000, LIFETIME);
    claim.answerOnCommit(committed -> new Outcome(204, Map.of(), null));

    assertThatThrownBy(() -> keys.runClaiming(claim, () -> swap("file:/stale", "file:/v2")))
        .isInstanceOf(CommitFailedException.class);

    assertThat(claim.recorded()).isFalse();
    assertThat(claim.completedOutcome()).isEmpty();
    assertThat(keys.find("key-3", 2_000)).isEmpty();
  }

  /** A repeat whose change commits after the first one's is rolled back, change and all. */
  @Test
  void repeatOfACompletedKeyCannotCommitItsChange() {
    IdempotencyClaim first = new IdempotencyClaim("key-4", "request-d", 1_000, LIFETIME);
    first.answerOnCommit(committed -> new Outcome(204, Map.of(), null));
    keys.runClaiming(first, () -> swap("file:/v1", "file:/v2"));

    IdempotencyClaim repeat = new IdempotencyClaim("key-4", "request-d", 1_500, LIFETIME);
    repeat.answerOnCommit(committed -> new Outcome(204, Map.of(), null));
    assertThatThrownBy(() -> keys.runClaiming(repeat, () -> swap("file:/v2", "file:/v3")))
        .isInstanceOf(KeyClaimedException.class);

    assertThat(store.loadEntity(WAREHOUSE, ORDERS).orElseThrow().metadataLocation())
        .isEqualTo("file:/v2");
    assertThat(repeat.recorded()).isFalse();
  }

  /**
   * Completions that queue behind the write lock are stored together; of two requests completing
   * one new key, exactly one stores its outcome.
   */
  @Test
  void queuedCompletionsAreStoredTogetherAndKeysStayUnique() throws Exception {
    List<IdempotencyClaim> claims =
        List.of(
            new IdempotencyClaim("key-5", "request-e", 1_000, LIFETIME),
            new IdempotencyClaim("key-6", "request-f", 1_000, LIFETIME),
            new IdempotencyClaim("key-5", "request-g", 1_000, LIFETIME));
    List<java.util.concurrent.CompletableFuture<Boolean>> results = new java.util.ArrayList<>();
    List<Thread> threads = new java.util.ArrayList<>();
    store.writeLock().lock();
    try {
      for (IdempotencyClaim claim : claims) {
        java.util.concurrent.CompletableFuture<Boolean> result =
            new java.util.concurrent.CompletableFuture<>();
        results.add(result);
        threads.add(
            Thread.ofPlatform()
                .start(
                    () ->
                        result.complete(
                            keys.complete(
                                claim, new Outcome(409, Map.of(), claim.fingerprint())))));
      }
      long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
      while (threads.stream().anyMatch(thread -> thread.getState() != Thread.State.WAITING)
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(threads).allMatch(thread -> thread.getState() == Thread.State.WAITING);
    } finally {
      store.writeLock().unlock();
    }
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(results.get(1).get()).isTrue();
    assertThat(List.of(results.get(0).get(), results.get(2).get()))
        .containsExactlyInAnyOrder(true, false);
    String winner = results.get(0).get() ? "request-e" : "request-g";
    IdempotencyStore.Existing key5 = keys.find("key-5", 2_000).orElseThrow();
    assertThat(key5.fingerprint()).isEqualTo(winner);
    assertThat(key5.outcome().orElseThrow().body()).isEqualTo(winner);
    assertThat(keys.find("key-6", 2_000).orElseThrow().outcome().orElseThrow().status())
        .isEqualTo(409);
  }

  private Void swap(String expected, String next) {
    IdempotencyClaim.unrecorded().ifPresent(claim -> claim.prepareAnswer(null));
    store.swap(WAREHOUSE, List.of(new PointerSwap(ORDERS, EntityKind.TABLE, expected, next)));
    return null;
  }
}
