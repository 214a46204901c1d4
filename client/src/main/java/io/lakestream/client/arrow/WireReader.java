package io.lakestream.client.arrow;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * Reads what {@link WireWriter} wrote, failing with {@link InvalidBatchFormatException} naming the
 * encoding ({@code what}) and the position when the bytes run out or a value is out of range.
 */
final class WireReader {
  private final ByteBuffer buffer;
  private final String what;

  WireReader(ByteBuffer buffer, String what) {
    this.buffer = buffer.slice();
    this.what = what;
  }

  int readByte() {
    require(1);
    return buffer.get() & 0xFF;
  }

  long readUnsignedVarLong() {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readByte();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw invalid("varint longer than 10 bytes");
  }

  long readVarLong() {
    long raw = readUnsignedVarLong();
    return (raw >>> 1) ^ -(raw & 1);
  }

  long readNonNegative(String field) {
    long value = readUnsignedVarLong();
    if (value < 0) {
      throw invalid(field + " is negative (" + value + ")");
    }
    return value;
  }

  int readCount(String field) {
    long value = readUnsignedVarLong();
    if (value > buffer.remaining()) {
      throw invalid(field + " is " + value + " but only " + buffer.remaining() + " bytes remain");
    }
    return (int) value;
  }

  long readFixedLong() {
    require(Long.BYTES);
    long value = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      value |= (long) (buffer.get() & 0xFF) << (8 * i);
    }
    return value;
  }

  byte[] readBytes(String field) {
    byte[] value = new byte[readCount(field + " length")];
    buffer.get(value);
    return value;
  }

  BigDecimal readDecimal(String field) {
    long scale = readVarLong();
    if (scale != (int) scale) {
      throw invalid(field + " has scale " + scale);
    }
    byte[] unscaled = readBytes(field);
    if (unscaled.length == 0) {
      throw invalid(field + " has no digits");
    }
    return new BigDecimal(new BigInteger(unscaled), (int) scale);
  }

  void requireEnd() {
    if (buffer.hasRemaining()) {
      throw invalid(buffer.remaining() + " trailing bytes");
    }
  }

  InvalidBatchFormatException invalid(String problem) {
    return new InvalidBatchFormatException(
        "Invalid " + what + " at byte " + buffer.position() + ": " + problem);
  }

  private void require(int bytes) {
    if (buffer.remaining() < bytes) {
      throw invalid(
          "truncated, needs " + bytes + " more bytes but " + buffer.remaining() + " remain");
    }
  }
}
