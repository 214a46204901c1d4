package io.lakestream.server;

/** The server cannot start; the message is one line naming the problem, printed as-is. */
public final class StartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }

  public StartupException(String message) {
    super(message);
  }
}
