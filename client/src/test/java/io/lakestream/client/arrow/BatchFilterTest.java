package io.lakestream.client.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BatchFilterTest {
  private static final BatchFilter EVERY_KIND =
      BatchFilter.of(
          ColumnPredicate.equal(0, 42L),
          ColumnPredicate.lessThan(1, -7),
          ColumnPredicate.lessThanOrEqual(2, 2.5),
          ColumnPredicate.greaterThan(3, "héllo"),
          ColumnPredicate.greaterThanOrEqual(4, new byte[] {0, (byte) 0xFF}),
          ColumnPredicate.equal(5, new BigDecimal("-123.4500")),
          ColumnPredicate.equal(6, true),
          ColumnPredicate.isNull(7),
          ColumnPredicate.isNotNull(300),
          ColumnPredicate.equal(8, Double.NaN),
          ColumnPredicate.lessThan(9, Long.MIN_VALUE));

  @Test
  void roundTripsEveryOperatorAndLiteralType() {
    byte[] bytes = EVERY_KIND.serialize();

    BatchFilter parsed = BatchFilter.parse(ByteBuffer.wrap(bytes));

    assertThat(parsed).isEqualTo(EVERY_KIND);
    assertThat(parsed.predicates().get(1).literal()).isEqualTo(-7L);
    assertThat(parsed.predicates().get(5).literal()).isEqualTo(new BigDecimal("-123.4500"));
    assertThat(BatchFilter.parse(ByteBuffer.wrap(BatchFilter.MATCH_ALL.serialize())))
        .isEqualTo(BatchFilter.MATCH_ALL);
  }

  @Test
  void readsFromTheBufferPositionWithoutMovingIt() {
    byte[] bytes = EVERY_KIND.serialize();
    ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 3);
    buffer.position(3);
    buffer.put(bytes);
    buffer.position(3);

    assertThat(BatchFilter.parse(buffer)).isEqualTo(EVERY_KIND);
    assertThat(buffer.position()).isEqualTo(3);
  }

  @Test
  void normalizesAndCopiesLiterals() {
    byte[] literal = {1, 2};
    ColumnPredicate predicate = ColumnPredicate.equal(0, literal);
    literal[0] = 9;

    assertThat((byte[]) predicate.literal()).containsExactly(1, 2);
    ((byte[]) predicate.literal())[1] = 9;
    assertThat((byte[]) predicate.literal()).containsExactly(1, 2);
    assertThat(predicate).isEqualTo(ColumnPredicate.equal(0, new byte[] {1, 2}));
    assertThat(ColumnPredicate.equal(0, (short) 3).literal()).isEqualTo(3L);
    assertThat(ColumnPredicate.equal(0, 1.5f).literal()).isEqualTo(1.5);
    assertThat(predicate.toString()).isEqualTo("column 0 = X'0102'");
  }

  @Test
  void rejectsMalformedPredicates() {
    assertThatThrownBy(() -> ColumnPredicate.equal(0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Predicate column 0 = needs a literal");
    assertThatThrownBy(() -> new ColumnPredicate(1, ColumnPredicate.Op.IS_NULL, 5L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Predicate column 1 IS NULL takes no literal, got 5");
    assertThatThrownBy(() -> ColumnPredicate.lessThan(2, LocalDate.of(2026, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Predicate column 2 < has a literal of unsupported type java.time.LocalDate;"
                + " use Long, Double, Boolean, String, byte[] or BigDecimal");
    assertThatThrownBy(() -> ColumnPredicate.isNull(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Predicate column is negative: -1");
  }

  @Test
  void validatesAgainstASchema() {
    BatchFilter fits =
        BatchFilter.of(
            ColumnPredicate.equal(0, 5),
            ColumnPredicate.lessThan(4, "abc"),
            ColumnPredicate.isNull(2),
            ColumnPredicate.equal(2, "anything: lists have no bounds"),
            ColumnPredicate.greaterThan(9, new BigDecimal("1.5")));
    fits.validate(TestBatches.mixedSchema());

    assertThatThrownBy(
            () -> BatchFilter.of(ColumnPredicate.equal(3, "x")).validate(TestBatches.mixedSchema()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Predicate column 3 = 'x' does not fit column ratio of type FloatingPoint(DOUBLE):"
                + " Cannot compare column 3 (DOUBLE statistics) with the String literal of"
                + " column 3 = 'x'");
    assertThatThrownBy(
            () -> BatchFilter.of(ColumnPredicate.isNull(14)).validate(TestBatches.mixedSchema()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot check column 14 IS NULL: the schema has 14 columns");
  }

  @Test
  void rejectsBytesThatAreNotAFilter() {
    byte[] bytes = EVERY_KIND.serialize();

    assertThatThrownBy(() -> BatchFilter.parse(ByteBuffer.wrap(new byte[] {1, 1, 0, 99})))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Invalid batch filter at byte 4: predicate 0 has unknown operator code 99");
    assertThatThrownBy(() -> BatchFilter.parse(ByteBuffer.wrap(new byte[] {1, 1, 0, 1, 42})))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Invalid batch filter at byte 5: predicate 0 has unknown literal tag 42");
    assertThatThrownBy(() -> BatchFilter.parse(ByteBuffer.wrap(new byte[] {1, 1, 0, 1, 6, 2})))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Invalid batch filter at byte 6: predicate 0 has boolean literal 2");
    assertThatThrownBy(() -> BatchFilter.parse(ByteBuffer.wrap(new byte[] {2})))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Invalid batch filter at byte 1: unknown version 2");
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> BatchFilter.parse(ByteBuffer.wrap(cut)))
          .isInstanceOf(InvalidBatchFormatException.class);
    }
  }
}
