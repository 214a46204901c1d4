package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;

/**
 * Reads the offsets a lake table's committed state holds: how far each bucket's log is in its
 * latest snapshot ({@link TieredOffsets}), which is where a tiering round starts.
 *
 * <p><b>Which offsets.</b> The lake table's own state wins when it has offsets (the summary or
 * properties of its newest snapshot that has them, else of its tagged snapshot {@value
 * TieredOffsets#TAG}); only a table that lost them starts from the catalog's {@link
 * TieredOffsetsStore} record, and a table that was tiered and has neither makes the round fail
 * rather than start again from 0.
 *
 * <p><b>Side effects.</b> A read for a round brings the store's record up to the table's offsets
 * when it lags behind (a process died between a commit and its record); a failure to do so is
 * logged, never thrown.
 *
 * <p>Implementations are thread safe.
 *
 * @param <T> the format's handle of an opened lake table ({@link LakeTableCreator})
 */
@FunctionalInterface
public interface CommittedOffsetsReader<T> {
  /**
   * The offsets a round of {@code table} starts from.
   *
   * @throws TieringException when the table was tiered before and neither it nor the store holds
   *     its offsets
   * @throws IllegalArgumentException when the table's offsets are not valid offsets JSON
   */
  Start read(TablePath path, T table);

  /**
   * Where a round starts.
   *
   * @param from the offsets the round reads the log from
   * @param inLake the offsets the lake table's committed state holds, which the round's commit must
   *     still find there ({@link LakeCommitter}); {@link TieredOffsets#NONE} when the table lost
   *     them and {@code from} is the catalog's record
   */
  record Start(TieredOffsets from, TieredOffsets inLake) {
    public Start {
      requireNonNull(from, "from is null");
      requireNonNull(inLake, "inLake is null");
    }

    /** A start whose offsets the lake table holds itself. */
    public static Start inLake(TieredOffsets offsets) {
      return new Start(offsets, offsets);
    }
  }
}
