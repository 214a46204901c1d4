package io.lakestream.store.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An encoded key as a hash-map key: compared by content, its hash computed once. The array must not
 * change while the key is in use.
 *
 * <p>The hash mixes every byte into all of its bits. {@link Arrays#hashCode(byte[])} would not do:
 * encoded numeric keys differ in their last few bytes, which that polynomial maps onto a few tens
 * of thousands of values, so a map of a million keys degrades into long collision chains.
 */
final class BytesKey {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] bytes;
  private final int hash;

  BytesKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = hash(bytes);
  }

  byte[] bytes() {
    return bytes;
  }

  static int hash(byte[] bytes) {
    return hash(bytes, 0, bytes.length);
  }

  /** The hash of the key held in {@code bytes[offset, offset + length)}. */
  static int hash(byte[] bytes, int offset, int length) {
    long hash = 0x9E3779B97F4A7C15L * (length + 1);
    int i = offset;
    int end = offset + length;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      hash = mix(hash ^ (long) LONG.get(bytes, i));
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += Byte.SIZE) {
      tail |= (bytes[i] & 0xFFL) << shift;
    }
    hash = mix(hash ^ tail);
    return (int) (hash ^ (hash >>> 32));
  }

  /** The finaliser of MurmurHash3's 64-bit variant: each input bit affects every output bit. */
  private static long mix(long value) {
    value = (value ^ (value >>> 33)) * 0xFF51AFD7ED558CCDL;
    value = (value ^ (value >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return value ^ (value >>> 33);
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
