package io.lakestream.bench.flink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;

/**
 * Counts the rows a Flink job emits and notes when the first and the last arrived. The job runs on
 * a local MiniCluster in this JVM at parallelism 1, so one instance in one task thread writes the
 * static fields; the benchmark thread reads them after the job has finished, and resets them before
 * the next job.
 */
final class RowCounter implements MapFunction<RowData, RowData> {
  private static volatile long rows;
  private static volatile long firstNanos;
  private static volatile long lastNanos;

  static void reset() {
    rows = 0;
    firstNanos = 0;
    lastNanos = 0;
  }

  static long rows() {
    return rows;
  }

  /** Nanoseconds from the first row to the last, the rate's interval. */
  static long firstToLastNanos() {
    return lastNanos - firstNanos;
  }

  @Override
  public RowData map(RowData row) {
    long now = System.nanoTime();
    if (rows == 0) {
      firstNanos = now;
    }
    lastNanos = now;
    rows = rows + 1;
    return row;
  }
}
