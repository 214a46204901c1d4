package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

/** A request failed with a typed error from the server (or a local protocol failure). */
public class RpcException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode error;

  public RpcException(ErrorCode error, String message) {
    super(message);
    this.error = requireNonNull(error, "error is null");
  }

  public RpcException(ErrorCode error, String message, Throwable cause) {
    super(message, cause);
    this.error = requireNonNull(error, "error is null");
  }

  public ErrorCode error() {
    return error;
  }
}
