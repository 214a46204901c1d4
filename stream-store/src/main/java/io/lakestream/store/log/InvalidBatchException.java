package io.lakestream.store.log;

/**
 * An append was refused: a corrupt batch, one that is too large, or a writer sequence out of order.
 * Nothing of it was written.
 */
public final class InvalidBatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean sequenceError;

  public InvalidBatchException(String message) {
    this(message, false);
  }

  private InvalidBatchException(String message, boolean sequenceError) {
    super(message);
    this.sequenceError = sequenceError;
  }

  /** A writer's batch whose sequence does not follow its last one. */
  static InvalidBatchException outOfOrder(String message) {
    return new InvalidBatchException(message, true);
  }

  /** Whether the batch was refused for its writer sequence rather than its contents. */
  public boolean sequenceError() {
    return sequenceError;
  }
}
