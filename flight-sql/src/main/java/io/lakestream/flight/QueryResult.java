package io.lakestream.flight;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A running query's result: Arrow batches read from DuckDB as the client consumes them. Owns the
 * query's DuckDB database; {@link #close()} releases it. Used by one thread at a time.
 */
final class QueryResult implements AutoCloseable {
  private final ArrowReader reader;
  private final List<AutoCloseable> resources;
  private final Function<Exception, Exception> explain;
  private volatile boolean cancelled;

  /**
   * @param resources closed in reverse order after the reader
   */
  QueryResult(ArrowReader reader, List<AutoCloseable> resources) {
    this(reader, resources, failure -> failure);
  }

  /**
   * @param resources closed in reverse order after the reader
   * @param explain the error to report for a failure of reading the result (the failure itself, or
   *     one that says better why the query failed)
   */
  QueryResult(
      ArrowReader reader, List<AutoCloseable> resources, Function<Exception, Exception> explain) {
    this.reader = reader;
    this.resources = new ArrayList<>(resources);
    this.explain = explain;
  }

  /** The error to report for {@code failure}, which reading the result threw. */
  Exception explained(Exception failure) {
    return explain.apply(failure);
  }

  Schema schema() {
    try {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  ArrowReader reader() {
    return reader;
  }

  /**
   * Cancels the query from any thread: the reading thread sees {@link #cancelled()}, and a batch
   * DuckDB is computing at the moment is interrupted. Never at the same time as {@link #close}: the
   * closed query's database may already run the next query, which an interrupt would stop.
   */
  synchronized void cancel() {
    cancelled = true;
    for (AutoCloseable resource : resources) {
      if (resource instanceof java.sql.Statement statement) {
        try {
          statement.cancel();
        } catch (java.sql.SQLException e) {
          // Closed meanwhile: nothing left to interrupt.
        }
      }
    }
  }

  boolean cancelled() {
    return cancelled;
  }

  @Override
  public synchronized void close() {
    RuntimeException failure = null;
    List<AutoCloseable> all = new ArrayList<>();
    all.add(reader);
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
