package io.lakestream.lake.offsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.lakestream.client.TablePath;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link TieredOffsetsStore#reconcile}: the catalog's record follows the table's own snapshot when
 * it lags behind, is left alone when it already holds the same offsets, and a store that fails does
 * not fail the round.
 */
class TieredOffsetsStoreTest {
  private static final TablePath PATH = new TablePath("lake", List.of("db"), "events");

  /** A store in a map, counting writes; throws on every call once {@code broken} is set. */
  private static final class MapStore implements TieredOffsetsStore {
    final Map<String, Entry> entries = new HashMap<>();
    int records;
    boolean broken;

    @Override
    public Optional<Entry> load(String tableUuid) {
      if (broken) {
        throw new IllegalStateException("store unreachable");
      }
      return Optional.ofNullable(entries.get(tableUuid));
    }

    @Override
    public void record(String tableUuid, Entry entry) {
      if (broken) {
        throw new IllegalStateException("store unreachable");
      }
      records++;
      entries.put(tableUuid, entry);
    }

    @Override
    public void remove(String tableUuid) {
      entries.remove(tableUuid);
    }
  }

  private static TieredOffsets offsets(long offset) {
    return TieredOffsets.of(Map.of("", Map.of(0, offset)));
  }

  @Test
  void aMissingOrLaggingRecordFollowsTheTable() {
    MapStore store = new MapStore();
    store.reconcile("t", new TieredOffsetsStore.Entry(PATH, 5, 5, offsets(100)));
    assertThat(store.entries.get("t").offsets()).isEqualTo(offsets(100));

    store.reconcile("t", new TieredOffsetsStore.Entry(PATH, 7, 7, offsets(250)));
    assertThat(store.entries.get("t"))
        .isEqualTo(new TieredOffsetsStore.Entry(PATH, 7, 7, offsets(250)));
    assertThat(store.records).isEqualTo(2);
  }

  @Test
  void aRecordWithTheSameOffsetsIsNotWrittenAgain() {
    MapStore store = new MapStore();
    store.record("t", new TieredOffsetsStore.Entry(PATH, 5, 5, offsets(100)));
    // Another engine's snapshot on top carries the same offsets: nothing to bring up to date.
    store.reconcile("t", new TieredOffsetsStore.Entry(PATH, 9, 9, offsets(100)));
    assertThat(store.records).isEqualTo(1);
    assertThat(store.entries.get("t").snapshotId()).isEqualTo(5);
  }

  @Test
  void aFailingStoreDoesNotFailTheCaller() {
    MapStore store = new MapStore();
    store.broken = true;
    assertThatCode(
            () -> store.reconcile("t", new TieredOffsetsStore.Entry(PATH, 5, 5, offsets(100))))
        .doesNotThrowAnyException();
    assertThat(store.entries).isEmpty();
  }
}
