package io.lakestream.metrics;

import static java.util.Objects.requireNonNull;

import io.lakestream.tiering.TieringStatistics;
import io.lakestream.tiering.TieringStatus;
import io.lakestream.tiering.TieringStatusReader;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Tiering's metrics, read at scrape time from {@link TieringStatusReader#statuses()} (so they are
 * as fresh as the status endpoint and need no bookkeeping of their own):
 *
 * <ul>
 *   <li>gauges per table, partition and bucket: {@code lakestream_tiering_tiered_offset}, {@code
 *       lakestream_tiering_high_watermark}, {@code lakestream_tiering_lag_rows}, {@code
 *       lakestream_tiering_lag_seconds} (age of the oldest record not in the lake yet);
 *   <li>counters per table, since the process started: {@code lakestream_tiering_rounds_total} with
 *       {@code result} {@code committed} or {@code failed}, and {@code
 *       lakestream_tiering_rows_total}.
 * </ul>
 *
 * Labels: {@code warehouse}, {@code table} ({@code namespace.name}), and for the gauges {@code
 * partition} and {@code bucket}; all bounded by the tables the service tiers. A table whose status
 * cannot be read at scrape time is left out of that scrape. Thread safe.
 */
final class TieringMetrics implements MultiCollector {
  private static final List<String> NAMES =
      List.of(
          "lakestream_tiering_tiered_offset",
          "lakestream_tiering_high_watermark",
          "lakestream_tiering_lag_rows",
          "lakestream_tiering_lag_seconds",
          "lakestream_tiering_rounds",
          "lakestream_tiering_rows");

  private final Supplier<Optional<TieringStatusReader>> reader;
  private final String defaultWarehouse;

  TieringMetrics(Supplier<Optional<TieringStatusReader>> reader, String defaultWarehouse) {
    this.reader = requireNonNull(reader, "reader is null");
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
  }

  @Override
  public MetricSnapshots collect() {
    List<TieringStatus> statuses =
        reader.get().map(TieringStatusReader::statuses).orElse(List.of());
    List<GaugeSnapshot.GaugeDataPointSnapshot> tiered = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> highWatermarks = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> lagRows = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> lagSeconds = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> rounds = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> rows = new ArrayList<>();
    for (TieringStatus status : statuses) {
      String warehouse =
          status.table().warehouse() == null ? defaultWarehouse : status.table().warehouse();
      String table = String.join(".", status.table().namespace()) + "." + status.table().name();
      for (TieringStatus.BucketStatus bucket : status.buckets()) {
        Labels labels =
            Labels.of(
                "warehouse",
                warehouse,
                "table",
                table,
                "partition",
                bucket.partition(),
                "bucket",
                Integer.toString(bucket.bucket()));
        tiered.add(gauge(bucket.tieredOffset(), labels));
        highWatermarks.add(gauge(bucket.highWatermark(), labels));
        lagRows.add(gauge(bucket.lagRows(), labels));
        lagSeconds.add(gauge(bucket.lagSeconds(), labels));
      }
      TieringStatistics.TableTotals totals = status.totals();
      Labels labels = Labels.of("warehouse", warehouse, "table", table);
      rounds.add(counter(totals.committedRounds(), labels.add("result", "committed")));
      rounds.add(counter(totals.failedRounds(), labels.add("result", "failed")));
      rows.add(counter(totals.rows(), labels));
    }
    return MetricSnapshots.of(
        new GaugeSnapshot(
            new MetricMetadata(NAMES.get(0), "Next offset to tier of each bucket"), tiered),
        new GaugeSnapshot(
            new MetricMetadata(NAMES.get(1), "High watermark of each bucket's log"),
            highWatermarks),
        new GaugeSnapshot(
            new MetricMetadata(NAMES.get(2), "Records of each bucket not tiered yet"), lagRows),
        new GaugeSnapshot(
            new MetricMetadata(
                NAMES.get(3), "Age of the oldest record of each bucket not tiered yet, seconds"),
            lagSeconds),
        new CounterSnapshot(
            new MetricMetadata(NAMES.get(4), "Tiering rounds since start, by result"), rounds),
        new CounterSnapshot(
            new MetricMetadata(NAMES.get(5), "Rows committed by tiering since start"), rows));
  }

  @Override
  public List<String> getPrometheusNames() {
    return NAMES;
  }

  private static GaugeSnapshot.GaugeDataPointSnapshot gauge(double value, Labels labels) {
    return new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null);
  }

  private static CounterSnapshot.CounterDataPointSnapshot counter(double value, Labels labels) {
    return new CounterSnapshot.CounterDataPointSnapshot(value, labels, null, 0);
  }
}
