package io.lakestream.store;

/** A request naming a schema id the table does not have, or one the request may not use. */
public final class SchemaMismatchException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(String message) {
    super(message);
  }
}
