package io.lakestream.config;

/**
 * A configuration problem found while reading configuration: an unknown key, a value that does not
 * parse, or a file that cannot be read. The message is one line that names the key, the offending
 * value and where it came from, so that it can be printed as-is at start-up.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message one line naming the key, the offending value and its origin
   */
  public ConfigException(String message) {
    super(message);
  }

  /**
   * Creates the exception with the failure that caused it, such as the I/O error of a file.
   *
   * @param message one line naming the key, the offending value and its origin
   * @param cause the underlying failure
   */
  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
