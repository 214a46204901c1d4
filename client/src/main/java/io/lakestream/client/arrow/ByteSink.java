package io.lakestream.client.arrow;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;

/**
 * A growable heap byte array that is both an output stream and a byte channel, so Arrow's writer
 * copies buffers straight into it, and whose bytes are handed on as a {@link ByteBuffer} without a
 * final copy. Not thread safe.
 *
 * <p>Internal: used by the batch encoders shared with the server; not for applications.
 */
public final class ByteSink extends OutputStream implements WritableByteChannel {
  private byte[] bytes;
  private int size;

  /**
   * An empty sink.
   *
   * @param initialCapacity the array's first size in bytes (at least 16); it doubles as needed
   */
  public ByteSink(int initialCapacity) {
    this.bytes = new byte[Math.max(16, initialCapacity)];
  }

  /**
   * Leaves {@code count} bytes to be filled in later (for example a header).
   *
   * @param count how many bytes to leave; they are zeros until written
   * @throws IllegalStateException if the sink would pass 2 GiB
   */
  public void skip(int count) {
    ensure(size + count);
    size += count;
  }

  /**
   * Appends a big-endian int32.
   *
   * @param value the value
   * @throws IllegalStateException if the sink would pass 2 GiB
   */
  public void writeInt(int value) {
    ensure(size + 4);
    bytes[size] = (byte) (value >>> 24);
    bytes[size + 1] = (byte) (value >>> 16);
    bytes[size + 2] = (byte) (value >>> 8);
    bytes[size + 3] = (byte) value;
    size += 4;
  }

  @Override
  public void write(int b) {
    ensure(size + 1);
    bytes[size++] = (byte) b;
  }

  @Override
  public void write(byte[] source, int offset, int length) {
    ensure(size + length);
    System.arraycopy(source, offset, bytes, size, length);
    size += length;
  }

  @Override
  public int write(ByteBuffer source) {
    int length = source.remaining();
    ensure(size + length);
    source.get(bytes, size, length);
    size += length;
    return length;
  }

  /**
   * The bytes written so far.
   *
   * @return the size in bytes
   */
  public int size() {
    return size;
  }

  /**
   * The bytes written so far, positioned at 0; shares this sink's array.
   *
   * @return a buffer of the bytes written so far; later writes may or may not show in it
   */
  public ByteBuffer buffer() {
    return ByteBuffer.wrap(bytes, 0, size).slice();
  }

  /**
   * The bytes written so far in an array of exactly their length (a copy unless it fits).
   *
   * @return the bytes written so far; the sink's own array when it is exactly full
   */
  public byte[] toByteArray() {
    return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}

  private void ensure(int capacity) {
    if (capacity < 0) {
      throw new IllegalStateException("More than 2 GiB written to a byte sink");
    }
    if (capacity > bytes.length) {
      bytes =
          Arrays.copyOf(
              bytes, Math.max(capacity, (int) Math.min(Integer.MAX_VALUE - 8, bytes.length * 2L)));
    }
  }
}
