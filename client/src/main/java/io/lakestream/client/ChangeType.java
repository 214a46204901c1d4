package io.lakestream.client;

/**
 * The kind of a row in a primary-key table's changelog.
 *
 * <p>An upsert of a new key is one {@link #INSERT}; a change of an existing row is an {@link
 * #UPDATE_BEFORE} carrying the old row immediately followed by an {@link #UPDATE_AFTER} carrying
 * the new one; a delete is one {@link #DELETE} carrying the removed row. Folding a changelog in
 * offset order (insert and update-after put, delete removes, update-before does nothing) gives the
 * table's state.
 *
 * <p>The byte {@link #code()} is what the log batch format and the wire carry: a code never changes
 * meaning, new kinds take new codes.
 */
public enum ChangeType {
  /** A row for a key that had none ({@code +I}, code 0). */
  INSERT("+I", (byte) 0),
  /** The old row of an update, followed by its {@link #UPDATE_AFTER} ({@code -U}, code 1). */
  UPDATE_BEFORE("-U", (byte) 1),
  /** The new row of an update ({@code +U}, code 2). */
  UPDATE_AFTER("+U", (byte) 2),
  /** The row a delete removed ({@code -D}, code 3). */
  DELETE("-D", (byte) 3);

  private static final ChangeType[] BY_CODE = {INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE};

  private final String shortString;
  private final byte code;

  ChangeType(String shortString, byte code) {
    this.shortString = shortString;
    this.code = code;
  }

  /**
   * The short form used in changelog displays: {@code +I}, {@code -U}, {@code +U}, {@code -D}.
   *
   * @return the short form
   */
  public String shortString() {
    return shortString;
  }

  /**
   * The stable byte code of the log format and the wire.
   *
   * @return 0 to 3
   */
  public byte code() {
    return code;
  }

  /**
   * The change type of a byte code.
   *
   * @param code a code from {@link #code()}
   * @return the change type
   * @throws IllegalArgumentException for a code no change type has
   */
  public static ChangeType fromCode(byte code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new IllegalArgumentException("Unknown change type code: " + code);
    }
    return BY_CODE[code];
  }
}
