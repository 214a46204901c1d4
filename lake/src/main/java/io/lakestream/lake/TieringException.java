package io.lakestream.lake;

/** A round cannot tier a table, for a reason its message names. Nothing was committed. */
public final class TieringException extends RuntimeException {
  public TieringException(String message) {
    super(message);
  }

  public TieringException(String message, Throwable cause) {
    super(message, cause);
  }
}
