package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A Lakestream server a benchmark started through the launcher ({@link LakestreamLauncher#server})
 * on three free loopback ports, returned once {@code GET /ready} answers 200: its process, its REST
 * base URI and its ports. {@link #stopCleanly} ends it the way every benchmark does, with SIGTERM,
 * and fails unless it exits with 0; {@link #close} only makes sure the process is gone. Not thread
 * safe: one benchmark thread starts and stops it.
 */
public final class LaunchedServer implements AutoCloseable {
  private static final Duration START_DEADLINE = Duration.ofSeconds(60);
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(30);
  private static final Duration READY_POLL = Duration.ofMillis(10);

  private final ChildProcess process;
  private final URI base;
  private final int rpcPort;
  private final int flightPort;

  private LaunchedServer(ChildProcess process, URI base, int rpcPort, int flightPort) {
    this.process = requireNonNull(process, "process is null");
    this.base = requireNonNull(base, "base is null");
    this.rpcPort = rpcPort;
    this.flightPort = flightPort;
  }

  /**
   * Starts a server on {@code dataDirectory} with the launcher's defaults and {@code flags}, its
   * output going to {@code log}, and polls {@code GET /ready} every 10 ms (each request at most
   * {@code requestTimeout}) until it answers 200, for at most 60 s.
   */
  public static LaunchedServer start(
      Path launcher,
      Path dataDirectory,
      Path log,
      String description,
      List<String> flags,
      HttpClient http,
      Duration requestTimeout)
      throws Exception {
    int[] ports = FreePorts.onLoopback(3);
    ProcessBuilder builder =
        LakestreamLauncher.server(launcher, dataDirectory, ports[0], ports[1], ports[2]);
    builder.command().addAll(flags);
    URI base = new URI("http", null, "127.0.0.1", ports[0], null, null, null);
    ChildProcess process = ChildProcess.start(description, builder, log);
    try {
      process.awaitCondition(
          "GET /ready answering 200",
          START_DEADLINE,
          READY_POLL,
          () -> HttpProbes.answersOk(http, base.resolve("/ready"), requestTimeout));
    } catch (Exception | Error e) {
      process.close();
      throw e;
    }
    return new LaunchedServer(process, base, ports[1], ports[2]);
  }

  /** An HTTP/1.1 client for the server's REST endpoints, as the benchmarks use. */
  public static HttpClient httpClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .build();
  }

  /**
   * An Iceberg REST catalog client on the server at {@code base}, reading files directly from the
   * local file system, with metrics reporting off.
   */
  static RESTCatalog catalog(URI base) {
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, base.toString());
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    properties.put("rest-metrics-reporting-enabled", "false");
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lakestream", properties);
    return catalog;
  }

  ChildProcess process() {
    return process;
  }

  /** {@code http://127.0.0.1:<http port>}. */
  public URI base() {
    return base;
  }

  public int rpcPort() {
    return rpcPort;
  }

  public int flightPort() {
    return flightPort;
  }

  /** Sends SIGTERM and fails unless the server exits with 0 within 30 s. */
  public void stopCleanly() throws InterruptedException {
    int exitCode = process.terminate(EXIT_DEADLINE);
    if (exitCode != 0) {
      throw process.failure("exited with " + exitCode + " after SIGTERM instead of 0");
    }
  }

  @Override
  public void close() {
    process.close();
  }
}
