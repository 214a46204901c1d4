package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Query cancellation through Flight's {@code CancelFlightInfo}, from the Flight SQL Java client: a
 * result still waiting to be fetched is dropped, a result being streamed stops with {@code
 * CANCELLED} long before its end, a finished query is not cancellable, and the server keeps
 * answering afterwards.
 *
 * <p>And through the Flight SQL JDBC driver, on queries that would run for hours in the engine (a
 * huge cross join, a recursive common table expression without end): {@code Statement.cancel()} and
 * {@code setQueryTimeout} each stop the query on the server within about a second, as the server's
 * count of running queries ({@code /metrics}) shows. Clients that go away (a closed connection, a
 * killed process) are tested against the packaged server: {@link FlightSqlDisconnectIT}.
 */
class FlightSqlCancelTest {
  // Hundreds of batches: the stream is still running when the test cancels after the first.
  private static final long ROWS = 20_000_000;
  private static final String LONG = "SELECT range AS n FROM range(" + ROWS + ")";

  /** Hours of work for the engine before its first row. */
  static final String CROSS_JOIN =
      "SELECT count(*) AS pairs FROM range(1000000000) a, range(1000000000) b";

  /** Never ends. */
  static final String ENDLESS =
      "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t";

  /** How soon a stopped query must be gone from the server (the brief: within about 1 s). */
  private static final Duration STOPPED_WITHIN = Duration.ofMillis(1500);

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RunningQueriesProbe probe;
  private static String url;
  private static ExecutorService clients;
  private BufferAllocator allocator;
  private FlightSqlClient client;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    probe = new RunningQueriesProbe(lakestream.server().httpPort());
    url =
        "jdbc:arrow-flight-sql://127.0.0.1:"
            + lakestream.server().flightPort()
            + "?useEncryption=false";
    clients = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() throws Exception {
    clients.shutdownNow();
    lakestream.close();
  }

  @BeforeEach
  void connect() {
    allocator = new RootAllocator();
    client =
        new FlightSqlClient(
            FlightClient.builder(
                    allocator,
                    Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
                .build());
  }

  @AfterEach
  void disconnect() throws Exception {
    client.close();
    allocator.close();
  }

  @Test
  void aStreamingQueryStopsWithCancelled() throws Exception {
    FlightInfo info = client.execute(LONG);
    long rows = 0;
    long[] rowsAfterCancel = {0};
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      rows += stream.getRoot().getRowCount();
      assertThat(client.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus())
          .isEqualTo(CancelStatus.CANCELLED);
      FlightStream reading = stream;
      assertThatThrownBy(
              () -> {
                while (reading.next()) {
                  // Batches already on their way may still arrive before the error.
                  rowsAfterCancel[0] += reading.getRoot().getRowCount();
                }
              })
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(CallStatus.CANCELLED.code());
                assertThat(e.getMessage()).contains("cancelled");
              });
    }
    assertThat(rows).isPositive();
    assertThat(rows + rowsAfterCancel[0])
        .as("rows streamed before the stream stopped")
        .isLessThan(ROWS);
    assertServerAnswers();
  }

  @Test
  void aResultNotYetFetchedIsDropped() throws Exception {
    FlightInfo info = client.execute(LONG);
    assertThat(client.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus())
        .isEqualTo(CancelStatus.CANCELLED);
    assertThatThrownBy(
            () -> {
              try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
                stream.next();
              }
            })
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.NOT_FOUND.code()));
    assertServerAnswers();
  }

  @Test
  void aFinishedQueryIsNotCancellable() throws Exception {
    FlightInfo info = client.execute("SELECT 1 AS one");
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        // drained
      }
    }
    assertThat(client.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus())
        .isEqualTo(CancelStatus.NOT_CANCELLABLE);
  }

  @ParameterizedTest
  @ValueSource(strings = {CROSS_JOIN, ENDLESS})
  void jdbcCancelStopsTheQueryOnTheServer(String sql) throws Exception {
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      Future<?> query = clients.submit(() -> drain(statement, sql));
      probe.awaitComputing(
          computing -> computing > 0, Duration.ofSeconds(30), "the query to compute its rows");
      statement.cancel();
      Duration stopped =
          probe.await(running -> running == 0, STOPPED_WITHIN, "the cancelled query to stop");
      assertThat(stopped).isLessThan(STOPPED_WITHIN);
      assertThatThrownBy(() -> query.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
    }
    assertServerAnswers();
  }

  @ParameterizedTest
  @ValueSource(strings = {CROSS_JOIN, ENDLESS})
  void jdbcQueryTimeoutStopsTheQueryOnTheServer(String sql) throws Exception {
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.setQueryTimeout(2);
      long start = System.nanoTime();
      assertThatThrownBy(() -> drain(statement, sql)).isInstanceOf(SQLException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("time until the client gave up")
          .isLessThan(Duration.ofSeconds(10));
    }
    // The driver sends nothing when its timeout passes; closing the statement cancels the call.
    probe.await(running -> running == 0, STOPPED_WITHIN, "the timed-out query to stop");
    assertServerAnswers();
  }

  /** Runs a query and reads its whole result. */
  static Void drain(Statement statement, String sql) throws SQLException {
    try (ResultSet result = statement.executeQuery(sql)) {
      while (result.next()) {
        // read on
      }
    }
    return null;
  }

  private void assertServerAnswers() throws Exception {
    FlightInfo info = client.execute("SELECT 41 + 1 AS answer");
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      assertThat(stream.getRoot().getFieldVectors().get(0).getObject(0)).isEqualTo(42);
    }
  }
}
