package io.lakestream.lake;

import io.lakestream.client.TablePath;

/**
 * Tiers streaming tables into one lake format: the committer with offsets. A round reads each
 * bucket's log from the offsets the lake table has committed to the high watermark (ranges planned
 * by {@link io.lakestream.scan.LogRangePlanner}), writes the format's data files and commits them
 * in one lake snapshot that records the offsets it reaches ({@link
 * io.lakestream.lake.offsets.TieredOffsets}), atomically: a commit whose base moved commits
 * nothing.
 *
 * <p>Implementations are thread safe: rounds of different tables may run concurrently.
 */
public interface LakeTierer {
  /**
   * Runs one round for a table.
   *
   * @throws io.lakestream.lake.TieringException when the round cannot tier the table; nothing was
   *     committed
   */
  TieringRound tierOnce(TablePath path);
}
