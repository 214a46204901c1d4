package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.ChangeType;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.Compression;
import io.lakestream.testing.LakestreamExtension;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The typed row view ({@link ScanRow}) over batches a real server returns: every column type the
 * writer takes, nulls, a column added after some rows were written, and a primary-key changelog.
 * Expected values are the rows the test wrote.
 */
class ScanRowTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("app").build();

  private static final Schema EVERY_TYPE =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "count", Types.IntegerType.get()),
          Types.NestedField.optional(3, "ratio", Types.DoubleType.get()),
          Types.NestedField.optional(4, "weight", Types.FloatType.get()),
          Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(6, "name", Types.StringType.get()),
          Types.NestedField.optional(7, "payload", Types.BinaryType.get()),
          Types.NestedField.optional(8, "amount", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(9, "day", Types.DateType.get()),
          Types.NestedField.optional(10, "at", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(11, "at_utc", Types.TimestampType.withZone()),
          Types.NestedField.optional(12, "clock", Types.TimeType.get()));

  private static Table create(String name, Schema schema, String kind) {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", name),
            schema,
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", kind, "lakestream.buckets", "1")));
    return LAKESTREAM.connection().table(TablePath.of("app." + name));
  }

  /** Row n of the every-type table: column c is null when (n + c) % 7 == 0, except the id. */
  private static Object[] everyTypeRow(int n) {
    Object[] row = {
      (long) n * 1_000_003L,
      n - 500,
      n / 8.0,
      n * 0.5f,
      n % 2 == 0,
      "name-" + n + (n % 3 == 0 ? "-ü€" : ""),
      new byte[] {(byte) n, (byte) (n >> 8), 7},
      new BigDecimal(n * 37L).movePointLeft(2),
      LocalDate.of(2020, 1, 1).plusDays(n),
      1_600_000_000_000_000L + n,
      -n * 1_000_000L,
      (n % 86_400) * 1_000_000L
    };
    for (int column = 1; column < row.length; column++) {
      if ((n + column) % 7 == 0) {
        row[column] = null;
      }
    }
    return row;
  }

  /** Polls until {@code rows} rows arrived or 30 s passed, handing each batch to the reader. */
  private static int readAll(LogScanner scanner, int rows, Consumer<ScanBatch> reader) {
    int read = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (read < rows && System.nanoTime() < deadline) {
      for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
        try (batch) {
          reader.accept(batch);
          read += batch.rowCount();
        }
      }
    }
    return read;
  }

  private static String utf8(ByteBuffer view) {
    byte[] bytes = new byte[view.remaining()];
    view.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void everyTypeWrittenByTheWriterReadsBackThroughTheView() {
    int rows = 1_000;
    for (Compression compression : List.of(Compression.NONE, Compression.ZSTD)) {
      Table table = create("every_type_" + compression.name().toLowerCase(), EVERY_TYPE, "log");
      try (AppendWriter writer =
          table.newAppendWriter(
              WriterOptions.defaults().withBatchRows(128).withCompression(compression))) {
        for (int n = 0; n < rows; n++) {
          writer.append(everyTypeRow(n));
        }
        writer.flush();
      }
      List<Long> offsets = new ArrayList<>();
      try (LogScanner scanner = table.newScanner()) {
        scanner.subscribe(0, LogScanner.earliest());
        int read =
            readAll(
                scanner,
                rows,
                batch -> {
                  ScanRow row = batch.row();
                  int[] at = new int[EVERY_TYPE.columns().size()];
                  for (int c = 0; c < at.length; c++) {
                    at[c] = row.indexOf(EVERY_TYPE.columns().get(c).name());
                  }
                  while (row.next()) {
                    offsets.add(row.offset());
                    assertRow(row, at, everyTypeRow((int) row.offset()));
                  }
                });
        assertThat(read).isEqualTo(rows);
      }
      assertThat(offsets).hasSize(rows);
      for (int n = 0; n < rows; n++) {
        assertThat(offsets.get(n)).isEqualTo(n);
      }
    }
  }

  private static void assertRow(ScanRow row, int[] at, Object[] expected) {
    assertThat(row.changeType()).isEqualTo(ChangeType.INSERT);
    for (int c = 0; c < expected.length; c++) {
      String column = row.columnName(at[c]) + " at offset " + row.offset();
      if (expected[c] == null) {
        assertThat(row.isNull(at[c])).as(column).isTrue();
        continue;
      }
      assertThat(row.isNull(at[c])).as(column).isFalse();
      switch (c) {
        case 0 -> assertThat(row.getLong(at[c])).as(column).isEqualTo(expected[c]);
        case 1 -> assertThat(row.getInt(at[c])).as(column).isEqualTo(expected[c]);
        case 2 -> assertThat(row.getDouble(at[c])).as(column).isEqualTo(expected[c]);
        case 3 -> assertThat(row.getFloat(at[c])).as(column).isEqualTo(expected[c]);
        case 4 -> assertThat(row.getBoolean(at[c])).as(column).isEqualTo(expected[c]);
        case 5 -> {
          assertThat(row.getString(at[c])).as(column).isEqualTo(expected[c]);
          assertThat(utf8(row.getUtf8(at[c]))).as(column).isEqualTo(expected[c]);
          assertThat(row.getUtf8Bytes(at[c]))
              .as(column)
              .isEqualTo(((String) expected[c]).getBytes(StandardCharsets.UTF_8));
        }
        case 6 -> assertThat(row.getBytes(at[c])).as(column).isEqualTo(expected[c]);
        case 7 -> assertThat(row.getDecimal(at[c])).as(column).isEqualTo(expected[c]);
        case 8 -> assertThat(row.getDate(at[c])).as(column).isEqualTo(expected[c]);
        case 9, 10 -> assertThat(row.getTimestampMicros(at[c])).as(column).isEqualTo(expected[c]);
        case 11 -> assertThat(row.getTimeMicros(at[c])).as(column).isEqualTo(expected[c]);
        default -> throw new AssertionError("no getter for column " + c);
      }
    }
  }

  @Test
  void aProjectedScanIsReadByNameAndWrongTypesAndNullsFailNamingTheColumn() {
    Table table = create("projected", EVERY_TYPE, "log");
    try (AppendWriter writer = table.newAppendWriter()) {
      for (int n = 0; n < 10; n++) {
        writer.append(everyTypeRow(n));
      }
    }
    List<String> seen = new ArrayList<>();
    try (LogScanner scanner =
        table.newScanner(
            List.of("name", "count"), io.lakestream.client.arrow.BatchFilter.MATCH_ALL)) {
      scanner.subscribe(0, LogScanner.earliest());
      int read =
          readAll(
              scanner,
              10,
              batch -> {
                ScanRow row = batch.row(List.of("count", "name"));
                assertThat(batch.row().indexOf("id")).isEqualTo(-1);
                while (row.next()) {
                  Object[] expected = everyTypeRow((int) row.offset());
                  if (expected[1] == null) {
                    assertThatThrownBy(() -> row.getInt(0))
                        .isInstanceOf(NullPointerException.class)
                        .hasMessageContaining("Column count is null at offset " + row.offset());
                    seen.add(null);
                  } else {
                    seen.add(row.getInt(0) + "/" + (row.isNull(1) ? null : row.getString(1)));
                  }
                  assertThatThrownBy(() -> row.getLong(0))
                      .isInstanceOf(IllegalArgumentException.class)
                      .hasMessage(
                          "Cannot read column count of type int with getLong: read it with"
                              + " getInt");
                }
              });
      assertThat(read).isEqualTo(10);
    }
    List<String> expected = new ArrayList<>();
    for (int n = 0; n < 10; n++) {
      Object[] row = everyTypeRow(n);
      expected.add(row[1] == null ? null : row[1] + "/" + row[5]);
    }
    assertThat(seen).containsExactlyElementsOf(expected);
  }

  @Test
  void aColumnAddedAfterSomeRowsReadsAsNullInTheirBatches() {
    Table before =
        create(
            "evolving",
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
            "log");
    try (AppendWriter writer = before.newAppendWriter()) {
      writer.append(1L);
      writer.append(2L);
    }
    LAKESTREAM
        .catalog()
        .loadTable(TableIdentifier.of("app", "evolving"))
        .updateSchema()
        .addColumn("note", Types.StringType.get())
        .commit();
    Table after = LAKESTREAM.connection().table(TablePath.of("app.evolving"));
    try (AppendWriter writer = after.newAppendWriter()) {
      writer.append(3L, "three");
      writer.append(4L, null);
    }
    List<String> rows = new ArrayList<>();
    try (LogScanner scanner = after.newScanner()) {
      scanner.subscribe(0, LogScanner.earliest());
      int read =
          readAll(
              scanner,
              4,
              batch -> {
                ScanRow row = batch.row(List.of("note", "id"));
                while (row.next()) {
                  rows.add(row.getLong(1) + ":" + (row.isNull(0) ? "null" : row.getString(0)));
                }
              });
      assertThat(read).isEqualTo(4);
    }
    assertThat(rows).containsExactly("1:null", "2:null", "3:three", "4:null");
  }

  @Test
  void aPrimaryKeyChangelogReadsEachRowsChangeType() {
    Table table =
        create(
            "keyed",
            new Schema(
                List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get())),
                Set.of(1)),
            "primary-key");
    try (UpsertWriter writer = table.newUpsertWriter()) {
      writer.upsert(1L, "a");
      writer.flush();
      writer.upsert(1L, "b");
      writer.flush();
      writer.upsert(2L, "c");
      writer.flush();
      writer.delete(1L);
      writer.flush();
    }
    List<String> changes = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribe(0, LogScanner.earliest());
      int read =
          readAll(
              scanner,
              5,
              batch -> {
                ScanRow row = batch.row();
                assertThat(row.columnCount()).isEqualTo(2);
                while (row.next()) {
                  changes.add(
                      row.offset()
                          + " "
                          + row.changeType().shortString()
                          + " "
                          + row.getLong(0)
                          + " "
                          + row.getString(1));
                }
              });
      assertThat(read).isEqualTo(5);
    }
    assertThat(changes).containsExactly("0 +I 1 a", "1 -U 1 a", "2 +U 1 b", "3 +I 2 c", "4 -D 1 b");
  }
}
