package io.lakestream.flight;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fresh in-memory DuckDB databases for queries, each opened with the same settings and never used
 * before it is handed out. Starting a database takes tens of milliseconds, so one is kept open
 * ahead: a query takes the spare and a background thread opens the next, and a query that finds
 * none opens its own.
 *
 * <p>A spare is as fresh as a database opened on demand: nothing runs in it before {@link #take}
 * returns it, so each query still restricts its own database's files and settings. Thread safe.
 */
final class SpareDatabases implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpareDatabases.class);

  private final Properties settings;
  private final BlockingQueue<Connection> spares;
  private final ExecutorService opener =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("duckdb-spare-opener").factory());
  private volatile boolean closed;

  /**
   * @param settings DuckDB settings of every database (memory limit, threads and the like)
   * @param spares how many databases to keep open ahead; 0 opens each on demand
   */
  SpareDatabases(Properties settings, int spares) {
    requireNonNull(settings, "settings is null");
    if (spares < 0) {
      throw new IllegalArgumentException("spares must not be negative: " + spares);
    }
    this.settings = (Properties) settings.clone();
    this.spares = new ArrayBlockingQueue<>(Math.max(1, spares));
    for (int i = 0; i < spares; i++) {
      refill();
    }
  }

  /**
   * A database no one has used; the caller closes it.
   *
   * @throws SQLException when a database cannot be opened
   */
  Connection take() throws SQLException {
    Connection spare = spares.poll();
    if (spare == null) {
      return open();
    }
    refill();
    return spare;
  }

  private Connection open() throws SQLException {
    return DriverManager.getConnection("jdbc:duckdb:", settings);
  }

  private void refill() {
    if (closed) {
      return;
    }
    try {
      opener.execute(
          () -> {
            if (closed || spares.remainingCapacity() == 0) {
              return;
            }
            try {
              Connection opened = open();
              if (closed || !spares.offer(opened)) {
                opened.close();
              }
            } catch (SQLException e) {
              LOG.warn("Cannot open a spare DuckDB database: {}", e.getMessage());
            }
          });
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Closes the spares; databases already taken are their holders' to close. */
  @Override
  public void close() {
    closed = true;
    opener.shutdown();
    for (Connection spare = spares.poll(); spare != null; spare = spares.poll()) {
      try {
        spare.close();
      } catch (SQLException e) {
        LOG.debug("Closing a spare DuckDB database failed", e);
      }
    }
  }
}
