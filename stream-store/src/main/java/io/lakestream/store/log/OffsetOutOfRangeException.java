package io.lakestream.store.log;

/** A fetch asked for an offset the log does not hold. */
public final class OffsetOutOfRangeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OffsetOutOfRangeException(String message) {
    super(message);
  }
}
