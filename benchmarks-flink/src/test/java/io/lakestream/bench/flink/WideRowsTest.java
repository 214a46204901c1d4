package io.lakestream.bench.flink;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.junit.jupiter.api.Test;

/**
 * The Flink job's generator and the client baseline compute each row in two places (the job's
 * unboxed, in place); the benchmark checks only row counts, so this checks that both are the same
 * row.
 */
class WideRowsTest {
  @Test
  void theBinaryRowHoldsTheClientsValuesForEveryColumn() {
    BinaryRowData row = new BinaryRowData(WideRows.COLUMNS);
    BinaryRowWriter writer = new BinaryRowWriter(row);
    for (long index : new long[] {0, 1, 7, 4_095, 999_999, 123_456_789_012L}) {
      Object[] expected = WideRows.values(index);
      WideRows.binaryRow(index, row, writer);
      assertThat(row.getArity()).isEqualTo(expected.length);
      for (int c = 0; c < 5; c++) {
        assertThat(row.getLong(c)).as("b%d of row %d", c, index).isEqualTo(expected[c]);
        assertThat(row.getInt(5 + c)).as("i%d of row %d", c, index).isEqualTo(expected[5 + c]);
        assertThat(row.getDouble(10 + c)).as("d%d of row %d", c, index).isEqualTo(expected[10 + c]);
        assertThat(row.getString(15 + c).toString())
            .as("s%d of row %d", c, index)
            .isEqualTo(expected[15 + c]);
      }
    }
  }

  @Test
  void theColumnNamesMatchTheDeclaredColumns() {
    String declared = WideRows.COLUMNS_DDL;
    for (String name : WideRows.NAMES) {
      assertThat(declared).containsPattern("\\b" + name + " (BIGINT|INT|DOUBLE|STRING)\\b");
    }
    assertThat(WideRows.typeInfo().toRowType().getFieldNames()).isEqualTo(WideRows.NAMES);
  }
}
