package io.lakestream.client.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ValueChecksTest {
  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  /** The JDK's decoder, which reports malformed input, is the reference for well-formed UTF-8. */
  private static boolean jdkAccepts(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static boolean accepts(byte[] bytes) {
    ByteBuffer data = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    return ValueChecks.firstInvalidUtf8(data, 0, bytes.length) < 0;
  }

  @Test
  void acceptsDecimalsThatUseEveryDigitOfThePrecisionAndRefusesLongerOnes() {
    try (DecimalVector vector = new DecimalVector("amount", allocator, 5, 3)) {
      vector.allocateNew(4);
      vector.setSafe(0, new BigDecimal("12.345"));
      vector.setSafe(1, new BigDecimal("-99.999"));
      vector.setNull(2);
      vector.setSafe(3, new BigDecimal("0.001"));
      vector.setValueCount(4);
      ValueChecks.checkFull(vector);

      vector.setSafe(2, 123_456L); // unscaled: 123.456, six digits
      assertThatThrownBy(() -> ValueChecks.checkFull(vector))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column amount at row 2 holds 123.456, which does not fit precision 5");
    }
  }

  @Test
  void agreesWithTheJdkDecoderOnRandomBytesAroundEveryLeadByte() {
    SplittableRandom random = new SplittableRandom(20261204L);
    int refused = 0;
    for (int n = 0; n < 200_000; n++) {
      byte[] bytes = new byte[1 + random.nextInt(12)];
      for (int i = 0; i < bytes.length; i++) {
        // Mostly ASCII runs (the eight-byte path), then lead and continuation bytes of every kind.
        int pick = random.nextInt(4);
        bytes[i] =
            (byte)
                switch (pick) {
                  case 0 -> random.nextInt(0x80);
                  case 1 -> 0x80 + random.nextInt(0x40);
                  default -> random.nextInt(0x100);
                };
      }
      boolean expected = jdkAccepts(bytes);
      assertThat(accepts(bytes))
          .as("bytes %s", java.util.HexFormat.of().formatHex(bytes))
          .isEqualTo(expected);
      refused += expected ? 0 : 1;
    }
    assertThat(refused).as("the generator reaches malformed input").isGreaterThan(10_000);
  }

  @Test
  void refusesEachKindOfMalformedSequenceAndTakesEveryPlane() {
    assertThat(accepts("plain ascii, longer than eight".getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(accepts("é € 𝄞 \uD7FF \uE000 \uDBFF\uDFFF".getBytes(StandardCharsets.UTF_8)))
        .isTrue();
    for (String hex :
        List.of("80", "c0af", "c1bf", "e08080", "eda080", "f4908080", "f5808080", "ff", "e282")) {
      byte[] bytes = java.util.HexFormat.of().parseHex(hex);
      assertThat(accepts(bytes)).as(hex).isFalse();
      assertThat(jdkAccepts(bytes)).as(hex).isFalse();
    }
  }

  @Test
  void aStringSplitInsideACharacterIsRefusedEvenThoughTheDataIsUtf8() {
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector vector = (VarCharVector) root.getVector(0);
      vector.setSafe(0, euro, 0, 1);
      vector.setSafe(1, euro, 1, 2);
      root.setRowCount(2);

      assertThatThrownBy(() -> ValueChecks.checkFull(vector))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column s at row 0 is not UTF-8 (byte 0 of 1)");
    }
  }

  @Test
  void nullStringsAndBinariesAreNotReadAsUtf8() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("s", ArrowType.Utf8.INSTANCE),
                Field.nullable("b", ArrowType.Binary.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector strings = (VarCharVector) root.getVector(0);
      VarBinaryVector binaries = (VarBinaryVector) root.getVector(1);
      strings.setSafe(0, "ok".getBytes(StandardCharsets.UTF_8));
      strings.setSafe(1, new byte[] {(byte) 0xff});
      strings.setNull(1);
      binaries.setSafe(0, new byte[] {(byte) 0xff, (byte) 0xc0});
      binaries.setSafe(1, new byte[0]);
      root.setRowCount(2);

      ValueChecks.checkFull(strings);
      ValueChecks.checkFull(binaries);
      strings.setIndexDefined(1);
      assertThatThrownBy(() -> ValueChecks.checkFull(strings))
          .hasMessageContaining("at row 1 is not UTF-8");
    }
  }

  @Test
  void aByteAboveAsciiAnywhereInALongColumnIsFoundInItsRowAndIgnoredInANullRow() {
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    SplittableRandom random = new SplittableRandom(20261207L);
    int rows = 8192;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector vector = (VarCharVector) root.getVector(0);
      for (int row = 0; row < rows; row++) {
        byte[] value = new byte[1 + random.nextInt(24)];
        for (int i = 0; i < value.length; i++) {
          value[i] = (byte) (' ' + random.nextInt(95));
        }
        vector.setSafe(row, value);
      }
      root.setRowCount(rows);
      ValueChecks.checkFull(vector);

      for (int row : new int[] {0, 1, 4999, 5000, rows - 1}) {
        for (boolean last : new boolean[] {false, true}) {
          long at = last ? vector.getEndOffset(row) - 1 : vector.getStartOffset(row);
          byte kept = vector.getDataBuffer().getByte(at);
          vector.getDataBuffer().setByte(at, 0x80);
          assertThatThrownBy(() -> ValueChecks.checkFull(vector))
              .as("byte %d of row %d", at, row)
              .hasMessageStartingWith("Column s at row " + row + " is not UTF-8");
          vector.setNull(row);
          ValueChecks.checkFull(vector);
          vector.setIndexDefined(row);
          vector.getDataBuffer().setByte(at, kept);
        }
      }
      ValueChecks.checkFull(vector);
    }
  }

  @Test
  void offsetsThatGoBackwardsOrPastTheDataAreRefused() {
    Schema schema = new Schema(List.of(Field.nullable("b", ArrowType.Binary.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarBinaryVector vector = (VarBinaryVector) root.getVector(0);
      for (int i = 0; i < 3; i++) {
        vector.setSafe(i, new byte[] {1, 2});
      }
      root.setRowCount(3);
      ValueChecks.checkFull(vector);

      vector.getOffsetBuffer().setInt(8, 1);
      assertThatThrownBy(() -> ValueChecks.checkFull(vector))
          .hasMessage("Column b at row 1 ends at offset 1 before its start 2");
      vector.getOffsetBuffer().setInt(8, 4);
      vector.getOffsetBuffer().setInt(0, -1);
      assertThatThrownBy(() -> ValueChecks.checkFull(vector))
          .hasMessage("Column b at row 0 starts at offset -1");
    }
  }
}
