package io.lakestream.bench.flink;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;

/**
 * Counts the rows a Flink job emits and notes when the first and the last arrived. The job runs on
 * a local MiniCluster in this JVM at parallelism 1: one instance in one task thread counts in plain
 * fields (a volatile write and a clock read per row cost about as much as a projected row's read)
 * and publishes its counts when the task closes it; the benchmark thread reads them after the job
 * has finished, and resets them before the next job.
 */
final class RowCounter extends RichMapFunction<RowData, RowData> {
  private static volatile long expectedRows;
  private static volatile long rows;
  private static volatile long firstNanos;
  private static volatile long lastNanos;

  private long target;
  private long count;
  private long first;
  private long last;

  /** Before a job: forgets the last job's counts; the clock is read again at row {@code rows}. */
  static void reset(long expected) {
    expectedRows = expected;
    rows = 0;
    firstNanos = 0;
    lastNanos = 0;
  }

  static long rows() {
    return rows;
  }

  /** Nanoseconds from the first row to the expected last one, the rate's interval. */
  static long firstToLastNanos() {
    return lastNanos - firstNanos;
  }

  @Override
  public void open(OpenContext context) {
    target = expectedRows;
  }

  @Override
  public RowData map(RowData row) {
    if (count == 0) {
      first = System.nanoTime();
    }
    if (++count == target) {
      last = System.nanoTime();
    }
    return row;
  }

  @Override
  public void close() {
    firstNanos = first;
    lastNanos = last;
    rows = count;
  }
}
