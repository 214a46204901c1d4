package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import java.util.Arrays;

/**
 * One record of a primary-key table's changelog.
 *
 * @param type what the record does
 * @param row the full row: the new row for {@code +I} and {@code +U}, the old one for {@code -U}
 *     and {@code -D}; in current schema column order, not to be modified
 */
public record KvChange(ChangeType type, Object[] row) {
  public KvChange {
    requireNonNull(type, "type is null");
    requireNonNull(row, "row is null");
  }

  @Override
  public String toString() {
    return type.shortString() + Arrays.deepToString(row);
  }
}
