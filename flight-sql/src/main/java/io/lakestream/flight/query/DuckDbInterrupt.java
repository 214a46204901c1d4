package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Interrupts whatever a DuckDB connection computes, including the next batch of a streamed result.
 *
 * <p>DuckDB's JDBC {@code Statement.cancel()} interrupts only while the statement executes: once
 * {@code executeQuery} has returned a streamed result, it does nothing, and a batch that takes the
 * engine an hour to produce runs for that hour. The connection's own interrupt (what {@code
 * cancel()} calls) stops that too, but the driver keeps it to itself: it must be called holding the
 * connection's lock, which is what keeps the connection from being closed meanwhile. This class
 * calls it that way, by reflection; when the driver has no such method (another version), it logs
 * once and does nothing, and {@code Statement.cancel()} is all that stops a query.
 *
 * <p>Thread safe; never blocks for long (the lock is only tried, briefly).
 */
final class DuckDbInterrupt {
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbInterrupt.class);

  private static final Field LOCK;
  private static final Method INTERRUPT;

  static {
    Field lock = null;
    Method interrupt = null;
    try {
      lock = DuckDBConnection.class.getDeclaredField("connRefLock");
      lock.setAccessible(true);
      interrupt = DuckDBConnection.class.getDeclaredMethod("interrupt");
      interrupt.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "DuckDB's JDBC driver has no connection interrupt to call: a query stops only between"
              + " the batches of its result",
          e);
      lock = null;
      interrupt = null;
    }
    LOCK = lock;
    INTERRUPT = interrupt;
  }

  private DuckDbInterrupt() {}

  /** Whether connections can be interrupted this way. */
  static boolean available() {
    return INTERRUPT != null;
  }

  /**
   * Interrupts what {@code connection} computes now: its statement fails with DuckDB's {@code
   * INTERRUPT Error}. Does nothing to a closed connection, or when the connection's lock is not
   * free within a few milliseconds (the caller tries again later).
   */
  static void interrupt(Connection connection) {
    requireNonNull(connection, "connection is null");
    if (INTERRUPT == null) {
      return;
    }
    try {
      DuckDBConnection duckdb = connection.unwrap(DuckDBConnection.class);
      ReentrantLock lock = (ReentrantLock) LOCK.get(duckdb);
      if (!lock.tryLock(10, TimeUnit.MILLISECONDS)) {
        return;
      }
      try {
        INTERRUPT.invoke(duckdb);
      } finally {
        lock.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
      // closed meanwhile (the driver says so by throwing): nothing left to interrupt
    }
  }
}
