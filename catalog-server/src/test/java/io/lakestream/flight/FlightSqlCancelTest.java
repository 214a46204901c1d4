package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.nio.file.Path;
import java.util.Map;
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

/**
 * Query cancellation through Flight's {@code CancelFlightInfo}, from the Flight SQL Java client: a
 * result still waiting to be fetched is dropped, a result being streamed stops with {@code
 * CANCELLED} long before its end, a finished query is not cancellable, and the server keeps
 * answering afterwards.
 */
class FlightSqlCancelTest {
  // Hundreds of batches: the stream is still running when the test cancels after the first.
  private static final long ROWS = 20_000_000;
  private static final String LONG = "SELECT range AS n FROM range(" + ROWS + ")";

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private BufferAllocator allocator;
  private FlightSqlClient client;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
  }

  @AfterAll
  static void stop() throws Exception {
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

  private void assertServerAnswers() throws Exception {
    FlightInfo info = client.execute("SELECT 41 + 1 AS answer");
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      assertThat(stream.getRoot().getFieldVectors().get(0).getObject(0)).isEqualTo(42);
    }
  }
}
