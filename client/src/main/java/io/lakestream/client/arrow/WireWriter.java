package io.lakestream.client.arrow;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;

/** Appends the primitives of the statistics and filter encodings: varints, zig-zag, raw bytes. */
final class WireWriter {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

  WireWriter writeByte(int value) {
    out.write(value);
    return this;
  }

  WireWriter writeUnsignedVarLong(long value) {
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
    return this;
  }

  WireWriter writeVarLong(long value) {
    return writeUnsignedVarLong((value << 1) ^ (value >> 63));
  }

  WireWriter writeFixedLong(long value) {
    for (int i = 0; i < Long.BYTES; i++) {
      out.write((int) (value >>> (8 * i)));
    }
    return this;
  }

  WireWriter writeBytes(byte[] value) {
    writeUnsignedVarLong(value.length);
    out.write(value, 0, value.length);
    return this;
  }

  WireWriter writeDecimal(BigDecimal value) {
    writeVarLong(value.scale());
    return writeBytes(value.unscaledValue().toByteArray());
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}
