package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiering compacts a log table's small files: once the rounds wrote the table's threshold of files
 * and a partition holds that many small ones, they are rewritten into one file per partition in a
 * {@code replace} snapshot that repeats the offsets, and later rounds go on from those offsets with
 * every row still read exactly once.
 */
class TieringLogCompactionTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "value", Types.StringType.get()),
          Types.NestedField.required(3, "region", Types.StringType.get()));

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("cmp");

  private static TablePath create(String name, PartitionSpec spec, String smallFiles) {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.kind", "log");
    properties.put("lakestream.buckets", "2");
    properties.put(TieringConfig.COMPACTION_SMALL_FILES_PROPERTY, smallFiles);
    return fixture.createTable(name, SCHEMA, spec, properties);
  }

  private static Map<Long, String> readLake(TablePath path) {
    return fixture.readLake(
        path, record -> record.getField("value") + "/" + record.getField("region"));
  }

  /** Appends ids {@code [from, from + count)} in both regions and tiers them in one round. */
  private static void appendAndTier(
      TablePath path, IcebergTableTiering tiering, long from, int count, Map<Long, String> model) {
    try (AppendWriter writer =
        fixture
            .connection()
            .table(path)
            .newAppendWriter(WriterOptions.defaults().withBatchRows(16))) {
      for (long id = from; id < from + count; id++) {
        String region = id % 2 == 0 ? "east" : "west";
        String value = id % 7 == 0 ? null : "v" + id;
        writer.append(id, value, region);
        model.put(id, value + "/" + region);
      }
      writer.flush();
    }
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
  }

  @Test
  void smallFilesOfEachPartitionAreRewrittenIntoOneAndLaterRoundsGoOn() {
    TablePath path =
        create("events", PartitionSpec.builderFor(SCHEMA).identity("region").build(), "6");
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    Map<Long, String> model = new TreeMap<>();
    long next = 0;
    boolean compacted = false;
    int filesWritten = 0;
    for (int round = 0; round < 8; round++) {
      int filesBefore = TieringFixture.dataFiles(fixture.lakeTable(path)).size();
      appendAndTier(path, tiering, next, 40, model);
      next += 40;
      Table table = fixture.lakeTable(path);
      Snapshot current = table.currentSnapshot();
      assertThat(readLake(path)).as("round %s", round).isEqualTo(model);
      assertThat(current.summary()).containsKey(TieredOffsets.SUMMARY_KEY);
      if (DataOperations.REPLACE.equals(current.operation())) {
        compacted = true;
        Snapshot round0 = table.snapshot(current.parentId());
        assertThat(current.summary().get(TieredOffsets.SUMMARY_KEY))
            .as("the compaction repeats the offsets of the round before it")
            .isEqualTo(round0.summary().get(TieredOffsets.SUMMARY_KEY));
        List<DataFile> files = TieringFixture.dataFiles(table);
        assertThat(files).as("one file per region after compacting %s", filesBefore).hasSize(2);
        for (DataFile file : files) {
          assertThat(Files.exists(Path.of(java.net.URI.create(file.location())))).isTrue();
        }
      } else {
        filesWritten += TieringFixture.dataFiles(table).size() - filesBefore;
      }
    }
    assertThat(filesWritten).as("files the rounds wrote").isGreaterThanOrEqualTo(6);
    assertThat(compacted).as("a compaction ran").isTrue();
    assertThat(TieringFixture.dataFiles(fixture.lakeTable(path)).size())
        .as("files left after eight rounds")
        .isLessThan(filesWritten);
  }

  @Test
  void tablesBelowTheirThresholdKeepTheirFiles() {
    TablePath path = create("quiet", PartitionSpec.unpartitioned(), "100");
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    Map<Long, String> model = new TreeMap<>();
    for (int round = 0; round < 4; round++) {
      appendAndTier(path, tiering, round * 10L, 10, model);
    }
    Table table = fixture.lakeTable(path);
    table.snapshots().forEach(s -> assertThat(s.operation()).isEqualTo(DataOperations.APPEND));
    assertThat(readLake(path)).isEqualTo(model);
  }

  @Test
  void anInvalidThresholdIsRefusedWhenTheTableIsCreated() {
    assertThatThrownBy(() -> create("bad", PartitionSpec.unpartitioned(), "1"))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining(TieringConfig.COMPACTION_SMALL_FILES_PROPERTY)
        .hasMessageContaining("'1'");
    assertThatThrownBy(() -> create("bad", PartitionSpec.unpartitioned(), "many"))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("'many'");
  }
}
