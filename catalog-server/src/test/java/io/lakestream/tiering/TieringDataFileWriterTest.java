package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Both ways of writing log tables' data files ({@link DataFileWriter}) produce the rows that were
 * appended, value for value, in every supported column type and with nulls; the DuckDB writer is
 * the one that wrote the files where it applies, carries Iceberg metrics, and hands batches of an
 * older schema (a promoted column) to the row writer.
 */
class TieringDataFileWriterTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(3, "small", Types.IntegerType.get()),
          Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
          Types.NestedField.optional(5, "amount", Types.DoubleType.get()),
          Types.NestedField.optional(6, "price", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(7, "big", Types.DecimalType.of(30, 5)),
          Types.NestedField.optional(8, "day", Types.DateType.get()),
          Types.NestedField.optional(9, "at", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(10, "atz", Types.TimestampType.withZone()),
          Types.NestedField.optional(11, "name", Types.StringType.get()),
          Types.NestedField.optional(12, "blob", Types.BinaryType.get()));

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("files");

  private static IcebergTableTiering tiering(DataFileWriter writer) {
    return new IcebergTableTiering(
        fixture.lake(),
        fixture.connection(),
        TieringHook.NONE,
        Duration.ofMinutes(1),
        1_000_000,
        writer);
  }

  private static TablePath create(String name, Schema schema) {
    return fixture.createTable(
        name,
        schema,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
  }

  /** Row {@code id}: every value a function of the id, every nullable column null now and then. */
  private static Object[] row(long id) {
    boolean nulls = id % 7 == 3;
    long micros = 1_700_000_000_000_000L + id * 1_000_003L;
    return new Object[] {
      id,
      nulls ? null : id % 2 == 0,
      nulls ? null : (int) (id * 37 - 5_000),
      nulls ? null : id / 8.0f,
      nulls ? null : id * 1.25,
      nulls ? null : BigDecimal.valueOf(id * 101 - 777, 2),
      nulls ? null : new BigDecimal("123456789012345678901234.5").add(BigDecimal.valueOf(id, 5)),
      nulls ? null : (int) (19_000 + id % 400),
      nulls ? null : micros,
      nulls ? null : micros + 17,
      nulls ? null : "name-" + id + (id % 3 == 0 ? " ünïcode" : ""),
      nulls ? null : ("blob" + id).getBytes(StandardCharsets.UTF_8)
    };
  }

  private static void append(TablePath path, long from, long to) {
    try (AppendWriter writer =
        fixture
            .connection()
            .table(path)
            .newAppendWriter(WriterOptions.defaults().withBatchRows(300))) {
      for (long id = from; id < to; id++) {
        writer.append(row(id));
      }
      writer.flush();
    }
  }

  private static Map<Long, Record> readLake(TablePath path) {
    return fixture.readLake(path, record -> record);
  }

  /** The values a lake reader should see for row {@code id}, in Iceberg's generic forms. */
  private static Object[] expected(long id) {
    Object[] row = row(id);
    Object[] values = row.clone();
    if (row[7] != null) {
      values[7] = LocalDate.ofEpochDay((Integer) row[7]);
    }
    if (row[8] != null) {
      values[8] = LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC).plusNanos((Long) row[8] * 1000);
    }
    if (row[9] != null) {
      values[9] =
          OffsetDateTime.ofInstant(Instant.EPOCH.plusNanos((Long) row[9] * 1000), ZoneOffset.UTC);
    }
    if (row[11] != null) {
      values[11] = ByteBuffer.wrap((byte[]) row[11]);
    }
    return values;
  }

  private static void assertRows(Map<Long, Record> rows, long count) {
    assertThat(rows).hasSize((int) count);
    for (long id = 0; id < count; id++) {
      Record record = rows.get(id);
      assertThat(record).as("row %s", id).isNotNull();
      Object[] expected = expected(id);
      for (int column = 0; column < expected.length; column++) {
        Object actual = record.get(column);
        if (actual instanceof OffsetDateTime offset) {
          actual = offset.withOffsetSameInstant(ZoneOffset.UTC);
        }
        assertThat(actual)
            .as("column %s of row %s", SCHEMA.columns().get(column).name(), id)
            .isEqualTo(expected[column]);
      }
    }
  }

  private static List<DataFile> dataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static String createdBy(DataFile file) {
    Path local =
        Path.of(
            java.net.URI.create(file.location()).getScheme() == null
                ? file.location()
                : java.net.URI.create(file.location()).getPath());
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(local))) {
      return reader.getFooter().getFileMetaData().getCreatedBy();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void bothWritersTierEveryTypeValueForValue() {
    for (DataFileWriter writer : DataFileWriter.values()) {
      TablePath path = create("types_" + writer.name().toLowerCase(), SCHEMA);
      append(path, 0, 2_000);
      TieringRound first = tiering(writer).tierOnce(path);
      assertThat(first.rows()).isEqualTo(2_000);
      append(path, 2_000, 3_100);
      assertThat(tiering(writer).tierOnce(path).rows()).isEqualTo(1_100);

      assertRows(readLake(path), 3_100);
      List<DataFile> files = dataFiles(fixture.lakeTable(path));
      assertThat(files).isNotEmpty();
      assertThat(files)
          .allSatisfy(
              file ->
                  assertThat(createdBy(file).toLowerCase())
                      .contains(writer == DataFileWriter.DUCKDB ? "duckdb" : "parquet-mr"));
    }
  }

  @Test
  void duckDbFilesCarryIcebergMetrics() {
    TablePath path = create("metrics", SCHEMA);
    append(path, 0, 1_000);
    tiering(DataFileWriter.DUCKDB).tierOnce(path);
    List<DataFile> files = dataFiles(fixture.lakeTable(path));
    long records = 0;
    long smallest = Long.MAX_VALUE;
    long largest = Long.MIN_VALUE;
    long nullNames = 0;
    for (DataFile file : files) {
      records += file.recordCount();
      smallest =
          Math.min(
              smallest,
              Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(1)));
      largest =
          Math.max(
              largest,
              Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.upperBounds().get(1)));
      nullNames += file.nullValueCounts().get(11);
      assertThat(file.valueCounts().get(1)).isEqualTo(file.recordCount());
    }
    long expectedNulls = 0;
    for (long id = 0; id < 1_000; id++) {
      if (row(id)[10] == null) {
        expectedNulls++;
      }
    }
    assertThat(records).isEqualTo(1_000);
    assertThat(smallest).isEqualTo(0);
    assertThat(largest).isEqualTo(999);
    assertThat(nullNames).isEqualTo(expectedNulls);
  }

  @Test
  void batchesOfAnOlderSchemaStillTier() {
    Schema narrow =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "n", Types.IntegerType.get()));
    TablePath path = create("evolving", narrow);
    try (AppendWriter writer =
        fixture.connection().table(path).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < 500; id++) {
        writer.append(id, (int) id * 3);
      }
      writer.flush();
    }
    fixture
        .lakeTable(path)
        .updateSchema()
        .updateColumn("n", Types.LongType.get())
        .addColumn("note", Types.StringType.get())
        .commit();
    try (AppendWriter writer =
        fixture.connection().table(path).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 500; id < 800; id++) {
        writer.append(id, id * 3 + 1L, "note " + id);
      }
      writer.flush();
    }
    assertThat(tiering(DataFileWriter.DUCKDB).tierOnce(path).rows()).isEqualTo(800);

    Map<Long, Record> rows = readLake(path);
    assertThat(rows).hasSize(800);
    for (long id = 0; id < 800; id++) {
      Record record = rows.get(id);
      assertThat(record.getField("n")).isEqualTo(id < 500 ? id * 3 : id * 3 + 1);
      assertThat(record.getField("note")).isEqualTo(id < 500 ? null : "note " + id);
    }
    // The promoted column's old batches took the row writer; the new ones DuckDB.
    assertThat(dataFiles(fixture.lakeTable(path)))
        .extracting(file -> createdBy(file).toLowerCase().contains("duckdb"))
        .contains(true, false);
  }
}
