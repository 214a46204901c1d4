package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;

/**
 * What one round did to one table.
 *
 * @param outcome whether it committed, found nothing new, or lost the commit to another tierer
 * @param rows rows committed (0 unless committed)
 * @param files data files committed (0 unless committed)
 * @param snapshotId the snapshot the round committed, or -1
 * @param offsets the table's offsets after the round as far as the round knows: the committed ones
 *     when it committed, those it started from otherwise
 */
public record TieringRound(
    TablePath table,
    Outcome outcome,
    long rows,
    int files,
    long snapshotId,
    TieredOffsets offsets) {
  public enum Outcome {
    COMMITTED,
    UP_TO_DATE,
    LOST_RACE
  }

  public TieringRound {
    requireNonNull(table, "table is null");
    requireNonNull(outcome, "outcome is null");
    requireNonNull(offsets, "offsets is null");
  }
}
