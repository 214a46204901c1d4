package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

/**
 * A request failed with a typed error from the server (or a local protocol failure): what the
 * client's calls throw, or complete their futures with. {@link #error()} names the condition and
 * {@link ErrorCode#retriable()} tells whether the same request may succeed later; the message says
 * what was wrong, naming the table, bucket or value. {@link ErrorCode#NETWORK_ERROR} means the
 * connection failed and the request's outcome is unknown.
 */
public class RpcException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode error;

  /**
   * Creates the exception.
   *
   * @param error the condition
   * @param message what was wrong, for people
   */
  public RpcException(ErrorCode error, String message) {
    super(message);
    this.error = requireNonNull(error, "error is null");
  }

  /**
   * Creates the exception with the local failure that caused it.
   *
   * @param error the condition
   * @param message what was wrong, for people
   * @param cause the underlying failure
   */
  public RpcException(ErrorCode error, String message, Throwable cause) {
    super(message, cause);
    this.error = requireNonNull(error, "error is null");
  }

  /**
   * The condition.
   *
   * @return the error code, never {@link ErrorCode#NONE}
   */
  public ErrorCode error() {
    return error;
  }
}
