package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableKind;

/** A request that needs a table of one kind (an append a log table) naming a table of another. */
public final class WrongTableKindException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  private final TableKind required;

  public WrongTableKindException(TableKind required, String message) {
    super(message);
    this.required = requireNonNull(required, "required is null");
  }

  /** The kind the request needs. */
  public TableKind required() {
    return required;
  }
}
