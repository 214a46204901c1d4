package io.lakestream.store;

/** A request other than AUTHENTICATE on a connection that must authenticate first. */
public final class NotAuthenticatedException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public NotAuthenticatedException(String message) {
    super(message);
  }
}
