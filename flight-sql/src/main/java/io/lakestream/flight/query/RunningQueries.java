package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flight SQL queries running in the SQL engine, from admission until their result is released,
 * and what stops them.
 *
 * <p>Admission: a principal runs at most {@code maxPerPrincipal} queries at once; one more fails
 * with a {@link QueryLimitException} at once (RESOURCE_EXHAUSTED), and runs nothing.
 *
 * <p>Stopping: a watchdog looks at every running query every {@link #CHECK_INTERVAL}. A query is
 * stopped when it has run longer than {@code timeout} (it then fails with a {@link
 * QueryTimeoutException}), or when the Flight call it serves is gone (the client cancelled it, its
 * deadline passed, its connection closed, the client shut its channel down: see {@link
 * ClientConnections}) or it was cancelled through {@link Query#cancel} (it then fails with a {@link
 * QueryCancelledException}). Stopping interrupts the DuckDB statement the query is executing
 * ({@link Query#executing}) and its connection (which also stops a streamed result between its
 * batches, see {@link DuckDbInterrupt}), and keeps interrupting them at each check until the query
 * is released, so that a statement started just after an interrupt is stopped too; the query's own
 * steps also check {@link Query#checkRunning} between statements. So a query stops within about
 * {@link #CHECK_INTERVAL} of its reason, whatever DuckDB is computing, whether the client waits for
 * its first batch or a later one.
 *
 * <p>Thread safe.
 */
public final class RunningQueries implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunningQueries.class);

  /** How often the watchdog looks at the running queries. */
  static final Duration CHECK_INTERVAL = Duration.ofMillis(100);

  private final Duration timeout;
  private final int maxPerPrincipal;
  private final Set<Query> running = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> perPrincipal = new HashMap<>();
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("flight-sql-query-watchdog").daemon().factory());

  /**
   * @param timeout how long a query may run, from admission until its result is released
   * @param maxPerPrincipal how many queries one principal may run at once
   */
  public RunningQueries(Duration timeout, int maxPerPrincipal) {
    this.timeout = requireNonNull(timeout, "timeout is null");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    if (maxPerPrincipal < 1) {
      throw new IllegalArgumentException("maxPerPrincipal must be at least 1: " + maxPerPrincipal);
    }
    this.maxPerPrincipal = maxPerPrincipal;
    long interval = CHECK_INTERVAL.toMillis();
    watchdog.scheduleWithFixedDelay(this::check, interval, interval, TimeUnit.MILLISECONDS);
  }

  /**
   * Admits a query of {@code principal}; the caller closes it when its result is released.
   *
   * @param callGone whether the Flight call that waits for the query is gone (cancelled, past its
   *     deadline, its connection closed); see {@link Query#follow}
   * @throws QueryLimitException when {@code principal} already runs as many queries as allowed
   */
  Query admit(String principal, BooleanSupplier callGone) {
    requireNonNull(principal, "principal is null");
    synchronized (perPrincipal) {
      int now = perPrincipal.getOrDefault(principal, 0);
      if (now >= maxPerPrincipal) {
        throw new QueryLimitException(
            "Principal '"
                + principal
                + "' already runs "
                + now
                + " Flight SQL queries, the most allowed at once"
                + " (flight.max-concurrent-queries-per-principal="
                + maxPerPrincipal
                + "); wait for one to finish or cancel one",
            null);
      }
      perPrincipal.put(principal, now + 1);
    }
    Query query = new Query(principal, System.nanoTime() + timeout.toNanos(), callGone);
    running.add(query);
    return query;
  }

  /** How many queries run now (admitted and not yet released). */
  public int running() {
    return running.size();
  }

  /**
   * How many of them compute their rows now: their statement runs (for a query whose FlightInfo was
   * asked for, once its result is fetched), as opposed to being planned or waiting to be fetched.
   */
  public int computing() {
    int computing = 0;
    for (Query query : running) {
      computing += query.computing ? 1 : 0;
    }
    return computing;
  }

  /** How many queries {@code principal} runs now. */
  public int running(String principal) {
    synchronized (perPrincipal) {
      return perPrincipal.getOrDefault(principal, 0);
    }
  }

  private void check() {
    long now = System.nanoTime();
    for (Query query : List.copyOf(running)) {
      try {
        query.check(now);
      } catch (RuntimeException e) {
        LOG.warn("Cannot check a running Flight SQL query of '{}'", query.principal, e);
      }
    }
  }

  private void release(Query query) {
    if (running.remove(query)) {
      synchronized (perPrincipal) {
        perPrincipal.computeIfPresent(
            query.principal, (key, count) -> count > 1 ? count - 1 : null);
      }
    }
  }

  /** Stops the watchdog and every running query. */
  @Override
  public void close() {
    watchdog.shutdownNow();
    for (Query query : List.copyOf(running)) {
      query.cancel();
    }
  }

  /** Why a query was stopped. */
  enum Stop {
    CANCELLED,
    TIMED_OUT
  }

  /** One admitted query. Its steps run on one thread; the watchdog and cancels on others. */
  final class Query implements AutoCloseable {
    private final String principal;
    private final long deadline;
    private final List<Statement> executing = new ArrayList<>();
    private final List<java.sql.Connection> connections = new ArrayList<>();
    private BooleanSupplier callGone;
    private Stop stop;
    private boolean released;
    private volatile boolean computing;
    private Runnable onStop = () -> {};

    private Query(String principal, long deadline, BooleanSupplier callGone) {
      this.principal = principal;
      this.deadline = deadline;
      this.callGone = requireNonNull(callGone, "callGone is null");
    }

    /**
     * Watches another Flight call from now on: the one the query's result is streamed on (the call
     * that started it has returned by then).
     */
    synchronized void follow(BooleanSupplier call) {
      callGone = requireNonNull(call, "call is null");
    }

    /**
     * Registers a DuckDB statement the query executes, to interrupt when the query is stopped (at
     * once, if it already is). The statement stays registered until the query is released.
     */
    void executing(Statement statement) {
      requireNonNull(statement, "statement is null");
      java.sql.Connection connection;
      try {
        connection = statement.getConnection();
      } catch (SQLException e) {
        connection = null; // closed: nothing of it will run
      }
      boolean stopped;
      synchronized (this) {
        if (released) {
          return;
        }
        executing.add(statement);
        if (connection != null && !connections.contains(connection)) {
          connections.add(connection);
        }
        stopped = stop != null;
      }
      if (stopped) {
        interruptStatements();
      }
    }

    /**
     * Runs {@code action} (on the watchdog's thread) when the query is stopped from now on, or at
     * once if it is already: what releases a result nobody reads, such as one waiting to be
     * fetched.
     */
    void onStop(Runnable action) {
      requireNonNull(action, "action is null");
      boolean stopped;
      synchronized (this) {
        onStop = action;
        stopped = stop != null && !released;
      }
      if (stopped) {
        action.run();
      }
    }

    /** Marks the query as computing its rows (see {@link RunningQueries#computing()}). */
    void computing() {
      computing = true;
    }

    /** Stops the query as cancelled by its client (Flight's {@code CancelFlightInfo}). */
    void cancel() {
      stop(Stop.CANCELLED);
    }

    /** Why the query was stopped, or null while it runs. */
    synchronized Stop stopped() {
      return stop;
    }

    /**
     * @throws QueryCancelledException when the query was cancelled
     * @throws QueryTimeoutException when it ran out of time
     */
    void checkRunning() {
      Stop reason = stopped();
      if (reason != null) {
        throw stoppedError(reason, null);
      }
    }

    /**
     * The error to report for a query that was stopped, whatever DuckDB said when interrupted
     * ({@code cause}), or null when the query was not stopped.
     */
    RuntimeException stoppedError(Throwable cause) {
      Stop reason;
      BooleanSupplier call;
      synchronized (this) {
        reason = stop;
        call = callGone;
      }
      if (reason == null && call.getAsBoolean()) {
        reason = Stop.CANCELLED; // the watchdog has not seen it yet
      }
      return reason == null ? null : stoppedError(reason, cause);
    }

    private RuntimeException stoppedError(Stop reason, Throwable cause) {
      return reason == Stop.TIMED_OUT
          ? new QueryTimeoutException(
              "The query ran longer than flight.query-timeout (" + timeout + ") and was stopped",
              cause)
          : new QueryCancelledException("The query was cancelled", cause);
    }

    private void check(long now) {
      BooleanSupplier call;
      Stop reason;
      synchronized (this) {
        call = callGone;
        reason = stop;
      }
      if (reason == null && now - deadline > 0) {
        reason = Stop.TIMED_OUT;
      } else if (reason == null && call.getAsBoolean()) {
        reason = Stop.CANCELLED;
      }
      if (reason != null) {
        stop(reason);
      }
    }

    private void stop(Stop reason) {
      Runnable action;
      synchronized (this) {
        action = onStop;
        if (released) {
          return;
        }
        if (stop == null) {
          stop = reason;
          LOG.info(
              "Stopping a Flight SQL query of '{}': {}",
              principal,
              reason == Stop.TIMED_OUT ? "it ran longer than " + timeout : "cancelled");
        }
      }
      interruptStatements();
      action.run();
    }

    /**
     * Interrupts the query's statements and their connections (what stops a streamed result between
     * its batches, which a statement's own cancel does not: see {@link DuckDbInterrupt}). Holds the
     * query's lock meanwhile, so that no interrupt lands after the query was released, when its
     * connection may already serve another query, and its statement too when the database kept it
     * ({@link QueryDatabases.KeptStatements}). Interrupting a closed statement, or one that is not
     * executing, does nothing.
     */
    private synchronized void interruptStatements() {
      if (!released) {
        executing.forEach(RunningQueries::interrupt);
        connections.forEach(DuckDbInterrupt::interrupt);
      }
    }

    /** Releases the query: it no longer counts, and nothing interrupts its statements any more. */
    @Override
    public void close() {
      synchronized (this) {
        if (released) {
          return;
        }
        released = true;
        executing.clear();
        connections.clear();
      }
      release(this);
    }
  }

  private static void interrupt(Statement statement) {
    try {
      statement.cancel();
    } catch (SQLException e) {
      // closed meanwhile: nothing left to interrupt
    }
  }
}
