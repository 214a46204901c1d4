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
    requests.labelValues(route, Integer.toString(status)).inc();
    latency.labelValues(route).observe(nanos / 1e9);
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
