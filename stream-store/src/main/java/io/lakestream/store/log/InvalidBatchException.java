package io.lakestream.store.log;

/**
 * An append was refused: a corrupt batch, one that is too large, or a writer sequence out of order.
 * Nothing of it was written.
 */
public final class InvalidBatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidBatchException(String message) {
    super(message);
  }
}
