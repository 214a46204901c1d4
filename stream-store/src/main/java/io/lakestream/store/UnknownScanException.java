package io.lakestream.store;

/**
 * A snapshot-scan page request naming a scan that is not open (never started, finished, or closed
 * while idle).
 */
public final class UnknownScanException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public UnknownScanException(String message) {
    super(message);
  }
}
