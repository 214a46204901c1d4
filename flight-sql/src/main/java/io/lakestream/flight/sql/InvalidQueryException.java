package io.lakestream.flight.sql;

/**
 * A query that cannot run as written: bad syntax, a statement other than a query, an unknown table,
 * or an error the SQL engine reports for the query itself (a type error, an unknown column). The
 * message says what is wrong and is shown to the client as is.
 */
public final class InvalidQueryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidQueryException(String message) {
    super(message);
  }

  public InvalidQueryException(String message, Throwable cause) {
    super(message, cause);
  }
}
