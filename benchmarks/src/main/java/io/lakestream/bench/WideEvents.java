package io.lakestream.bench;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The rows of workload W1 (wide events, see {@code BENCHMARKS.md}): 20 columns {@code b0..b4
 * BIGINT}, {@code i0..i4 INT}, {@code d0..d4 DOUBLE}, {@code s0..s4 STRING} of 16-24 ASCII
 * characters, in that order, generated deterministically from a seed. W2 (keyed state) uses the
 * same rows with {@code b0} replaced by its primary key {@code id}.
 */
final class WideEvents {
  /** Columns in a row. */
  static final int COLUMNS = 20;

  /** Distinct rows in a pool; workloads cycle through them, overwriting the first column. */
  static final int DISTINCT_ROWS = 4096;

  static final long SEED = 20_260_101L;

  private WideEvents() {}

  /** {@link #DISTINCT_ROWS} rows generated from {@link #SEED}. */
  static Object[][] rowPool() {
    SplittableRandom random = new SplittableRandom(SEED);
    Object[][] pool = new Object[DISTINCT_ROWS][];
    for (int r = 0; r < DISTINCT_ROWS; r++) {
      Object[] row = new Object[COLUMNS];
      for (int c = 0; c < 5; c++) {
        row[c] = random.nextLong();
        row[5 + c] = random.nextInt();
        row[10 + c] = random.nextDouble() * 1e6;
        row[15 + c] = asciiString(random);
      }
      pool[r] = row;
    }
    return pool;
  }

  /** The W1 schema, every column optional. */
  /**
   * Writes {@link #rowPool()} to {@code file} for the clients of other systems ({@link
   * PeerWorkload}): a big-endian int row count, then per row, in column order, five longs, five
   * ints, five doubles and five strings as {@link DataOutputStream#writeUTF}.
   */
  static void writePool(Path file) throws IOException {
    Object[][] pool = rowPool();
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
      out.writeInt(pool.length);
      for (Object[] row : pool) {
        for (int c = 0; c < 5; c++) {
          out.writeLong((Long) row[c]);
        }
        for (int c = 5; c < 10; c++) {
          out.writeInt((Integer) row[c]);
        }
        for (int c = 10; c < 15; c++) {
          out.writeDouble((Double) row[c]);
        }
        for (int c = 15; c < 20; c++) {
          out.writeUTF((String) row[c]);
        }
      }
    }
  }

  static Schema schema() {
    return new Schema(fields());
  }

  /** The W2 schema: the W1 columns with {@code b0} replaced by a required {@code id} key. */
  static Schema keyedSchema() {
    List<Types.NestedField> fields = fields();
    fields.set(0, Types.NestedField.required(1, "id", Types.LongType.get()));
    return new Schema(fields, Set.of(1));
  }

  /** Bytes of a row in row form: 8 per long and double, 4 per int, UTF-8 length of strings. */
  static long rawBytes(Object[] row) {
    long total = 0;
    for (Object value : row) {
      total +=
          switch (value) {
            case Long l -> 8;
            case Double d -> 8;
            case Integer n -> 4;
            case String s -> s.getBytes(StandardCharsets.UTF_8).length;
            default -> 0;
          };
    }
    return total;
  }

  private static List<Types.NestedField> fields() {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    String[] prefixes = {"b", "i", "d", "s"};
    Type[] types = {
      Types.LongType.get(), Types.IntegerType.get(), Types.DoubleType.get(), Types.StringType.get()
    };
    for (int t = 0; t < prefixes.length; t++) {
      for (int c = 0; c < 5; c++) {
        fields.add(Types.NestedField.optional(id++, prefixes[t] + c, types[t]));
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
