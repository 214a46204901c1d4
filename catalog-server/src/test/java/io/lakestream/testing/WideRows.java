package io.lakestream.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Rows of the standard workloads W1 (wide events) and W2 (keyed state) of {@code BENCHMARKS.md} for
 * tests: 20 columns {@code b0..b4 BIGINT}, {@code i0..i4 INT}, {@code d0..d4 DOUBLE}, {@code s0..s4
 * STRING} of 16-24 ASCII characters, with the same value distributions as the benchmarks'
 * generator. Unlike the benchmarks' pool, every row is a pure function of its key and a version, so
 * a test can recompute any row it wrote without keeping it. The first column is the key: {@code b0}
 * (a sequence number) in W1, the primary key {@code id} in W2.
 */
public final class WideRows {
  /** Columns of a W1 or W2 row. */
  public static final int COLUMNS = 20;

  private static final long SEED = 20_260_101L;
  private static final String[] PREFIXES = {"b", "i", "d", "s"};

  private WideRows() {}

  /** The W1 schema (field ids 1..20), every column optional. */
  public static Schema w1Schema() {
    return new Schema(fields());
  }

  /** The W2 schema: W1 with {@code b0} replaced by the required identifier field {@code id}. */
  public static Schema w2Schema() {
    List<Types.NestedField> fields = fields();
    fields.set(0, Types.NestedField.required(1, "id", Types.LongType.get()));
    return new Schema(fields, Set.of(1));
  }

  /** The 20 column names in schema order, with {@code firstColumn} for the key column. */
  public static List<String> columnNames(String firstColumn) {
    List<String> names = new ArrayList<>();
    for (String prefix : PREFIXES) {
      for (int c = 0; c < 5; c++) {
        names.add(prefix + c);
      }
    }
    names.set(0, firstColumn);
    return names;
  }

  /**
   * The row of a key in one of its versions: the key, then 19 values drawn from a generator seeded
   * by key and version, so distinct versions of a key differ in every other column.
   */
  public static Object[] row(long key, int version) {
    SplittableRandom random =
        new SplittableRandom(
            SEED + key * 0x9E37_79B9_7F4A_7C15L + version * 0xBF58_476D_1CE4_E5B9L);
    Object[] row = new Object[COLUMNS];
    for (int c = 0; c < 5; c++) {
      row[c] = random.nextLong();
      row[5 + c] = random.nextInt();
      row[10 + c] = random.nextDouble() * 1e6;
      row[15 + c] = asciiString(random);
    }
    row[0] = key;
    return row;
  }

  private static List<Types.NestedField> fields() {
    List<Types.NestedField> fields = new ArrayList<>();
    Type[] types = {
      Types.LongType.get(), Types.IntegerType.get(), Types.DoubleType.get(), Types.StringType.get()
    };
    int id = 1;
    for (int t = 0; t < PREFIXES.length; t++) {
      for (int c = 0; c < 5; c++) {
        fields.add(Types.NestedField.optional(id++, PREFIXES[t] + c, types[t]));
      }
    }
    return fields;
  }

  private static String asciiString(SplittableRandom random) {
    int length = 16 + random.nextInt(9);
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }
}
