package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.PackagedServerExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Against the packaged server process ({@code bin/lakestream server}): a query running past {@code
 * flight.query-timeout} is stopped and its client gets {@code TIMED_OUT}; a principal's query
 * beyond {@code flight.max-concurrent-queries-per-principal} is refused at once with {@code
 * RESOURCE_EXHAUSTED}. The server's {@code /metrics} shows what runs.
 */
class FlightSqlQueryLimitsIT {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration STOPPED_WITHIN = Duration.ofMillis(1500);

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder()
          .withoutTiering()
          .flags(
              "--flight-query-timeout",
              QUERY_TIMEOUT.toSeconds() + "s",
              "--flight-max-concurrent-queries-per-principal",
              "2")
          .startTimeout(Duration.ofMinutes(2))
          .build();

  private static final RunningQueriesProbe probe = new RunningQueriesProbe(SERVER::httpPort);
  private static final ExecutorService clients = Executors.newCachedThreadPool();

  @AfterAll
  static void stop() throws Exception {
    clients.shutdownNow();
  }

  @Test
  void aQueryPastTheServersTimeoutStopsWithTimedOut() throws Exception {
    long start = System.nanoTime();
    try (Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
        Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> FlightSqlCancelTest.drain(statement, FlightSqlCancelTest.CROSS_JOIN))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("flight.query-timeout");
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isGreaterThanOrEqualTo(QUERY_TIMEOUT).isLessThan(QUERY_TIMEOUT.plusSeconds(5));
    probe.await(running -> running == 0, STOPPED_WITHIN, "the timed-out query to be gone");
    assertAnswers();
  }

  @Test
  void aPrincipalsQueryBeyondItsLimitIsRefusedAtOnce() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        allocator, Location.forGrpcInsecure("127.0.0.1", SERVER.flightPort()))
                    .build())) {
      // Two started queries whose results wait to be fetched: both count.
      List<FlightInfo> started = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        started.add(client.execute(FlightSqlCancelTest.CROSS_JOIN));
      }
      probe.await(running -> running == 2, Duration.ofSeconds(5), "two running queries");
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.execute("SELECT 1"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(CallStatus.RESOURCE_EXHAUSTED.code());
                assertThat(e.getMessage())
                    .contains("already runs 2")
                    .contains("flight.max-concurrent-queries-per-principal");
              });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      for (FlightInfo info : started) {
        assertThat(client.cancelFlightInfo(new CancelFlightInfoRequest(info)).getStatus())
            .isEqualTo(CancelStatus.CANCELLED);
      }
      probe.await(running -> running == 0, STOPPED_WITHIN, "the cancelled queries to be gone");
    }
    assertAnswers();
  }

  private static void assertAnswers() throws SQLException {
    try (Connection connection = DriverManager.getConnection(SERVER.flightJdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT 41 + 1 AS answer")) {
      assertThat(result.next()).isTrue();
      assertThat(result.getInt(1)).isEqualTo(42);
    }
  }
}
