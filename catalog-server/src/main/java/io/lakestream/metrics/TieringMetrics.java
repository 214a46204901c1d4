package io.lakestream.metrics;

import static java.util.Objects.requireNonNull;

import io.lakestream.tiering.TieringStatistics;
import io.lakestream.tiering.TieringStatus;
import io.lakestream.tiering.TieringStatusReader;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Tiering's metrics, read at scrape time from {@link TieringStatusReader#statuses()} and the
 * service's {@link TieringStatistics} (so they are as fresh as the status endpoint and need no
 * bookkeeping of their own):
 *
 * <ul>
 *   <li>gauges per table, partition and bucket: {@code lakestream_tiering_tiered_offset}, {@code
 *       lakestream_tiering_high_watermark}, {@code lakestream_tiering_lag_rows}, {@code
 *       lakestream_tiering_lag_seconds} (age of the oldest record not in the lake yet);
 *   <li>per table, since the process started: the counters {@code lakestream_tiering_rounds_total}
 *       with {@code result} {@code committed} or {@code failed} and {@code
 *       lakestream_tiering_rows_total}, and the histogram {@code
 *       lakestream_tiering_round_duration_seconds} of committed rounds.
 * </ul>
 *
 * Labels: {@code warehouse}, {@code namespace} (levels joined by {@code .}), {@code table}, and for
 * the gauges {@code partition} and {@code bucket}; all bounded by the tables the service tiers. A
 * table whose status cannot be read at scrape time is left out of that scrape. Thread safe.
 */
final class TieringMetrics implements MultiCollector {
  static final String TIERED_OFFSET = "lakestream_tiering_tiered_offset";
  static final String HIGH_WATERMARK = "lakestream_tiering_high_watermark";
  static final String LAG_ROWS = "lakestream_tiering_lag_rows";
  static final String LAG_SECONDS = "lakestream_tiering_lag_seconds";
  static final String ROUNDS = "lakestream_tiering_rounds";
  static final String ROWS = "lakestream_tiering_rows";
  static final String ROUND_DURATION = "lakestream_tiering_round_duration_seconds";

  private static final double[] ROUND_BOUNDS =
      StreamStoreMetrics.withInfinity(TieringStatistics.ROUND_SECONDS_BOUNDS);

  private final Supplier<Optional<TieringStatusReader>> reader;
  private final String defaultWarehouse;

  TieringMetrics(Supplier<Optional<TieringStatusReader>> reader, String defaultWarehouse) {
    this.reader = requireNonNull(reader, "reader is null");
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
  }

  @Override
  public MetricSnapshots collect() {
    Optional<TieringStatusReader> statusReader = reader.get();
    List<TieringStatus> statuses =
        statusReader.map(TieringStatusReader::statuses).orElse(List.of());
    List<GaugeSnapshot.GaugeDataPointSnapshot> tiered = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> highWatermarks = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> lagRows = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> lagSeconds = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> rounds = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> rows = new ArrayList<>();
    List<HistogramSnapshot.HistogramDataPointSnapshot> durations = new ArrayList<>();
    for (TieringStatus status : statuses) {
      String warehouse =
          status.table().warehouse() == null ? defaultWarehouse : status.table().warehouse();
      Labels table =
          Labels.of(
              "warehouse",
              warehouse,
              "namespace",
              String.join(".", status.table().namespace()),
              "table",
              status.table().name());
      for (TieringStatus.BucketStatus bucket : status.buckets()) {
        Labels labels =
            table.merge(
                Labels.of(
                    "partition", bucket.partition(), "bucket", Integer.toString(bucket.bucket())));
        tiered.add(gauge(bucket.tieredOffset(), labels));
        highWatermarks.add(gauge(bucket.highWatermark(), labels));
        lagRows.add(gauge(bucket.lagRows(), labels));
        lagSeconds.add(gauge(bucket.lagSeconds(), labels));
      }
      TieringStatistics.TableTotals totals = status.totals();
      rounds.add(counter(totals.committedRounds(), table.add("result", "committed")));
      rounds.add(counter(totals.failedRounds(), table.add("result", "failed")));
      rows.add(counter(totals.rows(), table));
      TieringStatistics.RoundDurations roundDurations =
          statusReader.get().statistics().roundDurations(status.table());
      durations.add(
          new HistogramSnapshot.HistogramDataPointSnapshot(
              ClassicHistogramBuckets.of(ROUND_BOUNDS, roundDurations.counts()),
              roundDurations.sumSeconds(),
              table,
              null,
              0));
    }
    return MetricSnapshots.of(
        new GaugeSnapshot(
            new MetricMetadata(TIERED_OFFSET, "Next offset to tier of each bucket"), tiered),
        new GaugeSnapshot(
            new MetricMetadata(HIGH_WATERMARK, "High watermark of each bucket's log"),
            highWatermarks),
        new GaugeSnapshot(
            new MetricMetadata(LAG_ROWS, "Records of each bucket not tiered yet"), lagRows),
        new GaugeSnapshot(
            new MetricMetadata(
                LAG_SECONDS, "Age of the oldest record of each bucket not tiered yet, in seconds"),
            lagSeconds),
        new CounterSnapshot(
            new MetricMetadata(ROUNDS, "Tiering rounds since the server started, by result"),
            rounds),
        new CounterSnapshot(
            new MetricMetadata(
                ROWS, "Rows committed to the lake by tiering since the server started"),
            rows),
        new HistogramSnapshot(
            new MetricMetadata(
                ROUND_DURATION,
                "Time from the start of a tiering round to the end of its commit, for rounds that"
                    + " committed a snapshot"),
            durations));
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(
        TIERED_OFFSET, HIGH_WATERMARK, LAG_ROWS, LAG_SECONDS, ROUNDS, ROWS, ROUND_DURATION);
  }

  private static GaugeSnapshot.GaugeDataPointSnapshot gauge(double value, Labels labels) {
    return new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null);
  }

  private static CounterSnapshot.CounterDataPointSnapshot counter(double value, Labels labels) {
    return new CounterSnapshot.CounterDataPointSnapshot(value, labels, null, 0);
  }
}
