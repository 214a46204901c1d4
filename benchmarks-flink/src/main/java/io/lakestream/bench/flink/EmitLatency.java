package io.lakestream.bench.flink;

import java.time.Instant;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;

/**
 * Records, per row of the latency table {@code (id BIGINT, sent_micros BIGINT, pad STRING)}, the
 * time from its send to its emission by the Flink source, into a {@link LatencySamples} shared with
 * the benchmark thread (the job runs on a local MiniCluster in this JVM).
 */
final class EmitLatency implements MapFunction<RowData, RowData> {
  static final LatencySamples SAMPLES = new LatencySamples();

  @Override
  public RowData map(RowData row) {
    SAMPLES.record(row.getLong(0), epochMicros() - row.getLong(1));
    return row;
  }

  /** Wall-clock microseconds, the clock both the writer and the readers use. */
  static long epochMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
