package io.lakestream.store.kv;

/**
 * A write to a primary-key table was refused: a row that does not fit the schema (wrong arity or
 * types, a null key column), a partial update without the key or with an unknown column, or a
 * mutation the table's merge engine does not accept. The whole call that carried it was refused and
 * nothing of it was buffered or written.
 */
public class InvalidMutationException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidMutationException(String message) {
    super(message);
  }

  public InvalidMutationException(String message, Throwable cause) {
    super(message, cause);
  }
}
