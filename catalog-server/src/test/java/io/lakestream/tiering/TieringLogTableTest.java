package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiering rounds of log tables into their Iceberg tables, read back with Iceberg's own generic
 * reader: every row exactly once, offsets in the snapshot summary, partitions as the spec says,
 * racing tierers and rounds that fail before their commit.
 */
class TieringLogTableTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "region", Types.StringType.get()),
          Types.NestedField.optional(4, "v", Types.DoubleType.get()),
          Types.NestedField.optional(5, "day", Types.DateType.get()));
  private static final PartitionSpec PARTITIONED =
      PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build();
  private static final long DAY_MICROS = 86_400_000_000L;
  private static final long START_MICROS = 20_000 * DAY_MICROS - 3_600_000_000L;
  private static final String[] REGIONS = {"eu", "us west", null};

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("lake");

  private static TablePath create(String name, PartitionSpec spec) {
    return fixture.createTable(
        name,
        SCHEMA,
        spec,
        new HashMap<>(
            Map.of(
                "lakestream.kind",
                "log",
                "lakestream.buckets",
                "3",
                "lakestream.bucket-key",
                "id")));
  }

  private static Object[] row(long id) {
    // Three days, starting an hour before midnight so the first day holds one hour of rows.
    long ts = START_MICROS + (id * 7_919 % 2_500) * (DAY_MICROS / 1_000);
    return new Object[] {
      id, ts, REGIONS[(int) (id * 31 % REGIONS.length)], id / 4.0, LocalDate.ofEpochDay(id % 1000)
    };
  }

  /** Appends rows with ids {@code [from, to)} and waits until they are durable. */
  private static void append(TablePath path, long from, long to) {
    fixture.append(path, from, to, WriterOptions.defaults().withBatchRows(50), id -> row(id));
  }

  /** Every row of the lake table by id, failing on a duplicate id. */
  private static Map<Long, Record> readLake(TablePath path) {
    return fixture.readLake(path, record -> record);
  }

  private static void assertRow(Record record, long id) {
    Object[] expected = row(id);
    assertThat(record.getField("id")).isEqualTo(id);
    assertThat(((OffsetDateTime) record.getField("ts")).toInstant())
        .isEqualTo(java.time.Instant.EPOCH.plusNanos((Long) expected[1] * 1000));
    assertThat(record.getField("region")).isEqualTo(expected[2]);
    assertThat(record.getField("v")).isEqualTo(expected[3]);
    assertThat(record.getField("day")).isEqualTo(expected[4]);
  }

  private static TieredOffsets summaryOffsets(Snapshot snapshot) {
    return TieredOffsets.parse(snapshot.summary().get(TieredOffsets.SUMMARY_KEY));
  }

  @Test
  void roundsTierEachRowExactlyOnceAndRecordTheOffsets() {
    TablePath path = create("events", PartitionSpec.unpartitioned());
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
    assertThat(fixture.lakeTable(path).currentSnapshot()).isNull();

    append(path, 0, 500);
    TieringRound first = tiering.tierOnce(path);
    assertThat(first.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(first.rows()).isEqualTo(500);
    Map<Long, Record> rows = readLake(path);
    assertThat(rows).hasSize(500);
    rows.forEach((id, record) -> assertRow(record, id));
    Snapshot snapshot = fixture.lakeTable(path).currentSnapshot();
    assertThat(snapshot.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(snapshot.operation()).isEqualTo("append");
    assertThat(summaryOffsets(snapshot).partitions()).isEqualTo(fixture.highWatermarks(path));
    assertThat(summaryOffsets(snapshot).partitions().get("").values())
        .hasSize(3)
        .allSatisfy(offset -> assertThat(offset).isPositive());
    assertThat(fixture.lakeTable(path).schema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id", "ts", "region", "v", "day");

    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
    assertThat(fixture.lakeTable(path).currentSnapshot().snapshotId())
        .isEqualTo(first.snapshotId());

    append(path, 500, 800);
    TieringRound second = tiering.tierOnce(path);
    assertThat(second.rows()).isEqualTo(300);
    Snapshot latest = fixture.lakeTable(path).currentSnapshot();
    assertThat(latest.parentId()).isEqualTo(first.snapshotId());
    assertThat(latest.summary().get("added-records")).isEqualTo("300");
    assertThat(summaryOffsets(latest).partitions()).isEqualTo(fixture.highWatermarks(path));
    rows = readLake(path);
    assertThat(rows.keySet()).containsExactlyElementsOf(range(0, 800));
    rows.forEach((id, record) -> assertRow(record, id));
  }

  @Test
  void aPartitionedTableTiersIntoTheSpecsPartitions() {
    TablePath path = create("clicks", PARTITIONED);
    append(path, 0, 1_200);
    TieringRound round =
        new IcebergTableTiering(fixture.lake(), fixture.connection()).tierOnce(path);
    assertThat(round.rows()).isEqualTo(1_200);

    Table table = fixture.lakeTable(path);
    Map<Long, Record> rows = readLake(path);
    assertThat(rows.keySet()).containsExactlyElementsOf(range(0, 1_200));
    rows.forEach((id, record) -> assertRow(record, id));

    // Every row of every data file belongs to the file's partition.
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    TreeSet<String> paths = new TreeSet<>();
    long counted = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        String partition = table.spec().partitionToPath(file.partition());
        paths.add(partition);
        try (CloseableIterable<Record> records =
            Parquet.read(table.io().newInputFile(file.location()))
                .project(table.schema())
                .createReaderFunc(
                    fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
                .build()) {
          for (Record record : records) {
            key.partition(wrapper.wrap(record));
            assertThat(table.spec().partitionToPath(key)).isEqualTo(partition);
            counted++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(counted).isEqualTo(1_200);
    assertThat(paths)
        .hasSizeGreaterThanOrEqualTo(9)
        .containsExactlyElementsOf(fixture.connection().table(path).partitions());
    assertThat(summaryOffsets(table.currentSnapshot()).partitions())
        .isEqualTo(fixture.highWatermarks(path));
  }

  @Test
  void aTiererThatLosesTheRaceCommitsNothingAndDeletesItsFiles() {
    TablePath path = create("raced", PartitionSpec.unpartitioned());
    append(path, 0, 300);
    IcebergTableTiering winner = new IcebergTableTiering(fixture.lake(), fixture.connection());
    AtomicReference<List<DataFile>> loserFiles = new AtomicReference<>();
    AtomicReference<TieringRound> winnerRound = new AtomicReference<>();
    // The loser has read the range and written its files when the winner commits the same range.
    IcebergTableTiering loser =
        new IcebergTableTiering(
            fixture.lake(),
            fixture.connection(),
            (table, files) -> {
              loserFiles.set(List.copyOf(files));
              winnerRound.set(winner.tierOnce(table));
            },
            Duration.ofMinutes(1));

    TieringRound lost = loser.tierOnce(path);
    assertThat(winnerRound.get().outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(winnerRound.get().rows()).isEqualTo(300);
    assertThat(lost.outcome()).isEqualTo(TieringRound.Outcome.LOST_RACE);
    Table table = fixture.lakeTable(path);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(winnerRound.get().snapshotId());
    assertThat(loserFiles.get())
        .isNotEmpty()
        .allSatisfy(
            file -> assertThat(table.io().newInputFile(file.location()).exists()).isFalse());
    assertThat(readLake(path).keySet()).containsExactlyElementsOf(range(0, 300));
  }

  @Test
  void tierersRacingWhileRowsArriveCommitEveryRowOnce() throws Exception {
    TablePath path = create("contended", PartitionSpec.unpartitioned());
    IcebergTableTiering first = new IcebergTableTiering(fixture.lake(), fixture.connection());
    IcebergTableTiering second = new IcebergTableTiering(fixture.lake(), fixture.connection());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<TieringRound> rounds = new ArrayList<>();
    try {
      for (int wave = 0; wave < 4; wave++) {
        append(path, wave * 100L, (wave + 1) * 100L);
        Future<TieringRound> a = pool.submit(() -> first.tierOnce(path));
        Future<TieringRound> b = pool.submit(() -> second.tierOnce(path));
        rounds.add(a.get());
        rounds.add(b.get());
      }
    } finally {
      pool.shutdownNow();
    }
    rounds.add(first.tierOnce(path));
    long committedRows =
        rounds.stream()
            .filter(round -> round.outcome() == TieringRound.Outcome.COMMITTED)
            .mapToLong(TieringRound::rows)
            .sum();
    assertThat(committedRows).isEqualTo(400);
    assertThat(readLake(path).keySet()).containsExactlyElementsOf(range(0, 400));
    assertThat(summaryOffsets(fixture.lakeTable(path).currentSnapshot()).partitions())
        .isEqualTo(fixture.highWatermarks(path));
  }

  @Test
  void aRoundThatFailsBeforeItsCommitLeavesNothingAndTheNextOneTiersEveryRowOnce() {
    TablePath path = create("crashy", PARTITIONED);
    append(path, 0, 400);
    AtomicReference<List<DataFile>> written = new AtomicReference<>();
    IcebergTableTiering crashing =
        new IcebergTableTiering(
            fixture.lake(),
            fixture.connection(),
            (table, files) -> {
              written.set(List.copyOf(files));
              throw new IllegalStateException("crash between writing files and committing");
            },
            Duration.ofMinutes(1));
    assertThatThrownBy(() -> crashing.tierOnce(path))
        .hasMessageContaining("crash between writing files and committing");
    Table table = fixture.lakeTable(path);
    assertThat(table.currentSnapshot()).isNull();
    assertThat(written.get())
        .isNotEmpty()
        .allSatisfy(
            file -> assertThat(table.io().newInputFile(file.location()).exists()).isFalse());

    append(path, 400, 500);
    TieringRound round =
        new IcebergTableTiering(fixture.lake(), fixture.connection()).tierOnce(path);
    assertThat(round.rows()).isEqualTo(500);
    Map<Long, Record> rows = readLake(path);
    assertThat(rows.keySet()).containsExactlyElementsOf(range(0, 500));
    rows.forEach((id, record) -> assertRow(record, id));
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }
}
