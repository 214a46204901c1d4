package io.lakestream.lake.offsets;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The catalog's own record of how far each table is tiered: a copy of the offsets of the last
 * snapshot tiering committed, kept outside the table's metadata so that no engine's maintenance of
 * the table (expiring snapshots, dropping the tag {@value TieredOffsets#TAG}) can take it away.
 *
 * <p><b>Which one is the truth.</b> The table's committed state ({@link
 * TieredOffsets#tieredSnapshot}) always wins when it has offsets: the record is written after the
 * commit, so it can only lag behind. A round that finds offsets in the table and a record that
 * differs writes the table's offsets here first (the reconciliation after a process died between
 * its commit and this write). Only when the table has lost its offsets does a round start from the
 * record. A record is kept per table uuid, so a table dropped and created again under its name
 * starts afresh.
 *
 * <p><b>Ordering.</b> {@link #record} never replaces an entry by one of a lower snapshot sequence
 * number, so two tierers (or a slow one) cannot move the record backwards.
 *
 * <p><b>Failure.</b> Methods throw {@link RuntimeException} when the store cannot be reached; a
 * failed {@link #record} leaves the previous entry, which the next round reconciles.
 *
 * <p>Implementations are thread safe and may be shared by several processes.
 */
public interface TieredOffsetsStore {
  /**
   * One table's record.
   *
   * @param table the table's path when it was written (informational: the key is the uuid)
   * @param snapshotId the snapshot whose summary held these offsets
   * @param sequenceNumber that snapshot's sequence number (0 in format-version-1 tables)
   * @param offsets the offsets
   */
  record Entry(TablePath table, long snapshotId, long sequenceNumber, TieredOffsets offsets) {
    public Entry {
      requireNonNull(table, "table is null");
      requireNonNull(offsets, "offsets is null");
    }
  }

  /** Stores nothing and finds nothing: tiering relies on the table's own state alone. */
  TieredOffsetsStore NONE =
      new TieredOffsetsStore() {
        @Override
        public Optional<Entry> load(String tableUuid) {
          return Optional.empty();
        }

        @Override
        public void record(String tableUuid, Entry entry) {}

        @Override
        public void remove(String tableUuid) {}
      };

  /** The record of the table with this uuid, if tiering ever committed to it. */
  Optional<Entry> load(String tableUuid);

  /**
   * Records the offsets of a snapshot tiering committed, or found committed, unless the record
   * already holds a snapshot of a higher sequence number.
   */
  void record(String tableUuid, Entry entry);

  /** Forgets a table's record (when the table is dropped). Idempotent. */
  void remove(String tableUuid);

  /**
   * Brings a record that lags behind the table up to {@code entry}, the offsets the table's own
   * snapshot holds (a round cut short between its commit and its record): records it unless the
   * store already holds the same offsets. The table holds the truth, so a failure is only logged
   * and the next round tries again.
   */
  default void reconcile(String tableUuid, Entry entry) {
    try {
      Optional<Entry> recorded = load(tableUuid);
      if (recorded.isEmpty() || !recorded.get().offsets().equals(entry.offsets())) {
        record(tableUuid, entry);
      }
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(TieredOffsetsStore.class)
          .warn(
              "Cannot bring the catalog's record of {}'s tiered offsets up to date",
              entry.table(),
              e);
    }
  }
}
