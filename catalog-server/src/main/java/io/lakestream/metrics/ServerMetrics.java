package io.lakestream.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The server's Prometheus metrics: HTTP requests by route and status, their latency, and the JVM's
 * own metrics. One instance per server process, each with its own registry, so tests can run
 * several servers in one JVM. Thread safe.
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
            .register(registry);
  }

  /** Records one served request. */
  public void recordRequest(String route, int status, long nanos) {
    requests.labelValues(route, statusLabel(status)).inc();
    latency.labelValues(route).observe(nanos / 1e9);
  }

  /** The status as a label value; the common ones are made once, with their hash codes. */
  private static String statusLabel(int status) {
    int index = status - FIRST_STATUS;
    return index >= 0 && index < STATUS_LABELS.length
        ? STATUS_LABELS[index]
        : Integer.toString(status);
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
