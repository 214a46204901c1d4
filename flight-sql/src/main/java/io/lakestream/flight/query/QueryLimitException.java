package io.lakestream.flight.query;

/**
 * A query that exceeded a limit of the SQL engine (its memory limit) or that its principal may not
 * start now (too many of its queries run already); the message says which.
 */
public final class QueryLimitException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public QueryLimitException(String message, Throwable cause) {
    super(message, cause);
  }
}
