package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiering of primary-key tables: each round turns the changelog it reads into data files and
 * equality deletes, so that an Iceberg reader sees exactly the table's current state; compaction
 * folds the deletes away without changing that state or the tiered offsets.
 */
class TieringPrimaryKeyTableTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "region", Types.StringType.get()),
              Types.NestedField.optional(3, "name", Types.StringType.get()),
              Types.NestedField.optional(4, "score", Types.LongType.get())),
          Set.of(1, 2));
  private static final PartitionSpec BY_REGION =
      PartitionSpec.builderFor(SCHEMA).identity("region").build();
  private static final String[] REGIONS = {"eu", "us west", "apac"};

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("pk");

  private static TablePath create(String name, PartitionSpec spec, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put("lakestream.kind", "primary-key");
    properties.put("lakestream.buckets", "3");
    return fixture.createTable(name, SCHEMA, spec, properties);
  }

  /**
   * The test's own model of a table: key (id, region) to row, changed by random upserts and deletes
   * that it also sends to the table.
   */
  private static final class Model {
    final Map<List<Object>, Object[]> rows = new HashMap<>();
    final Random random;
    final boolean partitioned;

    Model(long seed, boolean partitioned) {
      this.random = new Random(seed);
      this.partitioned = partitioned;
    }

    /** Applies {@code count} random changes over {@code keys} keys and waits for their acks. */
    void change(TablePath path, int count, int keys) {
      change(path, count, keys, 64);
    }

    void change(TablePath path, int count, int keys, int batchRows) {
      try (UpsertWriter writer =
          fixture
              .connection()
              .table(path)
              .newUpsertWriter(WriterOptions.defaults().withBatchRows(batchRows))) {
        for (int i = 0; i < count; i++) {
          long id = random.nextInt(keys);
          String region = partitioned ? REGIONS[random.nextInt(REGIONS.length)] : "eu";
          List<Object> key = List.of(id, region);
          if (random.nextInt(4) == 0) {
            writer.delete(id, region);
            rows.remove(key);
          } else {
            Object[] row = {
              id,
              region,
              random.nextInt(5) == 0 ? null : "name-" + random.nextInt(1000),
              random.nextBoolean() ? null : random.nextLong()
            };
            writer.upsert(row);
            rows.put(key, row);
          }
        }
        writer.flush();
      }
    }
  }

  /** Every row the lake table shows, by key, failing on a key shown twice. */
  private static Map<List<Object>, Object[]> readLake(TablePath path) {
    Map<List<Object>, Object[]> rows = new HashMap<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(fixture.lakeTable(path)).build()) {
      for (Record record : records) {
        Object[] row = {
          record.getField("id"),
          record.getField("region"),
          record.getField("name"),
          record.getField("score")
        };
        Object[] previous = rows.put(List.of(row[0], row[1]), row);
        assertThat(previous).as("key of %s read twice", record).isNull();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static void assertLakeEqualsModel(TablePath path, Model model) {
    Map<List<Object>, Object[]> lakeRows = readLake(path);
    assertThat(lakeRows.keySet()).isEqualTo(model.rows.keySet());
    model.rows.forEach(
        (key, row) -> assertThat(lakeRows.get(key)).as("row of key %s", key).containsExactly(row));
  }

  private static Map<String, Map<Integer, Long>> offsets(TablePath path) {
    return TieredOffsets.committedIn(
            ((org.apache.iceberg.HasTableOperations) fixture.lakeTable(path))
                .operations()
                .current())
        .partitions();
  }

  private static long summaryLong(Snapshot snapshot, String key) {
    return Long.parseLong(snapshot.summary().getOrDefault(key, "0"));
  }

  @Test
  void eachRoundLeavesTheLakeTableEqualToTheCurrentState() {
    TablePath path = create("state", PartitionSpec.unpartitioned(), Map.of());
    Model model = new Model(7, false);
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());

    model.change(path, 300, 150);
    TieringRound first = tiering.tierOnce(path);
    assertThat(first.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertLakeEqualsModel(path, model);
    Snapshot snapshot = fixture.lakeTable(path).currentSnapshot();
    // The first round can only have inserted (or inserted and deleted) keys: nothing to delete.
    assertThat(summaryLong(snapshot, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
    assertThat(offsets(path)).isEqualTo(fixture.highWatermarks(path));

    for (int round = 0; round < 4; round++) {
      model.change(path, 200, 150);
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertLakeEqualsModel(path, model);
      assertThat(offsets(path)).isEqualTo(fixture.highWatermarks(path));
    }
    Snapshot latest = fixture.lakeTable(path).currentSnapshot();
    assertThat(summaryLong(latest, SnapshotSummary.TOTAL_EQ_DELETES_PROP)).isPositive();
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
    assertThat(fixture.lakeTable(path).schema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id", "region", "name", "score");
  }

  @Test
  void aRoundFoldsAtMostItsChangeLimitAndTheNextGoesOn() {
    TablePath path = create("limited", PartitionSpec.unpartitioned(), Map.of());
    Model model = new Model(11, false);
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    // Over 300k changelog rows: each key's first upsert is one row, later upserts two, deletes one.
    model.change(path, 250_000, 50_000, 8192);
    long written =
        fixture.highWatermarks(path).values().stream()
            .flatMap(buckets -> buckets.values().stream())
            .mapToLong(Long::longValue)
            .sum();
    assertThat(written).isGreaterThan(IcebergTableTiering.PRIMARY_KEY_MAX_CHANGES_PER_ROUND);

    TieringRound first = tiering.tierOnce(path);
    assertThat(first.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    long firstRound =
        offsets(path).values().stream()
            .flatMap(buckets -> buckets.values().stream())
            .mapToLong(Long::longValue)
            .sum();
    // It stops at the first batch boundary at or past the limit.
    assertThat(firstRound)
        .isGreaterThanOrEqualTo(IcebergTableTiering.PRIMARY_KEY_MAX_CHANGES_PER_ROUND)
        .isLessThan(written);

    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(offsets(path)).isEqualTo(fixture.highWatermarks(path));
    assertLakeEqualsModel(path, model);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
  }

  @Test
  void partitionedTablesPutDeletesInTheirRowsPartitions() {
    TablePath path = create("regions", BY_REGION, Map.of());
    Model model = new Model(11, true);
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    for (int round = 0; round < 4; round++) {
      model.change(path, 250, 60);
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertLakeEqualsModel(path, model);
    }
    assertThat(offsets(path))
        .isEqualTo(fixture.highWatermarks(path))
        .containsOnlyKeys(
            Arrays.stream(REGIONS)
                .map(region -> "region=" + region.replace(' ', '+'))
                .toArray(String[]::new));
  }

  @Test
  void compactionDropsTheDeletesAndKeepsStateAndOffsets() {
    TablePath path =
        create(
            "compacted",
            BY_REGION,
            Map.of(TieringConfig.COMPACTION_DELETE_FILES_PROPERTY, "4", "format-version", "2"));
    Model model = new Model(13, true);
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    boolean compacted = false;
    for (int round = 0; round < 8; round++) {
      model.change(path, 200, 40);
      Snapshot before = fixture.lakeTable(path).currentSnapshot();
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      Snapshot after = fixture.lakeTable(path).currentSnapshot();
      assertLakeEqualsModel(path, model);
      assertThat(offsets(path)).isEqualTo(fixture.highWatermarks(path));
      if ("replace".equals(after.operation())) {
        compacted = true;
        assertThat(summaryLong(after, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        assertThat(fixture.lakeTable(path).snapshot(after.parentId()).parentId())
            .isEqualTo(before == null ? null : before.snapshotId());
      } else {
        assertThat(summaryLong(after, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isLessThan(4);
      }
    }
    assertThat(compacted).as("some round compacted the table").isTrue();
  }

  @Test
  void aFailedRoundDeletesItsDataAndDeleteFiles() throws IOException {
    TablePath path = create("failing", PartitionSpec.unpartitioned(), Map.of());
    Model model = new Model(17, false);
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    model.change(path, 200, 50);
    tiering.tierOnce(path);
    String location = fixture.lakeTable(path).location() + "/data";
    Path dataDirectory =
        location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    Set<Path> before = files(dataDirectory);

    model.change(path, 200, 50);
    IcebergTableTiering crashing =
        new IcebergTableTiering(
            fixture.lake(),
            fixture.connection(),
            (table, files) -> {
              throw new IllegalStateException("crash between writing files and committing");
            },
            Duration.ofMinutes(1));
    assertThatThrownBy(() -> crashing.tierOnce(path)).hasMessageContaining("crash between");
    assertThat(files(dataDirectory)).isEqualTo(before);

    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertLakeEqualsModel(path, model);
  }

  private static Set<Path> files(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files
          .filter(Files::isRegularFile)
          .filter(file -> !file.getFileName().toString().endsWith(".crc"))
          .collect(java.util.stream.Collectors.toSet());
    }
  }
}
