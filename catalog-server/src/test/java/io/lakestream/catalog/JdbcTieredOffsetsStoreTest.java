package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.testing.PostgresExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's record of tiered offsets on SQLite and PostgreSQL: it round-trips, never moves to a
 * lower sequence number, is kept per table uuid and is forgotten on removal.
 */
class JdbcTieredOffsetsStoreTest {
  private static final TablePath PATH = new TablePath("lake", List.of("db", "sub"), "events");

  @TempDir static Path directory;
  @RegisterExtension static final PostgresExtension postgres = new PostgresExtension();

  private static TieredOffsets offsets(long offset) {
    return TieredOffsets.of(Map.of("", Map.of(0, offset, 1, offset + 1)));
  }

  @Test
  void onSqlite() {
    check(
        () ->
            JdbcMetadataStore.open(
                "jdbc:sqlite:" + directory.resolve("catalog.db"), null, null, 4));
  }

  @Test
  void onPostgres() throws Exception {
    String url = postgres.newDatabaseUrl();
    check(() -> JdbcMetadataStore.open(url, postgres.user(), null, 4));
  }

  private static void check(Supplier<JdbcMetadataStore> open) {
    try (JdbcMetadataStore metadata = open.get()) {
      TieredOffsetsStore store = new JdbcTieredOffsetsStore(metadata);
      assertThat(store.load("uuid-1")).isEmpty();

      store.record("uuid-1", new TieredOffsetsStore.Entry(PATH, 11, 5, offsets(100)));
      assertThat(store.load("uuid-1"))
          .contains(new TieredOffsetsStore.Entry(PATH, 11, 5, offsets(100)));

      // A slower tierer's older commit does not move the record back.
      store.record("uuid-1", new TieredOffsetsStore.Entry(PATH, 10, 4, offsets(50)));
      assertThat(store.load("uuid-1").orElseThrow().offsets()).isEqualTo(offsets(100));

      TablePath plain = TablePath.of("db.events");
      store.record("uuid-1", new TieredOffsetsStore.Entry(plain, 12, 6, offsets(150)));
      assertThat(store.load("uuid-1"))
          .contains(new TieredOffsetsStore.Entry(plain, 12, 6, offsets(150)));

      store.record("uuid-2", new TieredOffsetsStore.Entry(PATH, 1, 1, TieredOffsets.NONE));
      store.remove("uuid-1");
      store.remove("uuid-1");
      assertThat(store.load("uuid-1")).isEmpty();
      assertThat(store.load("uuid-2").orElseThrow().offsets()).isEqualTo(TieredOffsets.NONE);
    }
  }
}
