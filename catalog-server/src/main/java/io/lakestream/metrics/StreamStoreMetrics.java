package io.lakestream.metrics;

import static java.util.Objects.requireNonNull;

import io.lakestream.store.LatencyHistogram;
import io.lakestream.store.StreamTable;
import io.lakestream.store.TableResolver;
import io.lakestream.store.kv.KvManager;
import io.lakestream.store.kv.KvTabletStatistics;
import io.lakestream.store.log.LogManager;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The stream store's metrics per table, partition and bucket, read at scrape time from the tablets
 * open on this node (their counters are plain fields and adders bumped once per batch or request,
 * so the write path pays nothing more):
 *
 * <ul>
 *   <li>log: {@code lakestream_log_appended_rows_total} and {@code
 *       lakestream_log_appended_bytes_total} (since the bucket's log opened; a primary-key table's
 *       changelog records count), the gauges {@code lakestream_log_end_offset}, {@code
 *       lakestream_log_start_offset}, {@code lakestream_log_high_watermark} and {@code
 *       lakestream_log_size_bytes};
 *   <li>primary-key state: {@code lakestream_kv_upserted_rows_total}, {@code
 *       lakestream_kv_deleted_rows_total} and the histogram {@code
 *       lakestream_kv_lookup_duration_seconds}; and for the node, {@code
 *       lakestream_kv_block_cache_usage_bytes} (RocksDB's shared block cache with the memtables
 *       charged to it).
 * </ul>
 *
 * Labels: {@code warehouse}, {@code namespace} (levels joined by {@code .}), {@code table}, {@code
 * partition} (empty for an unpartitioned table) and {@code bucket}. A tablet whose table the
 * resolver no longer knows (dropped a moment ago) is left out. Counters start from zero when a
 * tablet opens (a restart, or a partition reopened after retention closed it), which Prometheus's
 * {@code rate} treats as a reset. Thread safe.
 */
final class StreamStoreMetrics implements MultiCollector {
  static final String APPENDED_ROWS = "lakestream_log_appended_rows";
  static final String APPENDED_BYTES = "lakestream_log_appended_bytes";
  static final String END_OFFSET = "lakestream_log_end_offset";
  static final String START_OFFSET = "lakestream_log_start_offset";
  static final String HIGH_WATERMARK = "lakestream_log_high_watermark";
  static final String SIZE = "lakestream_log_size_bytes";
  static final String UPSERTED_ROWS = "lakestream_kv_upserted_rows";
  static final String DELETED_ROWS = "lakestream_kv_deleted_rows";
  static final String LOOKUP_DURATION = "lakestream_kv_lookup_duration_seconds";
  static final String BLOCK_CACHE = "lakestream_kv_block_cache_usage_bytes";

  private static final double[] LOOKUP_BOUNDS = withInfinity(LatencyHistogram.UPPER_BOUNDS_SECONDS);

  private final LogManager logs;
  private final KvManager kvs;
  private final Supplier<TableResolver> resolver;

  /**
   * @param resolver the tables by id; null until the server has one, and while it is null the
   *     per-bucket metrics are empty
   */
  StreamStoreMetrics(LogManager logs, KvManager kvs, Supplier<TableResolver> resolver) {
    this.logs = requireNonNull(logs, "logs is null");
    this.kvs = requireNonNull(kvs, "kvs is null");
    this.resolver = requireNonNull(resolver, "resolver is null");
  }

  /** Prometheus's classic bucket bounds: the given ones and {@code +Inf}. */
  static double[] withInfinity(List<Double> bounds) {
    double[] all = new double[bounds.size() + 1];
    for (int i = 0; i < bounds.size(); i++) {
      all[i] = bounds.get(i);
    }
    all[bounds.size()] = Double.POSITIVE_INFINITY;
    return all;
  }

