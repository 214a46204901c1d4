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
  public static final int REQUEST_HEADER = 4 + 2 + 2 + 4;
  public static final int RESPONSE_HEADER = 4 + 4 + 2;

  private Wire() {}

  public static void putString(ByteBuffer buffer, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException(
          "String too long for the wire: " + bytes.length + " bytes");
    }
    buffer.putShort((short) bytes.length);
    buffer.put(bytes);
  }

  public static String getString(ByteBuffer buffer) {
    int length = buffer.getShort();
    if (length < 0 || length > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Malformed string of length " + length);
    }
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  public static int stringSize(String value) {
    return 2 + value.getBytes(StandardCharsets.UTF_8).length;
  }

  public static void putBytes(ByteBuffer buffer, ByteBuffer bytes) {
    buffer.putInt(bytes.remaining());
    buffer.put(bytes.duplicate());
  }

  /** A view of the next byte array, without copying. */
  public static ByteBuffer getBytes(ByteBuffer buffer) {
    int length = buffer.getInt();
    if (length < 0 || length > buffer.remaining()) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Malformed byte array of length " + length);
    }
    ByteBuffer slice = buffer.slice(buffer.position(), length);
    buffer.position(buffer.position() + length);
    return slice;
  }

  public static void putInts(ByteBuffer buffer, int[] values) {
    buffer.putInt(values.length);
    for (int value : values) {
      buffer.putInt(value);
    }
  }

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
