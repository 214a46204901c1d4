package io.lakestream.store;

/**
 * A stream RPC request refused by a check at the service boundary: what it names does not exist, is
 * of the wrong kind, or the request itself is malformed or not allowed. Nothing of the request was
 * written. Each subclass names one condition; {@link RpcErrors} alone maps them to wire error
 * codes, and the message goes to the client unchanged.
 */
public abstract class StreamRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  protected StreamRequestException(String message) {
    super(message);
  }

  protected StreamRequestException(String message, Throwable cause) {
    super(message, cause);
  }
}
