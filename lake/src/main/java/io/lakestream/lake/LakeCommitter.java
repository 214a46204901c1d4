package io.lakestream.lake;

import io.lakestream.lake.offsets.TieredOffsets;

/**
 * Commits a round's files into the lake table together with the offsets they reach: the last step
 * of a tiering round ({@link ComposedLakeTierer}), and the only one that changes the table.
 *
 * <p><b>Atomicity.</b> {@link #commit} makes one lake snapshot (Paimon: one commit, which may make
 * an append and a compaction snapshot) that holds the files and records {@code to} ({@link
 * TieredOffsets#SUMMARY_KEY}), on the condition that the table still holds {@link
 * CommittedOffsetsReader.Start#inLake()}: compare-and-swap on the offsets. When the condition does
 * not hold, another tierer committed first: nothing is committed, the files are deleted, and the
 * result is {@link TieringRound.Outcome#LOST_RACE}. After a commit the offsets are also recorded in
 * the catalog's {@link io.lakestream.lake.offsets.TieredOffsetsStore} (a failure there is logged;
 * the next round reconciles it).
 *
 * <p><b>Idempotence.</b> Committing the same round twice commits it once: the second attempt finds
 * the offsets moved and loses the race.
 *
 * <p><b>Failure.</b> An exception before the commit leaves the table as it was and deletes the
 * files. When the outcome of the commit is unknown ({@link
 * org.apache.iceberg.exceptions.CommitStateUnknownException}, or Paimon's failure after its commit)
 * the files are kept, since they may be in the table; the next round finds out from the offsets.
 *
 * <p>Implementations are thread safe.
 *
 * @param <T> the format's handle of an opened lake table ({@link LakeTableCreator})
 * @param <F> the files one round wrote ({@link LakeDataWriter})
 */
public interface LakeCommitter<T, F extends LakeDataWriter.WrittenFiles> {
  /**
   * Commits {@code files} with the offsets {@code to}, if the table still holds {@code
   * start.inLake()}.
   *
   * @return {@link TieringRound.Outcome#COMMITTED} or {@link TieringRound.Outcome#LOST_RACE}
   */
  TieringRound commit(T table, CommittedOffsetsReader.Start start, TieredOffsets to, F files);

  /**
   * Deletes the files of a round that is certainly not committed (its hook failed, say). Logs what
   * it cannot delete; never throws for that.
   */
  void abort(T table, F files);
}
