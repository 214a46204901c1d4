package io.lakestream.bench.flink;

import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;

/**
 * Maps index {@code i} of a sequence to the {@code i}th of some rows held in memory, round robin:
 * Flink's own pipeline moving rows without reading them from anywhere, the ceiling of what a source
 * can be given. The job runs on a local MiniCluster in this JVM, so the rows are handed over in a
 * static field set before the job starts.
 */
final class PrebuiltRows implements MapFunction<Long, RowData> {
  private static volatile RowData[] rows = new RowData[0];

  static void set(List<RowData> sample) {
    rows = sample.toArray(RowData[]::new);
  }

  @Override
  public RowData map(Long index) {
    RowData[] all = rows;
    return all[(int) (index % all.length)];
  }
}
