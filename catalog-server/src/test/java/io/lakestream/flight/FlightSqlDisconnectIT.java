package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.PackagedServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against the packaged server process: a client that goes away while its query runs on the server
 * stops that query within about a second, whichever way it goes: the JDBC driver's {@code
 * Connection.close()} while another thread waits for the rows of a huge cross join or fetches rows
 * whose next batch takes the engine hours, a Flight client closed while its stream is open, the
 * client process killed ({@code kill -9}) while its query computes or while its result waits to be
 * fetched. The server's count of running queries ({@code /metrics}) shows it, and so does the next
 * query of the same principal, which a server that still counted the abandoned one would refuse
 * ({@code flight.max-concurrent-queries-per-principal=1}). And a query slow between its batches
 * stops on {@code Statement.cancel()} without waiting for its next batch.
 */
class FlightSqlDisconnectIT {
  /** How soon an abandoned query must be gone from the server (the issue: within 1 s). */
  private static final Duration STOPPED_WITHIN = Duration.ofMillis(1500);

  /**
   * Ten million rows at once, then batches that take the engine hours: one row in a billion of a
   * range of a trillion.
   */
  static final String SLOW_AFTER_FAST_ROWS =
      "SELECT range AS n FROM range(1000000000000)"
          + " WHERE range < 10000000 OR range % 1000000007 = 0";

  /**
   * How many rows of {@link #SLOW_AFTER_FAST_ROWS} a client has read when the engine computes the
   * slow rows (it holds back the last of the fast ones until it has a batch more).
   */
  private static final long FAST_ROWS_READ = 8_000_000;

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder()
          .withoutTiering()
          .flags(
              // What a test leaves running must not outlive it by much (see afterEach).
              "--flight-query-timeout",
              "30s",
              "--flight-max-concurrent-queries-per-principal",
              "1",
              // One engine thread: the slow rows of SLOW_AFTER_FAST_ROWS come after the fast ones.
              "--flight-query-threads",
              "1")
          .startTimeout(Duration.ofMinutes(2))
          // Kept after the run: what the server logged of the queries it stopped.
          .logDirectory(Path.of("target", "flight-sql-disconnect-it"))
          .build();

  @TempDir static Path temp;
  private static final RunningQueriesProbe probe = new RunningQueriesProbe(SERVER::httpPort);
  private static final ExecutorService clients = Executors.newCachedThreadPool();

  @AfterAll
  static void stop() throws Exception {
    clients.shutdownNow();
  }

  /** A test that failed leaves its query to the server's timeout, not to the next test. */
  @AfterEach
  void afterEach() throws Exception {
    probe.await(running -> running == 0, Duration.ofSeconds(40), "no query left running");
  }

  @Test
  void closingTheJdbcConnectionWhileTheQueryComputesStopsIt() throws Exception {
    Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
    Statement statement = connection.createStatement();
    Future<?> query =
        clients.submit(() -> FlightSqlCancelTest.drain(statement, FlightSqlCancelTest.CROSS_JOIN));
    probe.awaitComputing(
        computing -> computing > 0, Duration.ofSeconds(30), "the query to compute its rows");
    // The driver's close shuts its gRPC channel down and waits up to 5 s for the open call.
    clients.submit(() -> closeQuietly(connection));
    assertThat(probe.await(running -> running == 0, STOPPED_WITHIN, "the abandoned query to stop"))
        .isLessThan(STOPPED_WITHIN);
    query.cancel(true);
    assertSamePrincipalRunsAQuery();
  }

  @Test
  void closingTheJdbcConnectionWhileAFetchWaitsForTheNextBatchStopsTheQuery() throws Exception {
    Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
    Statement statement = connection.createStatement();
    Fetch fetch = fetchUntilSlow(statement);
    clients.submit(() -> closeQuietly(connection));
    assertThat(probe.await(running -> running == 0, STOPPED_WITHIN, "the abandoned query to stop"))
        .isLessThan(STOPPED_WITHIN);
    fetch.stop();
    assertSamePrincipalRunsAQuery();
  }

  /** A query slow between its batches stops on cancel without waiting for its next batch. */
  @Test
  void cancellingWhileAFetchWaitsForTheNextBatchStopsTheQuery() throws Exception {
    try (Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
        Statement statement = connection.createStatement()) {
      Fetch fetch = fetchUntilSlow(statement);
      statement.cancel();
      assertThat(
              probe.await(running -> running == 0, STOPPED_WITHIN, "the cancelled query to stop"))
          .isLessThan(STOPPED_WITHIN);
      // The driver's close checks that no buffer is still held, so the reading thread must be done
      // with its batch before the connection closes.
      fetch.stop();
    }
    assertSamePrincipalRunsAQuery();
  }

