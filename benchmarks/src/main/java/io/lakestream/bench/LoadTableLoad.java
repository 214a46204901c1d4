package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Closed-loop loadTable load: {@code threads} client threads each send {@code GET} of one table's
 * loadTable URI and wait for the whole response before sending the next, for a warm-up period and
 * then a measured period.
 *
 * <p>Requests are plain HTTP/1.1 through {@link KeepAliveHttpGet}, one kept-alive connection per
 * thread and without {@code Accept-Encoding}, so neither server compresses; every body byte is read
 * and discarded. Both servers get the same client. Only requests started in the measured period
 * count towards throughput and latency; every request of both periods counts towards errors, which
 * are responses other than 200 and requests that failed or timed out.
 */
final class LoadTableLoad {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final int threads;
  private final Duration warmup;
  private final Duration measured;

  LoadTableLoad(int threads, Duration warmup, Duration measured) {
    this.threads = threads;
    this.warmup = requireNonNull(warmup, "warmup is null");
    this.measured = requireNonNull(measured, "measured is null");
    if (threads < 1 || measured.isZero() || measured.isNegative() || warmup.isNegative()) {
      throw new IllegalArgumentException(
          "Need at least one thread and a positive measured period: "
              + threads
              + " threads, "
              + measured);
    }
  }

  /** Runs the load against the loadTable URI of {@code table} and returns what was measured. */
  Result run(CatalogUnderTest catalog, TableIdentifier table) throws InterruptedException {
    URI uri = catalog.loadTableUri(table);
    CountDownLatch start = new CountDownLatch(1);
    long measuredFrom = System.nanoTime() + warmup.toNanos();
    long measuredUntil = measuredFrom + measured.toNanos();
    List<Client> clients = new ArrayList<>(threads);
    List<Thread> started = new ArrayList<>(threads);
    for (int i = 0; i < threads; i++) {
      Client client = new Client(uri, start, measuredFrom, measuredUntil);
      clients.add(client);
      started.add(Thread.ofPlatform().name("load-table-" + i).start(client));
    }
    Duration serverCpuBefore = catalog.serverCpuTime();
    Duration clientCpuBefore = ownCpuTime();
    start.countDown();
    // A request still unanswered REQUEST_TIMEOUT after the measured period has its connection
    // aborted, which fails it (an error) and ends its thread.
    long abortAt = measuredUntil + REQUEST_TIMEOUT.toNanos();
    for (int i = 0; i < threads; i++) {
      long waitNanos = abortAt - System.nanoTime();
      if (waitNanos <= 0 || !started.get(i).join(Duration.ofNanos(waitNanos))) {
        clients.get(i).http.abort();
        started.get(i).join();
      }
    }
    Duration serverCpu = catalog.serverCpuTime().minus(serverCpuBefore);
    Duration clientCpu = ownCpuTime().minus(clientCpuBefore);

    long requests = 0;
    long errors = 0;
    int latencyCount = 0;
    for (Client client : clients) {
      if (client.failure != null) {
        throw new IllegalStateException("A loadTable client thread failed", client.failure);
      }
      requests += client.requests;
      errors += client.errors;
      latencyCount += client.latencyCount;
    }
    long[] latencies = new long[latencyCount];
    int offset = 0;
    for (Client client : clients) {
      System.arraycopy(client.latencies, 0, latencies, offset, client.latencyCount);
      offset += client.latencyCount;
    }
    Arrays.sort(latencies);
    double seconds = measured.toNanos() / 1e9;
    return new Result(
        requests,
        errors,
        latencyCount / seconds,
        percentileMillis(latencies, 0.50),
        percentileMillis(latencies, 0.99),
        serverCpu.toNanos() / 1e3 / Math.max(1, requests),
        clientCpu.toNanos() / 1e3 / Math.max(1, requests));
  }

  private static Duration ownCpuTime() {
    return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Nearest-rank percentile of sorted nanosecond latencies, in milliseconds. */
  private static double percentileMillis(long[] sorted, double quantile) {
    if (sorted.length == 0) {
      throw new IllegalStateException("No loadTable request completed in the measured period");
    }
    int rank = (int) Math.ceil(quantile * sorted.length);
    return sorted[Math.max(0, rank - 1)] / 1e6;
  }

  /**
   * What one run measured.
   *
   * @param requests every request sent, warm-up included
   * @param errors requests of {@code requests} that did not answer 200
   * @param requestsPerSecond requests started in the measured period and answered 200, per second
   *     of the period
   * @param p50Millis median latency of those requests
   * @param p99Millis 99th percentile latency of those requests
   * @param serverCpuMicrosPerRequest CPU time of the server process over the whole run, warm-up
   *     included, per request sent
   * @param clientCpuMicrosPerRequest the same for this JVM, the client
   */
  record Result(
      long requests,
      long errors,
      double requestsPerSecond,
      double p50Millis,
      double p99Millis,
      double serverCpuMicrosPerRequest,
      double clientCpuMicrosPerRequest) {}

  /** One client thread; its fields are read by the coordinating thread after {@code join}. */
  private final class Client implements Runnable {
    private final KeepAliveHttpGet http;
    private final CountDownLatch start;
    private final long measuredFrom;
    private final long measuredUntil;
    private long requests;
    private long errors;
    private long[] latencies = new long[4096];
    private int latencyCount;
    private Throwable failure;

    Client(URI uri, CountDownLatch start, long measuredFrom, long measuredUntil) {
      this.http = new KeepAliveHttpGet(uri, (int) REQUEST_TIMEOUT.toMillis());
      this.start = start;
      this.measuredFrom = measuredFrom;
      this.measuredUntil = measuredUntil;
    }

    @Override
    public void run() {
      try {
        start.await();
        while (true) {
          long begin = System.nanoTime();
          if (begin - measuredUntil >= 0) {
            return;
          }
          boolean ok = send();
          long end = System.nanoTime();
          requests++;
          if (!ok) {
            errors++;
          } else if (begin - measuredFrom >= 0) {
            record(end - begin);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = e;
      } catch (RuntimeException | Error e) {
        failure = e;
      } finally {
        http.close();
      }
    }

    private boolean send() {
      try {
        KeepAliveHttpGet.Response response = http.send();
        return response.status() == 200 && response.bodyBytes() > 0;
      } catch (IOException e) {
        http.close();
        return false;
      }
    }

    private void record(long latencyNanos) {
      if (latencyCount == latencies.length) {
        latencies = Arrays.copyOf(latencies, latencies.length * 2);
      }
      latencies[latencyCount++] = latencyNanos;
    }
  }
}
