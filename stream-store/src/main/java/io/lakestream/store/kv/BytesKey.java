package io.lakestream.store.kv;

import java.util.Arrays;

/**
 * An encoded key as a hash-map key: compared by content, its hash computed once. The array must not
 * change while the key is in use.
 */
final class BytesKey {
  private final byte[] bytes;
  private final int hash;

  BytesKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof BytesKey key && hash == key.hash && Arrays.equals(bytes, key.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
