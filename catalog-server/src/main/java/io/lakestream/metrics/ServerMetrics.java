package io.lakestream.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The server's Prometheus metrics: HTTP requests by route and status, their latency, the stream
 * store's appends, offsets and lookups per table and bucket ({@link #registerStreamStore}),
 * tiering's progress per table and bucket ({@link #registerTiering}), and the JVM's and process's
 * own metrics ({@code jvm_*}, {@code process_*}, named by the Prometheus Java client). Every metric
 * is listed in {@code docs/metrics.md}. One instance per server process, each with its own
 * registry, so tests can run several servers in one JVM. Thread safe.
 */
public final class ServerMetrics {
  private static final int FIRST_STATUS = 100;
  private static final String[] STATUS_LABELS = new String[500];

  static {
    for (int i = 0; i < STATUS_LABELS.length; i++) {
      STATUS_LABELS[i] = Integer.toString(FIRST_STATUS + i);
    }
  }

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final Counter requests;
  private final Histogram latency;
  private final Map<String, RouteMetrics> routes = new ConcurrentHashMap<>();

  public ServerMetrics() {
    JvmMetrics.builder().register(registry);
    requests =
        Counter.builder()
            .name("lakestream_http_requests_total")
            .help("HTTP requests served, by route and status code")
            .labelNames("route", "status")
            .register(registry);
    latency =
        Histogram.builder()
            .name("lakestream_http_request_duration_seconds")
            .help("Time to serve an HTTP request, by route")
            .labelNames("route")
            .classicOnly()
            .register(registry);
  }

  /** Records one served request. */
  public void recordRequest(String route, int status, long nanos) {
    RouteMetrics metrics = routes.computeIfAbsent(route, RouteMetrics::new);
    metrics.requests(status).inc();
    metrics.latency.observe(nanos / 1e9);
  }

  /** The data points of one route, looked up once rather than by label values on every request. */
  private final class RouteMetrics {
    private final String route;
    private final DistributionDataPoint latency;
    private final AtomicReferenceArray<CounterDataPoint> requestsByStatus =
        new AtomicReferenceArray<>(STATUS_LABELS.length);

    RouteMetrics(String route) {
      this.route = route;
      this.latency = ServerMetrics.this.latency.labelValues(route);
    }

    CounterDataPoint requests(int status) {
      int index = status - FIRST_STATUS;
      if (index < 0 || index >= STATUS_LABELS.length) {
        return ServerMetrics.this.requests.labelValues(route, Integer.toString(status));
      }
      CounterDataPoint point = requestsByStatus.get(index);
      if (point == null) {
        point = ServerMetrics.this.requests.labelValues(route, STATUS_LABELS[index]);
        requestsByStatus.set(index, point);
      }
      return point;
    }
  }

  /**
   * Adds tiering's gauges and counters (see {@link TieringMetrics}), read from {@code reader} at
   * each scrape; nothing is added while it is empty (tiering off or not started yet).
   *
   * @param defaultWarehouse the {@code warehouse} label of tables in the default warehouse
   */
  public void registerTiering(
      java.util.function.Supplier<java.util.Optional<io.lakestream.tiering.TieringStatusReader>>
          reader,
      String defaultWarehouse) {
    registry.register(new TieringMetrics(reader, defaultWarehouse));
  }

  /**
   * Adds the stream store's metrics per table, partition and bucket (see {@link
   * StreamStoreMetrics}), the row cache's and the data directory's file system gauges, all read at
   * each scrape.
   *
   * @param resolver the tables by id, or null while the server has none yet
   * @param dataDirectory the server's data directory, whose file system's space is reported
   */
  public void registerStreamStore(
      io.lakestream.store.log.LogManager logs,
      io.lakestream.store.kv.KvManager kvs,
      java.util.function.Supplier<io.lakestream.store.TableResolver> resolver,
      java.nio.file.Path dataDirectory) {
    registry.register(new StreamStoreMetrics(logs, kvs, resolver));
    GaugeWithCallback.builder()
        .name("lakestream_kv_row_cache_used_bytes")
        .help("Bytes of rows the primary-key tables' shared row cache holds now")
        .callback(callback -> callback.call(kvs.rowCache().usedBytes()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("lakestream_kv_row_cache_capacity_bytes")
        .help("Budget of the primary-key tables' shared row cache")
        .callback(callback -> callback.call(kvs.rowCache().capacityBytes()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("lakestream_data_filesystem_available_bytes")
        .help("Bytes available to the server on the file system of its data directory")
        .callback(
            callback -> {
              try {
                callback.call(java.nio.file.Files.getFileStore(dataDirectory).getUsableSpace());
              } catch (IOException e) {
                // no sample this scrape: absent() alerts catch a directory that went away
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("lakestream_data_filesystem_size_bytes")
        .help("Size of the file system of the server's data directory")
        .callback(
            callback -> {
              try {
                callback.call(java.nio.file.Files.getFileStore(dataDirectory).getTotalSpace());
              } catch (IOException e) {
                // as above
              }
            })
        .register(registry);
  }

  /**
   * Adds the gauges {@code lakestream_flight_sql_running_queries} (the Flight SQL queries running
   * now: admitted, result not yet released) and {@code lakestream_flight_sql_computing_queries}
   * (those of them whose statement runs in the SQL engine), read at each scrape.
   */
  public void registerFlightSql(
      java.util.function.IntSupplier running, java.util.function.IntSupplier computing) {
    GaugeWithCallback.builder()
        .name("lakestream_flight_sql_running_queries")
        .help("Flight SQL queries running now, from their start until their result is released")
        .callback(callback -> callback.call(running.getAsInt()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("lakestream_flight_sql_computing_queries")
        .help("Flight SQL queries whose statement runs in the SQL engine now")
        .callback(callback -> callback.call(computing.getAsInt()))
        .register(registry);
  }

  /**
   * Adds the gauge {@code lakestream_arrow_allocated_bytes}: per part of the server (label {@code
   * part}), the Arrow memory it holds now. Arrow allocates outside the heap where the JVM's buffer
   * pool gauges ({@code jvm_buffer_pool_used_bytes}, which count Netty's and the clients' direct
   * buffers) do not see it. A part not running returns -1 and has no sample.
   */
  public void registerNativeMemory(Map<String, java.util.function.LongSupplier> arrowParts) {
    Map<String, java.util.function.LongSupplier> parts = Map.copyOf(arrowParts);
    GaugeWithCallback.builder()
        .name("lakestream_arrow_allocated_bytes")
        .help("Bytes of Arrow memory a part of the server holds now")
        .labelNames("part")
        .callback(
            callback ->
                parts.forEach(
                    (part, bytes) -> {
                      long value = bytes.getAsLong();
                      if (value >= 0) {
                        callback.call(value, part);
                      }
                    }))
        .register(registry);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every metric. */
  public byte[] scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  public String contentType() {
    return writer.getContentType();
  }
}