  /**
   * Runs {@link #SLOW_AFTER_FAST_ROWS} and reads its rows on another thread; returns once the fast
   * rows are read, when the server computes a batch that takes hours.
   */
  private static Fetch fetchUntilSlow(Statement statement) throws Exception {
    AtomicLong read = new AtomicLong();
    CountDownLatch ended = new CountDownLatch(1);
    Future<?> fetch =
        clients.submit(
            () -> {
              try (ResultSet rows = statement.executeQuery(SLOW_AFTER_FAST_ROWS)) {
                while (rows.next()) {
                  read.incrementAndGet();
                }
              } finally {
                ended.countDown();
              }
              return null;
            });
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (read.get() < FAST_ROWS_READ) {
      assertThat(fetch.isDone()).as("the fetch ended early").isFalse();
      assertThat(System.nanoTime() - deadline)
          .as("rows read within 120 s: %s", read.get())
          .isNegative();
      LockSupport.parkNanos(10_000_000);
    }
    return new Fetch(fetch, ended);
  }

  /** A fetch running on another thread, and the latch its task counts down when it has ended. */
  private record Fetch(Future<?> task, CountDownLatch ended) {
    /**
     * Interrupts the fetch if it still runs and waits until its task has left the result set: a
     * cancelled {@link Future} reports done while its thread may still hold a batch.
     */
    void stop() throws InterruptedException {
      task.cancel(true);
      assertThat(ended.await(30, TimeUnit.SECONDS)).as("the fetch thread ended").isTrue();
    }
  }

  @Test
  void closingAFlightClientWhileItsStreamIsOpenStopsTheQuery() throws Exception {
    RootAllocator allocator = new RootAllocator();
    FlightSqlClient client =
        new FlightSqlClient(
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure("127.0.0.1", SERVER.flightPort()))
                .build());
    FlightInfo info = client.execute(FlightSqlCancelTest.CROSS_JOIN);
    FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket());
    Future<?> fetch = clients.submit(stream::next);
    probe.awaitComputing(
        computing -> computing > 0, Duration.ofSeconds(30), "the query to compute its rows");
    clients.submit(
        () -> {
          client.close(); // Flight's close shuts the channel down and waits up to 5 s
          return null;
        });
    assertThat(probe.await(running -> running == 0, STOPPED_WITHIN, "the abandoned query to stop"))
        .isLessThan(STOPPED_WITHIN);
    fetch.cancel(true);
    assertSamePrincipalRunsAQuery();
  }

  @Test
  void killingTheClientProcessWhileTheQueryComputesStopsIt() throws Exception {
    Process client = startClient("fetch");
    try {
      probe.awaitComputing(
          computing -> computing > 0, Duration.ofSeconds(60), "the query to compute its rows");
      kill(client);
      assertThat(probe.await(running -> running == 0, STOPPED_WITHIN, "the killed client's query"))
          .isLessThan(STOPPED_WITHIN);
    } finally {
      client.destroyForcibly();
    }
    assertSamePrincipalRunsAQuery();
  }

  @Test
  void killingTheClientProcessBeforeItFetchesFreesItsWaitingResult() throws Exception {
    Process client = startClient("execute");
    try {
      probe.await(running -> running == 1, Duration.ofSeconds(60), "the result to wait");
      assertThat(probe.computing()).as("a result waiting to be fetched computes nothing").isZero();
      kill(client);
      assertThat(probe.await(running -> running == 0, STOPPED_WITHIN, "the killed client's result"))
          .isLessThan(STOPPED_WITHIN);
    } finally {
      client.destroyForcibly();
    }
    assertSamePrincipalRunsAQuery();
  }

  /** Starts {@link DisconnectingClient} in a JVM of its own; returns once its query started. */
  private static Process startClient(String mode) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                DisconnectingClient.class.getName(),
                Integer.toString(SERVER.flightPort()),
                mode));
    Process process =
        new ProcessBuilder(command)
            .redirectError(temp.resolve("client-" + mode + ".err").toFile())
            .start();
    BufferedReader output =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = output.readLine()) != null && !line.equals("started")) {
      // the client's other output
    }
    assertThat(line).as("the client process started its query (see its stderr)").isNotNull();
    return process;
  }

  /**
   * Kills the process by its PID ({@code kill -9}): no shutdown hook runs; the kernel drops its
   * sockets.
   */
  private static void kill(Process process) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-9", Long.toString(process.pid())).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("the client process died").isTrue();
  }

  private static Void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // the driver reports the open call it could not wait for; the test looks at the server
    }
    return null;
  }

  /** The principal's only query slot is free again: a query runs and answers. */
  private static void assertSamePrincipalRunsAQuery() throws SQLException {
    try (Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT 41 + 1 AS answer")) {
      assertThat(result.next()).isTrue();
      assertThat(result.getInt(1)).isEqualTo(42);
    }
  }
}
