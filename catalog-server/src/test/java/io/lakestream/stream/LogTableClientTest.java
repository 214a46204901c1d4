package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.ColumnPredicate;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.testing.LakestreamExtension;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows through the Java client: AppendWriter batches Arrow rows per bucket, LogScanner reads them
 * back, with projection and filter pushdown done by the server, and schema evolution while writing.
 */
class LogTableClientTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("app").build();

  private static Table createWide(String name, int buckets) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (int i = 0; i < 5; i++) {
      fields.add(Types.NestedField.optional(id++, "b" + i, Types.LongType.get()));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(Types.NestedField.optional(id++, "i" + i, Types.IntegerType.get()));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(Types.NestedField.optional(id++, "d" + i, Types.DoubleType.get()));
    }
    for (int i = 0; i < 5; i++) {
      fields.add(Types.NestedField.optional(id++, "s" + i, Types.StringType.get()));
    }
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", name),
            new Schema(fields),
            PartitionSpec.unpartitioned(),
            new HashMap<>(
                Map.of(
                    "lakestream.kind", "log",
                    "lakestream.buckets", Integer.toString(buckets),
                    "lakestream.bucket-key", "b0")));
    return LAKESTREAM.connection().table(TablePath.of("app." + name));
  }

  private static Object[] wideRow(long n) {
    Object[] row = new Object[20];
    for (int i = 0; i < 5; i++) {
      row[i] = n * 10 + i;
      row[5 + i] = (int) (n % 1000) + i;
      row[10 + i] = n / 7.0 + i;
      row[15 + i] = "value-" + n + "-" + i + "-abcdefgh";
    }
    return row;
  }

  private static List<ScanBatch> readAll(LogScanner scanner, int expectedRows) {
    List<ScanBatch> batches = new ArrayList<>();
    int rows = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (rows < expectedRows && System.nanoTime() < deadline) {
      for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
        batches.add(batch);
        rows += batch.rowCount();
      }
    }
    return batches;
  }

  @Test
  void batchesKeptOpenStayIntactWhileLaterFetchesAndScannersRun() {
    Table table = createWide("kept_batches", 1);
    Table otherTable = createWide("other_batches", 1);
    int rows = 40_000;
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults().withBatchRows(1000));
        AppendWriter otherWriter =
            otherTable.newAppendWriter(WriterOptions.defaults().withBatchRows(1000))) {
      for (long n = 0; n < rows; n++) {
        writer.append(wideRow(n));
        otherWriter.append(wideRow(rows + n));
      }
      writer.flush();
      otherWriter.flush();
    }
    // Batches share their fetch response's memory: keeping every batch of several fetches open
    // while other scanners of the connection fetch must not let a response's memory be reused.
    List<ScanBatch> kept;
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribe(0, LogScanner.earliest());
      kept = readAll(scanner, rows);
    }
    for (int again = 0; again < 3; again++) {
      try (LogScanner other = otherTable.newScanner()) {
        other.subscribe(0, LogScanner.earliest());
        readAll(other, rows).forEach(ScanBatch::close);
      }
    }
    long expected = 0;
    for (ScanBatch batch : kept) {
      for (Object[] row : batch.rows()) {
        assertThat(row).containsExactly(wideRow(expected++));
      }
      batch.close();
    }
    assertThat(expected).isEqualTo(rows);
  }

  @Test
  void rowsWrittenByTheWriterComeBackFromTheScanner() {
    Table table = createWide("events", 3);
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults().withBatchRows(500))) {
      for (long n = 0; n < 3000; n++) {
        writer.append(wideRow(n));
      }
      writer.flush();
    }
    List<Long> seen = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < 3; bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      for (ScanBatch batch : readAll(scanner, 3000)) {
        for (Object[] row : batch.rows()) {
          long b0 = (Long) row[0];
          assertThat(row).containsExactly(wideRow(b0 / 10));
          seen.add(b0 / 10);
        }
        batch.close();
      }
    }
    assertThat(seen).hasSize(3000).doesNotHaveDuplicates();
    long total = 0;
    for (int bucket = 0; bucket < 3; bucket++) {
      assertThat(table.latestOffset(bucket)).isGreaterThan(0);
      total += table.latestOffset(bucket);
    }
    assertThat(total).isEqualTo(3000);
  }

  @Test
  void projectionSendsOnlyTheRequestedColumns() throws Exception {
    Table table = createWide("projected", 1);
    try (AppendWriter writer =
        table.newAppendWriter(
            WriterOptions.defaults()
                .withBatchRows(5000)
                .withLinger(Duration.ofMinutes(1))
                .withCompression(Compression.NONE))) {
      for (long n = 0; n < 20_000; n++) {
        writer.append(wideRow(n));
      }
    }
    int[] b0s0 = {0, 15};
    FetchResponse full = table.fetch(0, 0, 64 << 20, 0, new int[0], ByteBuffer.allocate(0)).get();
    FetchResponse projected = table.fetch(0, 0, 64 << 20, 0, b0s0, ByteBuffer.allocate(0)).get();
    assertThat(full.nextOffset()).isEqualTo(20_000);
    assertThat(projected.nextOffset()).isEqualTo(20_000);
    double ratio = (double) projected.batches().remaining() / full.batches().remaining();
    assertThat(ratio).as("projected/full bytes on the wire").isLessThanOrEqualTo(0.15);

    try (LogScanner scanner = table.newScanner(List.of("s0", "b0"), BatchFilter.MATCH_ALL)) {
      scanner.subscribe(0, LogScanner.earliest());
      List<ScanBatch> batches = readAll(scanner, 20_000);
      assertThat(batches.get(0).root().getSchema().getFields())
          .extracting("name")
          .containsExactly("s0", "b0");
      List<Object[]> rows = new ArrayList<>();
      batches.forEach(batch -> rows.addAll(batch.rows()));
      assertThat(rows).hasSize(20_000);
      assertThat(rows.get(1)).containsExactly("value-1-0-abcdefgh", 10L);
      batches.forEach(ScanBatch::close);
    }
  }

  @Test
  void projectedRowsEqualTheSameColumnsOfTheWrittenRows() {
    // Columns in another order than the table's, some next to each other in the stored batches
    // (b0, b1, b2 and s1, s2), with nulls in two of them, uncompressed and compressed.
    List<String> columns = List.of("b1", "b0", "b2", "s1", "s2", "d4");
    int[] indexes = {1, 0, 2, 16, 17, 14};
    for (Compression compression : List.of(Compression.NONE, Compression.ZSTD)) {
      Table table = createWide("columns_" + compression.name().toLowerCase(Locale.ROOT), 1);
      List<Object[]> written = new ArrayList<>();
      try (AppendWriter writer =
          table.newAppendWriter(
              WriterOptions.defaults().withBatchRows(700).withCompression(compression))) {
        for (long n = 0; n < 3000; n++) {
          Object[] row = wideRow(n);
          if (n % 7 == 0) {
            row[1] = null;
          }
          if (n % 5 == 0) {
            row[16] = null;
          }
          writer.append(row);
          written.add(row);
        }
      }
      try (LogScanner scanner = table.newScanner(columns, BatchFilter.MATCH_ALL)) {
        scanner.subscribe(0, LogScanner.earliest());
        List<ScanBatch> batches = readAll(scanner, written.size());
        int rows = 0;
        for (ScanBatch batch : batches) {
          List<Object[]> read = batch.rows();
          for (int i = 0; i < read.size(); i++) {
            Object[] expected = written.get((int) batch.baseOffset() + i);
            Object[] selected = new Object[indexes.length];
            for (int c = 0; c < indexes.length; c++) {
              selected[c] = expected[indexes[c]];
            }
            assertThat(read.get(i)).as("%s row %d", compression, rows).containsExactly(selected);
            rows++;
          }
          batch.close();
        }
        assertThat(rows).as("%s rows", compression).isEqualTo(written.size());
      }
    }
  }

  @Test
  void filtersSkipBatchesThatCannotMatch() {
    Table table = createWide("filtered", 1);
    try (AppendWriter writer =
        table.newAppendWriter(
            WriterOptions.defaults().withBatchRows(100).withLinger(Duration.ofMinutes(1)))) {
      for (long n = 0; n < 1000; n++) {
        writer.append(wideRow(n));
      }
    }
    BatchFilter filter = BatchFilter.of(new ColumnPredicate(0, ColumnPredicate.Op.GT_EQ, 9_500L));
    try (LogScanner scanner = table.newScanner(List.of("b0"), filter)) {
      scanner.subscribe(0, LogScanner.earliest());
      List<ScanBatch> batches = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (scanner.position(0) < 1000 && System.nanoTime() < deadline) {
        batches.addAll(scanner.poll(Duration.ofMillis(500)));
      }
      assertThat(scanner.position(0)).isEqualTo(1000);
      assertThat(batches).hasSize(1);
      assertThat(batches.get(0).baseOffset()).isEqualTo(900);
      batches.forEach(ScanBatch::close);
    }
  }

  /**
   * A reader of a range (a query's log-tail split) with a filter no batch matches learns from the
   * scanner's position that it reached the range's end: the poll returns once the position moved,
   * not after its timeout (with the timeout below, a poll that waits for rows would hang the test
   * for ten minutes and fail it by JUnit's timeout).
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aPollReturnsWhenTheFilterSkippedEverythingUpToTheEndOfTheLog() {
    Table table = createWide("filtered_away", 1);
    try (AppendWriter writer =
        table.newAppendWriter(
            WriterOptions.defaults().withBatchRows(100).withLinger(Duration.ofMinutes(1)))) {
      for (long n = 0; n < 1000; n++) {
        writer.append(wideRow(n));
      }
    }
    BatchFilter none = BatchFilter.of(new ColumnPredicate(0, ColumnPredicate.Op.LT, -1L));
    try (LogScanner scanner = table.newScanner(List.of("b0"), none)) {
      scanner.subscribe(0, LogScanner.earliest());
      List<ScanBatch> batches = new ArrayList<>();
      while (scanner.position(0) < 1000) {
        batches.addAll(scanner.poll(Duration.ofMinutes(10)));
      }
      assertThat(batches).isEmpty();
      assertThat(scanner.position(0)).isEqualTo(1000);
    }
  }

  /**
   * The server answers table lookups from a cache of up to a second: a reader whose schema has a
   * column added since (here a moment after the server last looked the table up, for the write)
   * projects a column index the cached schema lacks, and the server looks the table up again.
   */
  @Test
  void aReaderProjectsAColumnAddedAMomentAgo() {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", "just_evolved"),
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
    Table before = LAKESTREAM.connection().table(TablePath.of("app.just_evolved"));
    try (AppendWriter writer = before.newAppendWriter()) {
      writer.append(1L);
      writer.append(2L);
    }
    LAKESTREAM
        .catalog()
        .loadTable(TableIdentifier.of("app", "just_evolved"))
        .updateSchema()
        .addColumn("note", Types.StringType.get())
        .commit();
    Table after = LAKESTREAM.connection().table(TablePath.of("app.just_evolved"));
    List<Object[]> rows = new ArrayList<>();
    try (LogScanner scanner = after.newScanner(List.of("id", "note"), BatchFilter.MATCH_ALL)) {
      scanner.subscribe(0, LogScanner.earliest());
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (rows.size() < 2 && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          rows.addAll(batch.rows(List.of("id", "note")));
          batch.close();
        }
      }
    }
    assertThat(rows).containsExactly(new Object[] {1L, null}, new Object[] {2L, null});
  }

  /**
   * As {@link #aReaderProjectsAColumnAddedAMomentAgo}, with the column added first: the reader's
   * column indexes all lie inside the schema the server knew, but name other columns there.
   */
  @Test
  void aReaderProjectsColumnsMovedAMomentAgo() {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", "just_moved"),
            new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
    Table before = LAKESTREAM.connection().table(TablePath.of("app.just_moved"));
    try (AppendWriter writer = before.newAppendWriter()) {
      writer.append(1L, "one");
      writer.append(2L, "two");
    }
    LAKESTREAM
        .catalog()
        .loadTable(TableIdentifier.of("app", "just_moved"))
        .updateSchema()
        .addColumn("note", Types.StringType.get())
        .moveFirst("note")
        .commit();
    Table after = LAKESTREAM.connection().table(TablePath.of("app.just_moved"));
    List<Object[]> rows = new ArrayList<>();
    try (LogScanner scanner = after.newScanner(List.of("id"), BatchFilter.MATCH_ALL)) {
      scanner.subscribe(0, LogScanner.earliest());
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (rows.size() < 2 && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          rows.addAll(batch.rows(List.of("id")));
          batch.close();
        }
      }
    }
    assertThat(rows).containsExactly(new Object[] {1L}, new Object[] {2L});
  }

  @Test
  void aColumnAddedWhileWritingReadsAsNullInOlderBatches() {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", "evolving"),
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log")));
    Table before = LAKESTREAM.connection().table(TablePath.of("app.evolving"));
    try (LogScanner scanner = before.newScanner()) {
      scanner.subscribe(0, LogScanner.earliest());
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
      assertThat(after.schemaId()).isGreaterThan(before.schemaId());
      try (AppendWriter writer = after.newAppendWriter()) {
        writer.append(3L, "three");
      }
      assertThatThrownBy(() -> before.newAppendWriter().append(4L, "x"))
          .isInstanceOf(IllegalArgumentException.class);
      List<Object[]> rows = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (rows.size() < 3 && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          rows.addAll(batch.rows(List.of("id", "note")));
          batch.close();
        }
      }
      assertThat(rows)
          .containsExactly(
              new Object[] {1L, null}, new Object[] {2L, null}, new Object[] {3L, "three"});
    }
  }
}
