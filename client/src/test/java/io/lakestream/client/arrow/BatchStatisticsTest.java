package io.lakestream.client.arrow;

import static io.lakestream.client.arrow.ColumnPredicate.equal;
import static io.lakestream.client.arrow.ColumnPredicate.greaterThan;
import static io.lakestream.client.arrow.ColumnPredicate.greaterThanOrEqual;
import static io.lakestream.client.arrow.ColumnPredicate.isNotNull;
import static io.lakestream.client.arrow.ColumnPredicate.isNull;
import static io.lakestream.client.arrow.ColumnPredicate.lessThan;
import static io.lakestream.client.arrow.ColumnPredicate.lessThanOrEqual;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BatchStatisticsTest {
  private static final int ROWS = 100;
  // Columns of TestBatches.mixedSchema().
  private static final int ID = 0;
  private static final int COUNT = 1;
  private static final int TAGS = 2;
  private static final int RATIO = 3;
  private static final int NAME = 4;
  private static final int FLAG = 6;
  private static final int DAY = 7;
  private static final int TS = 8;
  private static final int AMOUNT = 9;
  private static final int PAYLOAD = 10;
  private static final int SCORE = 11;
  private static final int UUID = 12;
  private static final int NOTHING = 13;

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void computesBoundsAndNullCountsOfEveryColumnKind() {
    BatchStatistics statistics = mixedStatistics();

    // Rows 3, 10, ..., 94 (i % 7 == 3) are null: 14 of 100.
    assertThat(statistics.rowCount()).isEqualTo(ROWS);
    assertThat(statistics.columns()).hasSize(14);
    assertThat(statistics.column(ID)).isEqualTo(ColumnStats.ofLongs(14, 1000, 1099));
    assertThat(statistics.column(COUNT)).isEqualTo(ColumnStats.ofLongs(14, -50, 247));
    assertThat(statistics.column(TAGS)).isEqualTo(ColumnStats.unordered(14));
    assertThat(statistics.column(RATIO)).isEqualTo(ColumnStats.ofDoubles(14, -1.0, 11.375));
    assertThat(statistics.column(NAME))
        .isEqualTo(ColumnStats.ofBinary(14, utf8("name-a0"), utf8("name-z77")));
    assertThat(statistics.column(FLAG)).isEqualTo(ColumnStats.ofLongs(14, 0, 1));
    assertThat(statistics.column(DAY)).isEqualTo(ColumnStats.ofLongs(14, 19_000, 19_099));
    assertThat(statistics.column(TS))
        .isEqualTo(ColumnStats.ofLongs(14, 1_700_000_000_000_000L, 1_700_000_000_000_099L));
    assertThat(statistics.column(AMOUNT))
        .isEqualTo(ColumnStats.ofDecimals(14, new BigDecimal("-5.00"), new BigDecimal("94.99")));
    assertThat(statistics.column(PAYLOAD))
        .isEqualTo(
            ColumnStats.ofBinary(14, new byte[] {0, (byte) 0xF0}, new byte[] {99, (byte) 0xF0}));
    assertThat(statistics.column(SCORE)).isEqualTo(ColumnStats.ofDoubles(14, 0.0, 49.5));
    byte[] lowestUuid = new byte[16];
    byte[] highestUuid = new byte[16];
    highestUuid[15] = 99;
    assertThat(statistics.column(UUID))
        .isEqualTo(ColumnStats.ofBinary(14, lowestUuid, highestUuid));
    assertThat(statistics.column(NOTHING))
        .isEqualTo(ColumnStats.allNull(ColumnStats.Kind.LONG, ROWS));
    assertThat(statistics.column(NOTHING).hasBounds()).isFalse();
  }

  @Test
  void doublesKeepNaNAsTheUpperBoundAndNormalizeNegativeZero() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("a", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("b", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      setDoubles((Float8Vector) root.getVector(0), 2.5, Double.NaN, -3.0);
      setDoubles((Float8Vector) root.getVector(1), -0.0, 0.0, -0.0);
      setDoubles((Float8Vector) root.getVector(2), Double.NaN, Double.NaN, Double.NaN);
      root.setRowCount(3);

      BatchStatistics statistics = BatchStatistics.compute(root);

      assertThat(statistics.column(0)).isEqualTo(ColumnStats.ofDoubles(0, -3.0, Double.NaN));
      assertThat(statistics.column(1).lowerBound()).isEqualTo(0.0);
      assertThat(statistics.mightMatch(equal(1, -0.0))).isTrue();
      assertThat(statistics.mightMatch(greaterThan(0, 100.0))).isTrue();
      assertThat(statistics.mightMatch(lessThan(0, -3.0))).isFalse();
      assertThat(statistics.mightMatch(lessThan(2, 1.0))).isFalse();
      assertThat(statistics.mightMatch(equal(2, Double.NaN))).isTrue();
    }
  }

  @Test
  void truncatesLongBinaryBoundsSoThatTheyStillBoundTheValues() {
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    String low = "a".repeat(100);
    String high = "z".repeat(70) + "b";
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector vector = (VarCharVector) root.getVector(0);
      vector.setSafe(0, utf8(high));
      vector.setSafe(1, utf8(low));
      vector.setSafe(2, utf8("m"));
      root.setRowCount(3);

      BatchStatistics statistics = BatchStatistics.compute(root);

      byte[] lower = (byte[]) statistics.column(0).lowerBound();
      byte[] upper = (byte[]) statistics.column(0).upperBound();
      assertThat(lower).isEqualTo(utf8("a".repeat(64)));
      assertThat(upper).isEqualTo(utf8("z".repeat(63) + "{"));
      assertThat(Arrays.compareUnsigned(lower, utf8(low))).isNegative();
      assertThat(Arrays.compareUnsigned(upper, utf8(high))).isPositive();
      assertThat(statistics.mightMatch(equal(0, low))).isTrue();
      assertThat(statistics.mightMatch(equal(0, high))).isTrue();
      assertThat(statistics.mightMatch(greaterThan(0, "zz"))).isTrue();
      assertThat(statistics.mightMatch(lessThan(0, "a"))).isFalse();
    }
  }

  @Test
  void unsigned64BitIntegersHaveNoBounds() {
    Schema schema = new Schema(List.of(Field.nullable("u", new ArrowType.Int(64, false))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      ((UInt8Vector) root.getVector(0)).setSafe(0, -1L);
      root.setRowCount(1);

      assertThat(BatchStatistics.compute(root).column(0)).isEqualTo(ColumnStats.unordered(0));
    }
  }

  static Stream<Arguments> truthTable() {
    return Stream.of(
        // id: 1000..1099, 14 nulls of 100 rows
        Arguments.of(equal(ID, 999), false),
        Arguments.of(equal(ID, 1000), true),
        Arguments.of(equal(ID, 1050), true),
        Arguments.of(equal(ID, 1099), true),
        Arguments.of(equal(ID, 1100), false),
        Arguments.of(lessThan(ID, 1000), false),
        Arguments.of(lessThan(ID, 1001), true),
        Arguments.of(lessThanOrEqual(ID, 999), false),
        Arguments.of(lessThanOrEqual(ID, 1000), true),
        Arguments.of(greaterThan(ID, 1099), false),
        Arguments.of(greaterThan(ID, 1098), true),
        Arguments.of(greaterThanOrEqual(ID, 1100), false),
        Arguments.of(greaterThanOrEqual(ID, 1099), true),
        Arguments.of(isNull(ID), true),
        Arguments.of(isNotNull(ID), true),
        // count: int column, literal widened from Integer
        Arguments.of(lessThan(COUNT, -50), false),
        Arguments.of(lessThan(COUNT, Integer.valueOf(-49)), true),
        // ratio: -1.0..11.375
        Arguments.of(greaterThan(RATIO, 11.375), false),
        Arguments.of(greaterThanOrEqual(RATIO, 11.375), true),
        Arguments.of(lessThan(RATIO, -1L), false),
        Arguments.of(equal(RATIO, 0.5f), true),
        // name: 'name-a0'..'name-z77'
        Arguments.of(equal(NAME, "name-m12"), true),
        Arguments.of(equal(NAME, "name"), false),
        Arguments.of(equal(NAME, "zebra"), false),
        Arguments.of(lessThan(NAME, "name-a0"), false),
        Arguments.of(lessThanOrEqual(NAME, utf8("name-a0")), true),
        Arguments.of(greaterThan(NAME, "name-z77"), false),
        Arguments.of(greaterThan(NAME, "name-z7"), true),
        // flag: false..true
        Arguments.of(equal(FLAG, true), true),
        Arguments.of(greaterThan(FLAG, true), false),
        // day and ts: storage units
        Arguments.of(lessThan(DAY, 19_000), false),
        Arguments.of(equal(TS, 1_700_000_000_000_050L), true),
        Arguments.of(greaterThan(TS, 1_700_000_000_000_099L), false),
        // amount: -5.00..94.99, compared by value whatever the scale
        Arguments.of(equal(AMOUNT, new BigDecimal("94.990")), true),
        Arguments.of(greaterThan(AMOUNT, new BigDecimal("94.99")), false),
        Arguments.of(lessThan(AMOUNT, -5L), false),
        Arguments.of(lessThanOrEqual(AMOUNT, -5L), true),
        // payload: unsigned bytes
        Arguments.of(greaterThan(PAYLOAD, new byte[] {99, (byte) 0xF0}), false),
        Arguments.of(lessThan(PAYLOAD, new byte[] {0, (byte) 0xF1}), true),
        // tags: a list has no bounds, so comparisons cannot skip; null tests still can
        Arguments.of(equal(TAGS, 1L), true),
        // nothing: all null
        Arguments.of(equal(NOTHING, 1), false),
        Arguments.of(greaterThan(NOTHING, Long.MIN_VALUE), false),
        Arguments.of(isNull(NOTHING), true),
        Arguments.of(isNotNull(NOTHING), false));
  }

  @ParameterizedTest
  @MethodSource("truthTable")
  void mightMatchIsFalseOnlyWhenNoRowCanMatch(ColumnPredicate predicate, boolean expected) {
    BatchStatistics statistics = mixedStatistics();

    assertThat(statistics.mightMatch(predicate)).as(predicate.toString()).isEqualTo(expected);
    BatchStatistics parsed = BatchStatistics.parse(ByteBuffer.wrap(statistics.serialize()));
    assertThat(parsed.mightMatch(predicate)).as(predicate.toString()).isEqualTo(expected);
  }

  @Test
  void nullTestsUseTheNullCount() {
    BatchStatistics noNulls =
        new BatchStatistics(5, List.of(ColumnStats.ofLongs(0, 1, 2), ColumnStats.unordered(5)));

    assertThat(noNulls.mightMatch(isNull(0))).isFalse();
    assertThat(noNulls.mightMatch(isNotNull(0))).isTrue();
    assertThat(noNulls.mightMatch(isNull(1))).isTrue();
    assertThat(noNulls.mightMatch(isNotNull(1))).isFalse();
  }

  @Test
  void skipsTheBatchesAFilterCannotMatch() {
    List<BatchStatistics> batches =
        List.of(
            w1Statistics(1, 0),
            w1Statistics(2, 10_000),
            w1Statistics(3, 20_000),
            w1Statistics(4, 30_000));
    // b0 grows with the row number: 1.7e12 + row * 1000 + [0, 1000).
    long secondBatchStart = 1_700_000_000_000L + 10_000 * 1000L;
    BatchFilter filter =
        BatchFilter.of(
            greaterThanOrEqual(0, secondBatchStart),
            lessThan(0, secondBatchStart + 5_000_000L),
            isNotNull(15));

    filter.validate(TestBatches.w1Schema());
    assertThat(batches.stream().map(batch -> batch.mightMatch(filter)))
        .containsExactly(false, true, false, false);
    assertThat(batches.stream().map(batch -> batch.mightMatch(BatchFilter.MATCH_ALL)))
        .containsOnly(true);
  }

  @Test
  void roundTripsThroughTheWireFormat() {
    BatchStatistics statistics = mixedStatistics();

    byte[] bytes = statistics.serialize();

    assertThat(BatchStatistics.parse(ByteBuffer.wrap(bytes))).isEqualTo(statistics);
    assertThat(bytes.length).isLessThan(300);
    BatchStatistics edgeCases =
        new BatchStatistics(
            Long.MAX_VALUE,
            List.of(
                ColumnStats.ofLongs(0, Long.MIN_VALUE, Long.MAX_VALUE),
                ColumnStats.ofDoubles(1, Double.NEGATIVE_INFINITY, Double.NaN),
                ColumnStats.ofBinary(2, new byte[0], new byte[] {(byte) 0xFF}),
                ColumnStats.ofDecimals(
                    3,
                    new BigDecimal("-1E+40"),
                    new BigDecimal("123456789012345678901234567890.5")),
                ColumnStats.allNull(ColumnStats.Kind.BINARY, 4),
                ColumnStats.unordered(Long.MAX_VALUE)));
    assertThat(BatchStatistics.parse(ByteBuffer.wrap(edgeCases.serialize()))).isEqualTo(edgeCases);
  }

  @Test
  void rejectsBytesThatAreNotStatistics() {
    byte[] bytes = mixedStatistics().serialize();

    assertThatThrownBy(() -> BatchStatistics.parse(ByteBuffer.wrap(new byte[] {9})))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Invalid batch statistics at byte 1: unknown version 9");
    assertThatThrownBy(
            () -> BatchStatistics.parse(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 1))))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessageContaining("truncated");
    assertThatThrownBy(
            () -> BatchStatistics.parse(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length + 2))))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessageEndingWith(": 2 trailing bytes");
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> BatchStatistics.parse(ByteBuffer.wrap(cut)))
          .isInstanceOf(InvalidBatchFormatException.class);
    }
  }

  @Test
  void rejectsPredicatesThatDoNotFitTheColumn() {
    BatchStatistics statistics = mixedStatistics();

    assertThatThrownBy(() -> statistics.mightMatch(equal(ID, "1000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot compare column 0 (LONG statistics) with the String literal of column 0 ="
                + " '1000'");
    assertThatThrownBy(() -> statistics.mightMatch(equal(14, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot check column 14 = 1: the batch has 14 columns");
    assertThatThrownBy(() -> statistics.mightMatch(equal(RATIO, Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private BatchStatistics mixedStatistics() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, ROWS)) {
      return BatchStatistics.compute(root);
    }
  }

  private BatchStatistics w1Statistics(long seed, long firstRow) {
    try (VectorSchemaRoot root = TestBatches.w1(allocator, 10_000, seed, firstRow)) {
      return BatchStatistics.compute(root);
    }
  }

  private static void setDoubles(Float8Vector vector, double... values) {
    for (int i = 0; i < values.length; i++) {
      vector.setSafe(i, values[i]);
    }
  }

  @Test
  void claimedStatisticsCoverTheActualOnesOnlyWhenTheyAreTrue() {
    ColumnStats actual = ColumnStats.ofLongs(1, 5, 9);
    assertThat(ColumnStats.ofLongs(1, 5, 9).covers(actual)).isTrue();
    assertThat(ColumnStats.ofLongs(1, 0, 100).covers(actual)).isTrue();
    assertThat(ColumnStats.ofLongs(1, 6, 9).covers(actual))
        .as("lower bound above the min")
        .isFalse();
    assertThat(ColumnStats.ofLongs(1, 5, 8).covers(actual))
        .as("upper bound below the max")
        .isFalse();
    assertThat(ColumnStats.ofLongs(0, 5, 9).covers(actual)).as("null count").isFalse();
    assertThat(ColumnStats.allNull(ColumnStats.Kind.LONG, 1).covers(actual))
        .as("no bounds for a column with values")
        .isFalse();
    assertThat(ColumnStats.ofDoubles(1, 5, 9).covers(actual)).as("kind").isFalse();
    assertThat(
            ColumnStats.ofBinary(0, utf8("a"), utf8("z"))
                .covers(ColumnStats.ofBinary(0, utf8("b"), utf8("y"))))
        .isTrue();
    assertThat(
            ColumnStats.allNull(ColumnStats.Kind.BINARY, 3)
                .covers(ColumnStats.allNull(ColumnStats.Kind.BINARY, 3)))
        .isTrue();
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Random batches, with and without nulls, against bounds found by comparing every value with
   * plain Java: longs and ints at their extremes, doubles with NaN and signed zeros, strings of 0
   * to 30 UTF-8 bytes (non-ASCII bytes compare unsigned) that often share prefixes of about 8
   * bytes, so that values differing only past their first 8 bytes, or only in length, meet; in a
   * third of the batches the strings mostly rise, as ids and times written as text do.
   */
  @ParameterizedTest
  @MethodSource("randomBatches")
  void boundsOfRandomBatchesAreTheSmallestAndLargestValues(long seed, boolean withNulls) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    int rows = 1 + random.nextInt(3000);
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("l", new ArrowType.Int(64, true)),
                Field.nullable("i", new ArrowType.Int(32, true)),
                Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    String[] prefixes = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "\u00e9t\u00e9-", "zz\u00ff"};
    String alphabet = "abz\u00e9\u00ff\u4e2d\u0000~";
    // In a third of the batches strings mostly rise (a shared 16-byte prefix and a counter), with
    // a random value now and then, above or below.
    boolean rising = seed % 3 == 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      org.apache.arrow.vector.BigIntVector longs =
          (org.apache.arrow.vector.BigIntVector) root.getVector(0);
      org.apache.arrow.vector.IntVector ints =
          (org.apache.arrow.vector.IntVector) root.getVector(1);
      Float8Vector doubles = (Float8Vector) root.getVector(2);
      VarCharVector strings = (VarCharVector) root.getVector(3);
      long[] nulls = new long[4];
      Long minLong = null;
      Long maxLong = null;
      Integer minInt = null;
      Integer maxInt = null;
      double minDouble = Double.POSITIVE_INFINITY;
      double maxDouble = Double.NEGATIVE_INFINITY;
      boolean nan = false;
      boolean number = false;
      byte[] minString = null;
      byte[] maxString = null;
      for (int row = 0; row < rows; row++) {
        if (withNulls && random.nextInt(5) == 0) {
          nulls[0]++;
        } else {
          long value =
              switch (random.nextInt(4)) {
                case 0 -> Long.MIN_VALUE + random.nextInt(3);
                case 1 -> Long.MAX_VALUE - random.nextInt(3);
                default -> random.nextLong();
              };
          longs.setSafe(row, value);
          minLong = minLong == null ? value : Math.min(minLong, value);
          maxLong = maxLong == null ? value : Math.max(maxLong, value);
        }
        if (withNulls && random.nextInt(5) == 0) {
          nulls[1]++;
        } else {
          int value = random.nextInt(10) == 0 ? Integer.MIN_VALUE : random.nextInt();
          ints.setSafe(row, value);
          minInt = minInt == null ? value : Math.min(minInt, value);
          maxInt = maxInt == null ? value : Math.max(maxInt, value);
        }
        if (withNulls && random.nextInt(5) == 0) {
          nulls[2]++;
        } else {
          double value =
              switch (random.nextInt(20)) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> 0.0;
                default -> (random.nextDouble() - 0.5) * 1e6;
              };
          doubles.setSafe(row, value);
          if (Double.isNaN(value)) {
            nan = true;
          } else {
            number = true;
            minDouble = Math.min(minDouble, value);
            maxDouble = Math.max(maxDouble, value);
          }
        }
        if (withNulls && random.nextInt(5) == 0) {
          nulls[3]++;
        } else {
          StringBuilder value = new StringBuilder();
          if (rising && random.nextInt(50) != 0) {
            value.append("abcdefghijklmnop").append(String.format("%06d", row));
          } else {
            value.append(prefixes[random.nextInt(prefixes.length)]);
            for (int length = random.nextInt(12); length > 0; length--) {
              value.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
          }
          byte[] bytes = utf8(value.toString());
          strings.setSafe(row, bytes);
          if (minString == null || Arrays.compareUnsigned(bytes, minString) < 0) {
            minString = bytes;
          }
          if (maxString == null || Arrays.compareUnsigned(bytes, maxString) > 0) {
            maxString = bytes;
          }
        }
      }
      root.setRowCount(rows); // a row not set in a column is null there

      BatchStatistics statistics = BatchStatistics.compute(root);

      assertThat(statistics.column(0))
          .isEqualTo(
              minLong == null
                  ? ColumnStats.allNull(ColumnStats.Kind.LONG, rows)
                  : ColumnStats.ofLongs(nulls[0], minLong, maxLong));
      assertThat(statistics.column(1))
          .isEqualTo(
              minInt == null
                  ? ColumnStats.allNull(ColumnStats.Kind.LONG, rows)
                  : ColumnStats.ofLongs(nulls[1], minInt, maxInt));
      if (number) {
        assertThat(statistics.column(2))
            .isEqualTo(ColumnStats.ofDoubles(nulls[2], minDouble, nan ? Double.NaN : maxDouble));
      } else if (nan) {
        assertThat(statistics.column(2))
            .isEqualTo(ColumnStats.ofDoubles(nulls[2], Double.NaN, Double.NaN));
      }
      if (minString != null) {
        assertThat(statistics.column(3))
            .isEqualTo(ColumnStats.ofBinary(nulls[3], minString, maxString));
      }
    }
  }

  static Stream<Arguments> randomBatches() {
    return java.util.stream.LongStream.range(0, 40)
        .mapToObj(seed -> Arguments.of(seed, seed % 2 == 1));
  }
}
