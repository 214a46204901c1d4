package io.lakestream.bench.flink;

import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.types.Row;

/**
 * W1-like wide rows (see {@code BENCHMARKS.md}) computed from their index, so a Flink job and the
 * client write exactly the same rows without shipping a row pool: {@code b0..b4 BIGINT}, {@code
 * i0..i4 INT}, {@code d0..d4 DOUBLE}, {@code s0..s4 STRING} of 17-23 ASCII characters (a 16-letter
 * prefix per column and the index's digits).
 */
final class WideRows {
  static final int COLUMNS = 20;

  static final List<String> NAMES =
      List.of(
          "b0", "b1", "b2", "b3", "b4", "i0", "i1", "i2", "i3", "i4", "d0", "d1", "d2", "d3", "d4",
          "s0", "s1", "s2", "s3", "s4");

  /** The columns as Flink SQL declares them. */
  static final String COLUMNS_DDL =
      "b0 BIGINT, b1 BIGINT, b2 BIGINT, b3 BIGINT, b4 BIGINT, i0 INT, i1 INT, i2 INT, i3 INT,"
          + " i4 INT, d0 DOUBLE, d1 DOUBLE, d2 DOUBLE, d3 DOUBLE, d4 DOUBLE, s0 STRING, s1 STRING,"
          + " s2 STRING, s3 STRING, s4 STRING";

  private static final String[] PREFIXES = {
    "qwertyuiopasdfgh",
    "zxcvbnmlkjhgfdsa",
    "poiuytrewqlkjhgf",
    "mnbvcxzasdfghjkl",
    "abcdefghijklmnop"
  };

  private WideRows() {}

  /** Row {@code index} as the client's append takes it. */
  static Object[] values(long index) {
    Object[] row = new Object[COLUMNS];
    for (int c = 0; c < 5; c++) {
      row[c] = index * (c + 1);
      row[5 + c] = (int) (index + c);
      row[10 + c] = index * 0.5 + c;
      row[15 + c] = PREFIXES[c] + index;
    }
    return row;
  }

  /** Row {@code index} as a Flink {@link Row} of {@link #typeInfo()}. */
  static Row row(long index) {
    return Row.of(values(index));
  }

  static TypeInformation<Row> typeInfo() {
    TypeInformation<?>[] types = new TypeInformation<?>[COLUMNS];
    for (int c = 0; c < 5; c++) {
      types[c] = Types.LONG;
      types[5 + c] = Types.INT;
      types[10 + c] = Types.DOUBLE;
      types[15 + c] = Types.STRING;
    }
    return Types.ROW_NAMED(NAMES.toArray(String[]::new), types);
  }
}
