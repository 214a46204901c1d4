package io.lakestream.bench.flink;

import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

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

  /**
   * Writes row {@code index} into {@code row} through {@code writer}, which points at it: Flink's
   * binary row of {@link #typeInfo()}, as Flink's generated code and its SQL sources fill one row
   * in place for each record.
   */
  static BinaryRowData binaryRow(long index, BinaryRowData row, BinaryRowWriter writer) {
    writer.reset();
    for (int c = 0; c < 5; c++) {
      writer.writeLong(c, index * (c + 1));
      writer.writeInt(5 + c, (int) (index + c));
      writer.writeDouble(10 + c, index * 0.5 + c);
      writer.writeString(15 + c, BinaryStringData.fromString(PREFIXES[c] + index));
    }
    writer.complete();
    return row;
  }

  static InternalTypeInfo<RowData> typeInfo() {
    LogicalType[] types = new LogicalType[COLUMNS];
    for (int c = 0; c < 5; c++) {
      types[c] = new BigIntType();
      types[5 + c] = new IntType();
      types[10 + c] = new DoubleType();
      types[15 + c] = VarCharType.STRING_TYPE;
    }
    return InternalTypeInfo.of(RowType.of(types, NAMES.toArray(String[]::new)));
  }
}
