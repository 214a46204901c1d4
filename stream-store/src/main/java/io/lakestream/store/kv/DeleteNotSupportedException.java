package io.lakestream.store.kv;

/**
 * A delete was refused because the table's merge engine keeps rows forever: the {@code first-row}
 * engine, whose first row of a key must stay the first row. Like every {@link
 * InvalidMutationException}, the whole call that carried it was refused.
 */
public final class DeleteNotSupportedException extends InvalidMutationException {
  private static final long serialVersionUID = 1L;

  public DeleteNotSupportedException(String message) {
    super(message);
  }
}
