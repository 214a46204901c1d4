package io.lakestream.store;

/** A request of an API version the server does not speak. */
public final class UnsupportedVersionException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public UnsupportedVersionException(String message) {
    super(message);
  }
}
