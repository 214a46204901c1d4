package io.lakestream.store.log;

/**
 * An append was refused: a corrupt batch, one that is too large, or a writer sequence out of order.
 * Nothing of it was written.
 */
public final class InvalidBatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean sequenceError;
  private final boolean duplicateSequence;

  public InvalidBatchException(String message) {
    this(message, false, false);
  }

  private InvalidBatchException(String message, boolean sequenceError, boolean duplicateSequence) {
    super(message);
    this.sequenceError = sequenceError;
    this.duplicateSequence = duplicateSequence;
  }

  /** A writer's batch whose sequence does not follow its last one. */
  static InvalidBatchException outOfOrder(String message) {
    return new InvalidBatchException(message, true, false);
  }

  /**
   * A writer's batch whose sequence is below its last one and older than the sequences remembered
   * for deduplication: a resend of a batch stored earlier (a writer sends its sequences in order
   * and the tablet takes them only in order), whose offsets are no longer known.
   */
  static InvalidBatchException duplicateTooOld(String message) {
    return new InvalidBatchException(message, true, true);
  }

  /** Whether the batch was refused for its writer sequence rather than its contents. */
  public boolean sequenceError() {
    return sequenceError;
  }

  /**
   * Whether the batch repeats a sequence of its writer too old to deduplicate (stored earlier; see
   * {@link #duplicateTooOld}) rather than skipping ahead.
   */
  public boolean duplicateSequence() {
    return duplicateSequence;
  }
}
