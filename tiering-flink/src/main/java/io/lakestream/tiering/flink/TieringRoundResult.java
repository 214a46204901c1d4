package io.lakestream.tiering.flink;

/**
 * What one round of the job did: a Flink POJO, the output of {@link TieringRoundFunction}.
 *
 * @see io.lakestream.lake.TieringRound
 */
public final class TieringRoundResult {
  /** The table's path. */
  public String table;

  /** The round's outcome ({@code io.lakestream.lake.TieringRound.Outcome}), or {@code FAILED}. */
  public String outcome;

  /** Log rows the round committed. */
  public long rows;

  /** Why the round failed, or null. */
  public String error;

  public long startedAt;
  public long endedAt;

  public TieringRoundResult() {}

  TieringRoundResult(
      String table, String outcome, long rows, String error, long startedAt, long endedAt) {
    this.table = table;
    this.outcome = outcome;
    this.rows = rows;
    this.error = error;
    this.startedAt = startedAt;
    this.endedAt = endedAt;
  }

  @Override
  public String toString() {
    return table
        + ": "
        + outcome
        + " ("
        + rows
        + " rows"
        + (error == null ? ")" : ", " + error + ")");
  }
}
