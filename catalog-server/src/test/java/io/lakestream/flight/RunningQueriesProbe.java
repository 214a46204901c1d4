package io.lakestream.flight;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.IntSupplier;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads how many Flight SQL queries a server runs from its {@code /metrics} ({@code
 * lakestream_flight_sql_running_queries}), and waits for that count.
 */
final class RunningQueriesProbe {
  private static final Pattern RUNNING = gauge("lakestream_flight_sql_running_queries");
  private static final Pattern COMPUTING = gauge("lakestream_flight_sql_computing_queries");

  private static Pattern gauge(String name) {
    return Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$");
  }

  private final HttpClient http = HttpClient.newHttpClient();
  private final IntSupplier httpPort;

  RunningQueriesProbe(int httpPort) {
    this(() -> httpPort);
  }

  /** Asks for the server's HTTP port at each read: the server may start after the probe. */
  RunningQueriesProbe(IntSupplier httpPort) {
    this.httpPort = requireNonNull(httpPort, "httpPort is null");
  }

  /** Queries admitted and not yet released. */
  long running() throws IOException, InterruptedException {
    return read(RUNNING);
  }

  /** Queries whose statement runs in the engine. */
  long computing() throws IOException, InterruptedException {
    return read(COMPUTING);
  }

  private long read(Pattern pattern) throws IOException, InterruptedException {
    URI metrics = URI.create("http://127.0.0.1:" + httpPort.getAsInt() + "/metrics");
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(metrics).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET " + metrics + " answered " + response.statusCode());
    }
    Matcher gauge = pattern.matcher(response.body());
    if (!gauge.find()) {
      throw new IllegalStateException("No " + pattern + " on " + metrics);
    }
    return (long) Double.parseDouble(gauge.group(1));
  }

  /**
   * Polls until the count satisfies {@code wanted}; returns how long that took.
   *
   * @throws AssertionError naming the last count when it does not within {@code timeout}
   */
  Duration await(LongPredicate wanted, Duration timeout, String what)
      throws IOException, InterruptedException {
    return await(false, wanted, timeout, what);
  }

  /** As {@link #await}, on the count of queries computing their rows. */
  Duration awaitComputing(LongPredicate wanted, Duration timeout, String what)
      throws IOException, InterruptedException {
    return await(true, wanted, timeout, what);
  }

  private Duration await(boolean computing, LongPredicate wanted, Duration timeout, String what)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long last;
    while (true) {
      last = computing ? computing() : running();
      if (wanted.test(last)) {
        return Duration.ofNanos(System.nanoTime() - start);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "Within " + timeout + ", expected " + what + "; the server still runs " + last);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
    }
  }
}
