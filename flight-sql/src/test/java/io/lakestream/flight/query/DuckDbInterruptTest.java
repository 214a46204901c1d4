package io.lakestream.flight.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A streamed DuckDB result that is being fetched stops when its connection is interrupted ({@link
 * DuckDbInterrupt}), which DuckDB's {@code Statement.cancel()} does not do once {@code
 * executeQuery} has returned; a closed connection is left alone.
 */
class DuckDbInterruptTest {
  /** Rows for hours. */
  private static final String ENDLESS_ROWS = "SELECT range AS n FROM range(1000000000000)";

  private final ExecutorService fetcher = Executors.newSingleThreadExecutor();
  private Connection duckdb;

  @BeforeEach
  void open() throws SQLException {
    Properties settings = new Properties();
    settings.setProperty("jdbc_stream_results", "true");
    duckdb = DriverManager.getConnection("jdbc:duckdb:", settings);
  }

  @AfterEach
  void close() throws SQLException {
    fetcher.shutdownNow();
    duckdb.close();
  }

  @Test
  void interruptingTheConnectionStopsAResultBeingFetched() throws Exception {
    assertThat(DuckDbInterrupt.available()).isTrue();
    try (PreparedStatement statement = duckdb.prepareStatement(ENDLESS_ROWS)) {
      Future<Long> fetch = fetchOnAnotherThread(statement);
      statement.cancel(); // DuckDB's own cancel: the fetch goes on
      assertThat(fetch.isDone()).isFalse();
      DuckDbInterrupt.interrupt(duckdb);
      assertThatThrownBy(() -> fetch.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .rootCause()
          .hasMessageContaining("Interrupted");
    }
    // The connection serves the next query.
    try (ResultSet rows = duckdb.createStatement().executeQuery("SELECT 42")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getInt(1)).isEqualTo(42);
    }
  }

  @Test
  void aClosedConnectionIsLeftAlone() throws SQLException {
    duckdb.close();
    DuckDbInterrupt.interrupt(duckdb); // neither throws nor touches freed memory
    assertThat(duckdb.isClosed()).isTrue();
  }

  /**
   * Reads the statement's rows on another thread as the endpoint does (an Arrow stream of batches);
   * returns once a million have been read.
   */
  private Future<Long> fetchOnAnotherThread(PreparedStatement statement) {
    AtomicLong read = new AtomicLong();
    Future<Long> fetch =
        fetcher.submit(
            () -> {
              try (BufferAllocator allocator = new RootAllocator();
                  ResultSet rows = statement.executeQuery();
                  ArrowReader reader =
                      (ArrowReader)
                          rows.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, 2048)) {
                while (reader.loadNextBatch()) {
                  read.addAndGet(reader.getVectorSchemaRoot().getRowCount());
                }
              }
              return read.get();
            });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (read.get() < 1_000_000) {
      assertThat(fetch.isDone()).as("the fetch ended early").isFalse();
      assertThat(System.nanoTime() - deadline).as("a million rows within 60 s").isNegative();
      LockSupport.parkNanos(1_000_000);
    }
    return fetch;
  }
}
