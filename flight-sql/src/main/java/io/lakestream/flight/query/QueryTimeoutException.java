package io.lakestream.flight.query;

/** A query stopped because it ran longer than the server allows ({@code flight.query-timeout}). */
public final class QueryTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public QueryTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
