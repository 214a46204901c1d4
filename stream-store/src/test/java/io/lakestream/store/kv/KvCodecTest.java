package io.lakestream.store.kv;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class KvCodecTest {
  private static final Random RANDOM = new Random(42);

  private static KeyCodec keyCodec(Type type) {
    return new KeyCodec(KvSchema.of(new Schema(List.of(required(1, "k", type)), Set.of(1))));
  }

  /** Sorting values by their encoded keys must sort them by value. */
  private static <T> void assertOrderPreserved(
      Type type, Function<Random, T> values, Comparator<T> order) {
    KeyCodec codec = keyCodec(type);
    List<T> sample = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      sample.add(values.apply(RANDOM));
    }
    List<T> byValue = new ArrayList<>(sample);
    byValue.sort(order);
    List<T> byKey = new ArrayList<>(sample);
    byKey.sort(
        (left, right) ->
            Arrays.compareUnsigned(
                codec.encodeKey(new Object[] {left}), codec.encodeKey(new Object[] {right})));
    for (int i = 0; i < sample.size(); i++) {
      assertThat(order.compare(byKey.get(i), byValue.get(i)))
          .as("%s at %d: %s vs %s", type, i, byKey.get(i), byValue.get(i))
          .isZero();
    }
  }

  @Test
  void keyEncodingPreservesOrderPerType() {
    assertOrderPreserved(
        Types.IntegerType.get(), KvCodecTest::pickInt, Comparator.<Integer>naturalOrder());
    assertOrderPreserved(
        Types.DateType.get(), KvCodecTest::pickInt, Comparator.<Integer>naturalOrder());
    assertOrderPreserved(
        Types.LongType.get(), KvCodecTest::pickLong, Comparator.<Long>naturalOrder());
    assertOrderPreserved(
        Types.TimestampType.withZone(), KvCodecTest::pickLong, Comparator.<Long>naturalOrder());
    assertOrderPreserved(
        Types.BooleanType.get(), Random::nextBoolean, Comparator.<Boolean>naturalOrder());
    assertOrderPreserved(
        Types.DecimalType.of(10, 2),
        random -> BigDecimal.valueOf(random.nextLong(-9_999_999_999L, 9_999_999_999L), 2),
        Comparator.<BigDecimal>naturalOrder());
    assertOrderPreserved(
        Types.DecimalType.of(38, 4),
        random -> new BigDecimal(new BigInteger(125, random).subtract(BigInteger.TWO.pow(124)), 4),
        Comparator.<BigDecimal>naturalOrder());
    assertOrderPreserved(
        Types.StringType.get(),
        KvCodecTest::randomString,
        (left, right) -> Arrays.compare(left.codePoints().toArray(), right.codePoints().toArray()));
    assertOrderPreserved(
        Types.BinaryType.get(),
        random -> randomBytes(random, random.nextInt(5)),
        Arrays::compareUnsigned);
    assertOrderPreserved(
        Types.FixedType.ofLength(3), random -> randomBytes(random, 3), Arrays::compareUnsigned);
  }

  private static int pickInt(Random random) {
    return random.nextInt(5) == 0
        ? pick(random, Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE)
        : random.nextInt();
  }

  private static long pickLong(Random random) {
    return random.nextInt(5) == 0
        ? pick(random, Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)
        : random.nextLong();
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static String randomString(Random random) {
    int[] alphabet = {0, 1, 'a', 'b', 0xFF, 0x7FF, 0xFFFF, 0x1F600};
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(5); i > 0; i--) {
      text.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
    }
    return text.toString();
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = pick(random, (byte) 0, (byte) 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF);
    }
    return bytes;
  }

  @Test
  void compositeKeysOrderColumnByColumnBucketKeyFirst() {
    Schema schema =
        new Schema(
            List.of(
                required(1, "name", Types.StringType.get()),
                required(2, "n", Types.IntegerType.get())),
            Set.of(1, 2));
    KeyCodec byName = new KeyCodec(KvSchema.of(schema));
    List<Object[]> keys =
        List.of(
            new Object[] {"a", 5},
            new Object[] {"a", -2},
            new Object[] {"a\u0000", -9},
            new Object[] {"ab", -9},
            new Object[] {"", 3});
    List<String> sorted =
        keys.stream()
            .sorted((l, r) -> Arrays.compareUnsigned(byName.encodeKey(l), byName.encodeKey(r)))
            .map(Arrays::toString)
            .toList();
    assertThat(sorted).containsExactly("[, 3]", "[a, -2]", "[a, 5]", "[a\u0000, -9]", "[ab, -9]");

    KeyCodec byNumber = new KeyCodec(KvSchema.create(Map.of(0, schema), 0, List.of("n")));
    byte[] prefix = byNumber.encodeBucketKeyPrefix(new Object[] {-9});
    for (Object[] key : keys) {
      byte[] encoded = byNumber.encodeKey(key);
      boolean startsWith = Arrays.equals(encoded, 0, prefix.length, prefix, 0, prefix.length);
      assertThat(startsWith).as(Arrays.toString(key)).isEqualTo(key[1].equals(-9));
    }
  }

  @Test
  void rowsRoundTripEveryType() {
    Schema schema =
        new Schema(
            List.of(
                required(1, "id", Types.IntegerType.get()),
                optional(2, "flag", Types.BooleanType.get()),
                optional(3, "big", Types.LongType.get()),
                optional(4, "f", Types.FloatType.get()),
                optional(5, "d", Types.DoubleType.get()),
                optional(6, "small_decimal", Types.DecimalType.of(9, 3)),
                optional(7, "wide_decimal", Types.DecimalType.of(38, 0)),
                optional(8, "day", Types.DateType.get()),
                optional(9, "at", Types.TimestampType.withoutZone()),
                optional(10, "text", Types.StringType.get()),
                optional(11, "blob", Types.BinaryType.get()),
                optional(12, "fixed", Types.FixedType.ofLength(2))),
            Set.of(1));
    RowCodec codec = new RowCodec(KvSchema.of(schema));
    Object[] full = {
      7,
      true,
      -5L,
      1.5f,
      -0.0,
      new BigDecimal("-123.456"),
      new BigDecimal("99999999999999999999999999999999999999"),
      19_000,
      1_700_000_000_000_000L,
      "h\u00e9llo \uD83D\uDE00",
      new byte[300],
      new byte[] {1, 2}
    };
    assertThat(codec.decode(codec.encode(full))).containsExactly(full);
    Object[] sparse = new Object[12];
    sparse[0] = 8;
    sparse[9] = "";
    assertThat(codec.decode(codec.encode(sparse))).containsExactly(sparse);
  }

  @Test
  void valuesOfOlderSchemasDecodeIntoTheCurrentOne() {
    Schema v0 =
        new Schema(
            0,
            List.of(
                required(1, "id", Types.IntegerType.get()),
                optional(2, "dropped", Types.StringType.get()),
                optional(3, "count", Types.IntegerType.get()),
                optional(4, "ratio", Types.FloatType.get())),
            Set.of(1));
    Schema v1 =
        new Schema(
            1,
            List.of(
                required(1, "id", Types.IntegerType.get()),
                optional(5, "added", Types.StringType.get()),
                optional(4, "ratio", Types.DoubleType.get()),
                optional(3, "count", Types.LongType.get())),
            Set.of(1));
    byte[] old = new RowCodec(KvSchema.of(v0)).encode(new Object[] {1, "gone", 3, 0.5f});
    RowCodec current = new RowCodec(KvSchema.create(Map.of(0, v0, 1, v1), 1, List.of()));
    assertThat(current.decode(old)).containsExactly(1, null, 0.5, 3L);
    RowCodec withoutHistory = new RowCodec(KvSchema.of(v1));
    assertThatThrownBy(() -> withoutHistory.decode(old))
        .hasMessage("Value written under unknown schema id 0");
  }

  @Test
  void schemasThatCannotBeStoredAreRefused() {
    assertThatThrownBy(
            () ->
                KvSchema.of(
                    new Schema(
                        List.of(
                            required(1, "id", Types.IntegerType.get()),
                            optional(
                                2, "tags", Types.ListType.ofOptional(3, Types.StringType.get()))),
                        Set.of(1))))
        .hasMessage("Column 'tags' has type list<string>, which primary-key tables do not support");
    assertThatThrownBy(
            () ->
                KvSchema.of(new Schema(List.of(required(1, "u", Types.UUIDType.get())), Set.of(1))))
        .hasMessage("Column 'u' has type uuid, which primary-key tables do not support");
    assertThatThrownBy(
            () -> KvSchema.of(new Schema(List.of(required(1, "id", Types.IntegerType.get())))))
        .hasMessage("A primary-key table needs identifier fields (the primary key) in its schema");
    Schema schema =
        new Schema(
            List.of(
                required(1, "id", Types.IntegerType.get()),
                optional(2, "v", Types.StringType.get())),
            Set.of(1));
    assertThatThrownBy(() -> KvSchema.create(Map.of(0, schema), 0, List.of("v")))
        .hasMessage("Bucket-key column 'v' is not a primary-key column");
    assertThatThrownBy(() -> KvSchema.of(schema).positions(List.of("id", "nope")))
        .hasMessage("Unknown column 'nope'");
    assertThat(KvSchema.of(schema).positions(List.of("v", "id", "v"))).containsExactly(0, 1);
  }

  @Test
  void valuesAreCheckedAndCanonicalised() {
    Schema schema =
        new Schema(
            List.of(
                required(1, "id", Types.IntegerType.get()),
                optional(2, "price", Types.DecimalType.of(5, 2)),
                optional(3, "code", Types.FixedType.ofLength(2))),
            Set.of(1));
    KvSchema kvSchema = KvSchema.of(schema);
    assertThat(kvSchema.canonicalRow(new Object[] {1, new BigDecimal("1.5"), null})[1])
        .isEqualTo(new BigDecimal("1.50"));
    assertThatThrownBy(() -> kvSchema.canonicalRow(new Object[] {1, new BigDecimal("1.555"), null}))
        .hasMessage("Column 'price' of type decimal(5, 2) cannot hold 1.555");
    assertThatThrownBy(() -> kvSchema.canonicalRow(new Object[] {1, new BigDecimal("1000"), null}))
        .hasMessage("Column 'price' of type decimal(5, 2) cannot hold 1000");
    assertThatThrownBy(() -> kvSchema.canonicalRow(new Object[] {1, null, new byte[3]}))
        .hasMessage("Column 'code' of type fixed[2] needs 2 bytes, got 3");
  }
}
