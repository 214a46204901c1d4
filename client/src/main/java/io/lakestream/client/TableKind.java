package io.lakestream.client;

import java.util.Optional;

/**
 * The kinds of streaming table, as written in a table's {@link LakestreamProperties#KIND} property
 * and sent in the stream RPC's METADATA response. A kind's value never changes.
 */
public enum TableKind {
  /** An append-only log of rows. */
  LOG("log"),
  /** A table of rows by primary key: upserts, deletes and lookups, with a changelog. */
  PRIMARY_KEY("primary-key");

  private final String value;

  TableKind(String value) {
    this.value = value;
  }

  /**
   * The kind's value in table properties and on the wire ({@code log}, {@code primary-key}).
   *
   * @return the value
   */
  public String value() {
    return value;
  }

  /**
   * Whether {@code value} (possibly null) is this kind's value.
   *
   * @param value a property or wire value, or null
   * @return {@code true} if it equals {@link #value()}
   */
  public boolean is(String value) {
    return this.value.equals(value);
  }

  /**
   * The kind of a property or wire value; empty for null or any other value.
   *
   * @param value a property or wire value, or null
   * @return the kind, or empty when the value is not a streaming table's kind
   */
  public static Optional<TableKind> fromValue(String value) {
    for (TableKind kind : values()) {
      if (kind.value.equals(value)) {
        return Optional.of(kind);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return value;
  }
}
