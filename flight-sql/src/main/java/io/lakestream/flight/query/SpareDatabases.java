package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fresh in-memory DuckDB databases for queries, each opened with the same settings and never used
 * before it is handed out, each spilling into a directory of its own ({@link Spare}) that no other
 * database can read. Starting a database takes tens of milliseconds, so one is kept open ahead: a
 * query takes the spare and a background thread opens the next, and a query that finds none opens
 * its own.
 *
 * <p>A spare is as fresh as a database opened on demand: nothing runs in it before {@link #take}
 * returns it, so each query still restricts its own database's files and settings. Thread safe.
 */
final class SpareDatabases implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpareDatabases.class);

  private final Properties settings;
  private final Path spillRoot;
  private final AtomicLong ids = new AtomicLong();
  private final BlockingQueue<Spare> spares;
  private final ExecutorService opener =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("duckdb-spare-opener").factory());
  private volatile boolean closed;

  /**
   * @param settings DuckDB settings of every database (memory limit, threads and the like)
   * @param spares how many databases to keep open ahead; 0 opens each on demand
   * @param spillRoot the directory under which each database gets the directory it spills into
   *     (DuckDB's {@code temp_directory}), removed when the database is closed
   */
  SpareDatabases(Properties settings, int spares, Path spillRoot) {
    requireNonNull(settings, "settings is null");
    this.spillRoot = requireNonNull(spillRoot, "spillRoot is null");
    try {
      Files.createDirectories(spillRoot); // DuckDB creates the last level only
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the spill directory " + spillRoot, e);
    }
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
  Spare take() throws SQLException {
    Spare spare = spares.poll();
    if (spare == null) {
      return open();
    }
    refill();
    return spare;
  }

  private Spare open() throws SQLException {
    Path spill = spillRoot.resolve(Long.toString(ids.incrementAndGet()));
    Properties own = (Properties) settings.clone();
    // By default every in-memory database spills into .tmp of the working directory, which each
    // one may read once its external access is off: one query could read another's spilled rows.
    own.setProperty("temp_directory", spill.toString());
    return new Spare(DriverManager.getConnection("jdbc:duckdb:", own), spill);
  }

  /**
   * A database and the directory it spills into; closing it closes the database and removes the
   * directory.
   */
  record Spare(Connection connection, Path spillDirectory) implements AutoCloseable {
    Spare {
      requireNonNull(connection, "connection is null");
      requireNonNull(spillDirectory, "spillDirectory is null");
    }

    @Override
    public void close() {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("Closing a DuckDB database failed", e);
      }
      removeDirectory(spillDirectory);
    }
  }

  /** Removes {@code directory} and everything in it, if it exists; failures are logged. */
  static void removeDirectory(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Cannot remove the query database directory {}: {}", directory, e.getMessage());
    }
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
              Spare opened = open();
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
    for (Spare spare = spares.poll(); spare != null; spare = spares.poll()) {
      spare.close();
    }
  }
}
