package io.lakestream.flight.query;

/**
 * A query stopped before its end because its client cancelled it, gave up waiting (its call's
 * deadline passed) or disconnected.
 */
public final class QueryCancelledException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public QueryCancelledException(String message, Throwable cause) {
    super(message, cause);
  }
}
