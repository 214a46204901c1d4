package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import java.util.Arrays;

/**
 * One record of a primary-key table's changelog: what it does and the full row, the new row for
 * {@code +I} and {@code +U}, the old one for {@code -U} and {@code -D}, in current schema column
 * order.
 *
 * <p>A change made by {@link KvTablet#prepare} also carries the row in {@link RowCodec} form under
 * the current schema ({@link #value()}), so the changelog can be built without going through Java
 * objects; its {@link #row()} is then decoded on first use. Not thread-safe.
 */
public final class KvChange {
  private final ChangeType type;
  private final byte[] value;
  private final RowCodec codec;
  private Object[] row;

  /**
   * A change of a row given as values.
   *
   * @param row the full row, not to be modified
   */
  public KvChange(ChangeType type, Object[] row) {
    this.type = requireNonNull(type, "type is null");
    this.row = requireNonNull(row, "row is null");
    this.value = null;
    this.codec = null;
  }

  /**
   * A change whose row is known as its encoding under the codec's current schema, and possibly
   * (null otherwise) as values.
   */
  KvChange(ChangeType type, Object[] row, byte[] value, RowCodec codec) {
    this.type = requireNonNull(type, "type is null");
    this.value = requireNonNull(value, "value is null");
    this.codec = requireNonNull(codec, "codec is null");
    this.row = row;
  }

  public ChangeType type() {
    return type;
  }

  /** The full row in current schema column order; not to be modified. */
  public Object[] row() {
    if (row == null) {
      row = codec.decode(value);
    }
    return row;
  }

  /**
   * The row's {@link RowCodec} value under the current schema, or null when the change was made
   * from values only; not to be modified.
   */
  public byte[] value() {
    return value;
  }

  @Override
  public String toString() {
    return type.shortString() + Arrays.deepToString(row());
  }
}
