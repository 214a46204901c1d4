package io.lakestream.store;

/**
 * A request naming a table that has no stream (it does not exist, was dropped, or is no stream
 * table).
 */
public final class UnknownTableException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public UnknownTableException(String message) {
    super(message);
  }
}
