package io.lakestream.scan;

/** A union read cannot be exact: part of a log range it needs is no longer in the log. */
public final class LogRangeGoneException extends RuntimeException {
  public LogRangeGoneException(String message) {
    super(message);
  }
}