  @Override
  public MetricSnapshots collect() {
    List<CounterSnapshot.CounterDataPointSnapshot> appendedRows = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> appendedBytes = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> endOffsets = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> startOffsets = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> highWatermarks = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> sizes = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> upserted = new ArrayList<>();
    List<CounterSnapshot.CounterDataPointSnapshot> deleted = new ArrayList<>();
    List<HistogramSnapshot.HistogramDataPointSnapshot> lookups = new ArrayList<>();
    TableResolver tables = resolver.get();
    if (tables != null) {
      Map<String, Optional<Labels>> tableLabels = new HashMap<>();
      logs.forEachTablet(
          (tableId, partition, bucket, tablet) -> {
            Optional<Labels> labels = labels(tables, tableLabels, tableId, partition, bucket);
            if (labels.isEmpty()) {
              return;
            }
            appendedRows.add(counter(tablet.appendedRecords(), labels.get()));
            appendedBytes.add(counter(tablet.appendedBytes(), labels.get()));
            endOffsets.add(gauge(tablet.logEndOffset(), labels.get()));
            startOffsets.add(gauge(tablet.logStartOffset(), labels.get()));
            highWatermarks.add(gauge(tablet.highWatermark(), labels.get()));
            sizes.add(gauge(tablet.sizeInBytes(), labels.get()));
          });
      kvs.forEachTablet(
          (tableId, partition, bucket, tablet) -> {
            Optional<Labels> labels = labels(tables, tableLabels, tableId, partition, bucket);
            if (labels.isEmpty()) {
              return;
            }
            KvTabletStatistics statistics = tablet.statistics();
            upserted.add(counter(statistics.upsertedRows(), labels.get()));
            deleted.add(counter(statistics.deletedRows(), labels.get()));
            LatencyHistogram.Snapshot latencies = statistics.lookupLatencies();
            lookups.add(
                new HistogramSnapshot.HistogramDataPointSnapshot(
                    ClassicHistogramBuckets.of(LOOKUP_BOUNDS, latencies.counts()),
                    latencies.sumSeconds(),
                    labels.get(),
                    null,
                    0));
          });
    }
    return MetricSnapshots.of(
        new CounterSnapshot(
            new MetricMetadata(
                APPENDED_ROWS,
                "Rows appended to each bucket's log since it opened (a primary-key table's"
                    + " changelog rows included; retried batches not counted)"),
            appendedRows),
        new CounterSnapshot(
            new MetricMetadata(
                APPENDED_BYTES,
                "Bytes of the batches appended to each bucket's log since it opened"),
            appendedBytes),
        new GaugeSnapshot(
            new MetricMetadata(END_OFFSET, "Offset the next row appended to each bucket will take"),
            endOffsets),
        new GaugeSnapshot(
            new MetricMetadata(
                START_OFFSET, "First offset still in each bucket's log (retention moves it)"),
            startOffsets),
        new GaugeSnapshot(
            new MetricMetadata(
                HIGH_WATERMARK, "End of the durable part of each bucket's log, which readers see"),
            highWatermarks),
        new GaugeSnapshot(
            new MetricMetadata(SIZE, "Bytes of each bucket's log segments on disk"), sizes),
        new CounterSnapshot(
            new MetricMetadata(
                UPSERTED_ROWS,
                "Rows upserted (whole or partial) into each bucket of a primary-key table since its"
                    + " state opened"),
            upserted),
        new CounterSnapshot(
            new MetricMetadata(
                DELETED_ROWS,
                "Rows deleted from each bucket of a primary-key table since its state opened"),
            deleted),
        new HistogramSnapshot(
            new MetricMetadata(
                LOOKUP_DURATION,
                "Time to answer a lookup request (point or prefix) on each bucket of a primary-key"
                    + " table"),
            lookups),
        new GaugeSnapshot(
            new MetricMetadata(
                BLOCK_CACHE,
                "Bytes in RocksDB's block cache that every primary-key bucket shares, memtables"
                    + " included"),
            List.of(gauge(kvs.blockCacheUsageBytes(), Labels.EMPTY))));
  }

  /** A bucket's labels, its table's looked up once per scrape; empty for an unknown table. */
  private static Optional<Labels> labels(
      TableResolver tables,
      Map<String, Optional<Labels>> known,
      String tableId,
      String partition,
      int bucket) {
    Optional<Labels> table =
        known.computeIfAbsent(
            tableId,
            id -> {
              Optional<StreamTable> resolved;
              try {
                resolved = tables.resolveById(id);
              } catch (RuntimeException e) {
                resolved = Optional.empty(); // the catalog is unreachable now: left out this time
              }
              return resolved.map(
                  found ->
                      Labels.of(
                          "warehouse",
                          found.warehouse(),
                          "namespace",
                          String.join(".", found.namespace()),
                          "table",
                          found.name()));
            });
    return table.map(
        labels ->
            labels.merge(Labels.of("partition", partition, "bucket", Integer.toString(bucket))));
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(
        APPENDED_ROWS,
        APPENDED_BYTES,
        END_OFFSET,
        START_OFFSET,
        HIGH_WATERMARK,
        SIZE,
        UPSERTED_ROWS,
        DELETED_ROWS,
        LOOKUP_DURATION,
        BLOCK_CACHE);
  }

  private static GaugeSnapshot.GaugeDataPointSnapshot gauge(double value, Labels labels) {
    return new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null);
  }

  private static CounterSnapshot.CounterDataPointSnapshot counter(double value, Labels labels) {
    return new CounterSnapshot.CounterDataPointSnapshot(value, labels, null, 0);
  }
}
