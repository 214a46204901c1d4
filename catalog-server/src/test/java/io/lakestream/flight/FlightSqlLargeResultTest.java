package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query result far larger than a query's memory limit streams out batch by batch as the client
 * reads it: the SQL engine does not build the whole result first, which would take the server's
 * memory (the engine's limit covers its operators, not a finished result held for the client).
 */
class FlightSqlLargeResultTest {
  // 3.2 GB of BIGINTs as one result: over ten times the query memory limit below.
  private static final long ROWS = 400_000_000;
  private static final long ROWS_READ = 10_000_000;
  private static final long MIB = 1 << 20;

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;

  @BeforeAll
  static void start() {
    lakestream =
        EmbeddedLakestream.start(
            data, Map.of("tiering.enabled", "false", "flight.query-memory-limit", "256mb"));
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static FlightSqlClient client(BufferAllocator allocator) {
    return new FlightSqlClient(
        FlightClient.builder(
                allocator, Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
            .build());
  }

  /** This process's resident memory (the server runs in it), from {@code /proc/self/status}. */
  private static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("No VmRSS in /proc/self/status");
  }

  @Test
  void aResultFarLargerThanTheQueryMemoryLimitStreamsWithoutBeingHeldInMemory() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = client(allocator)) {
      long before = residentBytes();
      long peak = before;
      FlightInfo info = client.execute("SELECT range AS n FROM range(" + ROWS + ")");
      long rows = 0;
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
        while (rows < ROWS_READ && stream.next()) {
          BigIntVector n = (BigIntVector) stream.getRoot().getVector(0);
          int count = stream.getRoot().getRowCount();
          assertThat(n.get(0)).as("first value of a batch").isEqualTo(rows);
          assertThat(n.get(count - 1)).as("last value of a batch").isEqualTo(rows + count - 1);
          rows += count;
          peak = Math.max(peak, residentBytes());
        }
        stream.cancel("read enough", null);
      }
      assertThat(rows).isGreaterThanOrEqualTo(ROWS_READ);
      assertThat((peak - before) / MIB)
          .as("MiB the process grew by while the first %d of %d rows streamed", rows, ROWS)
          .isLessThan(1024);
    }
  }

  @Test
  void everyValueOfAResultOfManyBatchesArrivesAsComputed() throws Exception {
    // Batches go to gRPC without being copied: each must arrive as DuckDB exported it, none
    // overwritten by a later batch while still queued for the socket.
    long total = 500_000;
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = client(allocator)) {
      FlightInfo info =
          client.execute("SELECT range AS n, 'value ' || range AS s FROM range(" + total + ")");
      long rows = 0;
      int batches = 0;
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
        while (stream.next()) {
          BigIntVector n = (BigIntVector) stream.getRoot().getVector(0);
          org.apache.arrow.vector.VarCharVector s =
              (org.apache.arrow.vector.VarCharVector) stream.getRoot().getVector(1);
          for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
            if (n.get(i) != rows || !s.getObject(i).toString().equals("value " + rows)) {
              assertThat(List.of(n.get(i), s.getObject(i).toString()))
                  .as("row %d", rows)
                  .containsExactly(rows, "value " + rows);
            }
            rows++;
          }
          batches++;
        }
      }
      assertThat(rows).isEqualTo(total);
      assertThat(batches).as("batches").isGreaterThan(1);
    }
  }

  @Test
  void aQueryThatFailsWhileItsResultStreamsSaysWhy() throws Exception {
    // Fails at one row deep into the result, after batches before it may have gone out.
    String sql =
        "SELECT CAST(CASE WHEN range = 3000000 THEN 'x' ELSE '1' END AS INTEGER) AS v"
            + " FROM range(5000000)";
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = client(allocator)) {
      assertThatThrownBy(
              () -> {
                FlightInfo info = client.execute(sql);
                try (FlightStream stream =
                    client.getStream(info.getEndpoints().get(0).getTicket())) {
                  while (stream.next()) {
                    assertThat(stream.getRoot().getRowCount()).isPositive();
                  }
                }
              })
          .isInstanceOf(FlightRuntimeException.class)
          .hasMessageContaining("Could not convert string 'x'");
      FlightInfo info = client.execute("SELECT 41 + 1 AS answer");
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        assertThat(stream.getRoot().getFieldVectors().get(0).getObject(0)).isEqualTo(42);
      }
    }
  }
}
