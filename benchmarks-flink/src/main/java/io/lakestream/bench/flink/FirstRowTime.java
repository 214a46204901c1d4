package io.lakestream.bench.flink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;

/**
 * Generates the wide row of each index of a Flink job's sequence and notes when the first was
 * generated. The job runs on a local MiniCluster in this JVM at parallelism 1, so one instance in
 * one task thread writes the static field; the benchmark thread reads it after the job has ended.
 */
final class FirstRowTime implements MapFunction<Long, RowData> {
  private static volatile long firstNanos;

  static void reset() {
    firstNanos = 0;
  }

  static long nanos() {
    return firstNanos;
  }

  private transient BinaryRowData row;
  private transient BinaryRowWriter writer;

  @Override
  public RowData map(Long index) {
    if (firstNanos == 0) {
      firstNanos = System.nanoTime();
    }
    if (row == null) {
      row = new BinaryRowData(WideRows.COLUMNS);
      writer = new BinaryRowWriter(row);
    }
    // One row filled in place for every index: without object reuse (Flink's default) the next
    // operator is handed a copy of it.
    return WideRows.binaryRow(index, row, writer);
  }
}
