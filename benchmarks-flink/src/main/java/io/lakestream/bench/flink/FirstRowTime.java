package io.lakestream.bench.flink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.types.Row;

/**
 * Generates the wide row of each index of a Flink job's sequence and notes when the first was
 * generated. The job runs on a local MiniCluster in this JVM at parallelism 1, so one instance in
 * one task thread writes the static field; the benchmark thread reads it after the job has ended.
 */
final class FirstRowTime implements MapFunction<Long, Row> {
  private static volatile long firstNanos;

  static void reset() {
    firstNanos = 0;
  }

  static long nanos() {
    return firstNanos;
  }

  @Override
  public Row map(Long index) {
    if (firstNanos == 0) {
      firstNanos = System.nanoTime();
    }
    return WideRows.row(index);
  }
}
