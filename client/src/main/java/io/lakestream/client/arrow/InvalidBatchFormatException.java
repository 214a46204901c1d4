package io.lakestream.client.arrow;

/**
 * Bytes that were expected to hold a record batch message, batch statistics or a batch filter do
 * not: a wrong marker, a message of another kind, truncated or trailing bytes, buffers outside the
 * body, a layout that does not fit the schema, or values that fail Arrow's buffer validation. The
 * message names what is wrong and where, e.g. "Record batch message is truncated: the body needs
 * 4096 bytes but only 100 remain".
 *
 * <p>It is never thrown for a resource limit (an allocator that is full throws Arrow's {@code
 * OutOfMemoryException}) nor for a caller's mistake that does not depend on the bytes (those throw
 * {@link IllegalArgumentException}).
 */
public final class InvalidBatchFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and where
   */
  public InvalidBatchFormatException(String message) {
    super(message);
  }

  /**
   * Creates the exception with the failure that revealed the problem.
   *
   * @param message what is wrong and where
   * @param cause the underlying failure, such as Arrow's validation error
   */
  public InvalidBatchFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
