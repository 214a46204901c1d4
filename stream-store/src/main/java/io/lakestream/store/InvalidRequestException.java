package io.lakestream.store;

/**
 * A request whose fields are malformed or out of range (a non-positive maxBytes, an unknown offset
 * spec or operation, malformed keys, a bad filter or projection), or that a decoder refused.
 */
public final class InvalidRequestException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String message) {
    super(message);
  }

  public InvalidRequestException(String message, Throwable cause) {
    super(message, cause);
  }
}
