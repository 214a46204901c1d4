package io.lakestream.client.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Primitive encodings of the stream RPC, big-endian throughout.
 *
 * <p>A request frame is {@code int32 length | int16 api key | int16 api version | int32 request id
 * | body}; a response frame is {@code int32 length | int32 request id | int16 error code | body},
 * where the body of an error is one string, the message. The length counts the bytes after it.
 * Strings are {@code int16 length | UTF-8}; byte arrays {@code int32 length | bytes}; int arrays
 * {@code int32 count | int32...}.
 */
public final class Wire {
  /** Bytes of a request frame before its body: length, api key, api version, request id. */
  public static final int REQUEST_HEADER = 4 + 2 + 2 + 4;

  /** Bytes of a response frame before its body: length, request id, error code. */
  public static final int RESPONSE_HEADER = 4 + 4 + 2;

  private Wire() {}

  /**
   * Writes a string as {@code int16 length | UTF-8}.
   *
   * @param buffer where to write, at its position
   * @param value the string
   * @throws IllegalArgumentException if its UTF-8 form is longer than 32767 bytes
   */
  public static void putString(ByteBuffer buffer, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException(
          "String too long for the wire: " + bytes.length + " bytes");
    }
    buffer.putShort((short) bytes.length);
    buffer.put(bytes);
  }

  /**
   * Reads a string written by {@link #putString}.
   *
   * @param buffer positioned at the string; advanced past it
   * @return the string
   * @throws RpcException {@code INVALID_REQUEST} if the length is negative or exceeds the bytes
   *     left
   */
  public static String getString(ByteBuffer buffer) {
    int length = buffer.getShort();
    if (length < 0 || length > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Malformed string of length " + length);
    }
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The bytes {@link #putString} writes for a string.
   *
   * @param value the string
   * @return 2 plus its UTF-8 length
   */
  public static int stringSize(String value) {
    return 2 + value.getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * Writes a byte array as {@code int32 length | bytes}.
   *
   * @param buffer where to write, at its position
   * @param bytes the bytes from position to limit (not consumed)
   */
  public static void putBytes(ByteBuffer buffer, ByteBuffer bytes) {
    buffer.putInt(bytes.remaining());
    buffer.put(bytes.duplicate());
  }

  /**
   * A view of the next byte array, without copying.
   *
   * @param buffer positioned at the array; advanced past it
   * @return a slice of {@code buffer} holding the array's bytes
   * @throws RpcException {@code INVALID_REQUEST} if the length is negative or exceeds the bytes
   *     left
   */
  public static ByteBuffer getBytes(ByteBuffer buffer) {
    int length = buffer.getInt();
    if (length < 0 || length > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Malformed byte array of length " + length);
    }
    ByteBuffer slice = buffer.slice(buffer.position(), length);
    buffer.position(buffer.position() + length);
    return slice;
  }

  /**
   * Writes an int array as {@code int32 count | int32...}.
   *
   * @param buffer where to write, at its position
   * @param values the values
   */
  public static void putInts(ByteBuffer buffer, int[] values) {
    buffer.putInt(values.length);
    for (int value : values) {
      buffer.putInt(value);
    }
  }

  /**
   * Reads an int array written by {@link #putInts}.
   *
   * @param buffer positioned at the array; advanced past it
   * @return the values
   * @throws RpcException {@code INVALID_REQUEST} if the count is negative or exceeds the bytes left
   */
  public static int[] getInts(ByteBuffer buffer) {
    int count = buffer.getInt();
    if (count < 0 || count > buffer.remaining() / 4) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Malformed int array of length " + count);
    }
    int[] values = new int[count];
    for (int i = 0; i < count; i++) {
      values[i] = buffer.getInt();
    }
    return values;
  }
}
