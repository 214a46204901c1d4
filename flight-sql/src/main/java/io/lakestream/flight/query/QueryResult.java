package io.lakestream.flight.query;

import io.lakestream.flight.sql.InvalidQueryException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A running query's result: Arrow batches read from DuckDB as the client consumes them. Owns the
 * query's DuckDB database and its place among the {@link RunningQueries}; {@link #close()} releases
 * both. Used by one thread at a time, but {@link #cancel} and {@link #follow} may come from any.
 */
public final class QueryResult implements AutoCloseable {
  /** Runs a query's statement and returns its rows, adding what it opens to {@code opened}. */
  @FunctionalInterface
  interface Execution {
    ArrowReader run(List<AutoCloseable> opened) throws java.sql.SQLException;
  }

  private final Schema schema;
  private Execution execution;
  private ArrowReader reader;
  private final RunningQueries.Query query;
  private final List<AutoCloseable> resources;
  private final Function<Exception, Exception> explain;

  /**
   * A result whose statement runs when it is first read ({@link #reader}).
   *
   * @param schema the schema of its rows
   */
  QueryResult(
      Schema schema,
      Execution execution,
      RunningQueries.Query query,
      List<AutoCloseable> resources,
      Function<Exception, Exception> explain) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema is null");
    this.execution = java.util.Objects.requireNonNull(execution, "execution is null");
    this.query = java.util.Objects.requireNonNull(query, "query is null");
    this.resources = new ArrayList<>(resources);
    this.explain = explain;
  }

  /**
   * @param query the running query, released first when the result is closed
   * @param resources closed in reverse order after the reader and the query
   * @param explain the error to report for a failure of reading the result (the failure itself, or
   *     one that says better why the query failed)
   */
  QueryResult(
      ArrowReader reader,
      RunningQueries.Query query,
      List<AutoCloseable> resources,
      Function<Exception, Exception> explain) {
    this.schema = null;
    this.reader = reader;
    this.query = java.util.Objects.requireNonNull(query, "query is null");
    this.resources = new ArrayList<>(resources);
    this.explain = explain;
  }

  /**
   * The error to report for {@code failure}, which reading the result threw: the reason the query
   * was stopped, if it was ({@link QueryCancelledException}, {@link QueryTimeoutException}).
   */
  public Exception explained(Exception failure) {
    RuntimeException stopped = query.stoppedError(failure);
    return stopped != null ? stopped : explain.apply(failure);
  }

  /**
   * Stops the query when the Flight call {@code callGone} describes is gone: the call streaming the
   * result, from now on.
   */
  public void follow(java.util.function.BooleanSupplier callGone) {
    query.follow(callGone);
  }

  public Schema schema() {
    if (schema != null) {
      return schema;
    }
    try {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The rows; the first call runs the query's statement when that was left for now.
   *
   * @throws RuntimeException what running the statement threw: {@link InvalidQueryException},
   *     {@link QueryLimitException}, {@link QueryCancelledException}, {@link QueryTimeoutException}
   */
  public synchronized ArrowReader reader() {
    if (reader == null) {
      query.checkRunning();
      query.computing();
      try {
        reader = execution.run(resources);
      } catch (java.sql.SQLException e) {
        RuntimeException stopped = query.stoppedError(e);
        throw stopped != null
            ? stopped
            : new IllegalStateException("Cannot read the query's rows: " + e.getMessage(), e);
      }
      execution = null;
    }
    return reader;
  }

  /**
   * Cancels the query from any thread: the reading thread sees {@link #cancelled()}, and a batch
   * DuckDB is computing at the moment is interrupted (see {@link RunningQueries}).
   */
  public void cancel() {
    query.cancel();
  }

  /** Runs {@code action} when the query is stopped (see {@link RunningQueries.Query#onStop}). */
  public void onStop(Runnable action) {
    query.onStop(action);
  }

  /** Whether the query was stopped: cancelled or out of time. */
  public boolean cancelled() {
    return query.stopped() != null;
  }

  /** The error to report for a stopped query, or null while it runs. */
  public RuntimeException stoppedError() {
    return query.stoppedError(null);
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    List<AutoCloseable> all = new ArrayList<>();
    synchronized (this) {
      if (reader != null) {
        all.add(reader);
      }
    }
    all.add(query);
    all.addAll(resources.reversed());
    for (AutoCloseable resource : all) {
      try {
        resource.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("Cannot release a query result", e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
