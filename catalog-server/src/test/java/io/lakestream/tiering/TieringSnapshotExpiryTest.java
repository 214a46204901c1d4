package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiering expires old snapshots of the tables it commits to, and never the one holding the tiered
 * offsets: rounds after an expiry neither lose nor repeat rows.
 */
class TieringSnapshotExpiryTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "value", Types.LongType.get())),
          java.util.Set.of(1));

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("exp");

  private static TablePath create(String name, String kind, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put("lakestream.kind", kind);
    properties.put("lakestream.buckets", "2");
    properties.put(TableProperties.MAX_SNAPSHOT_AGE_MS, "1");
    return fixture.createTable(name, SCHEMA, PartitionSpec.unpartitioned(), properties);
  }

  private static Map<Long, Long> readLake(TablePath path) {
    return fixture.readLake(path, record -> (Long) record.getField("value"));
  }

  private static int snapshotCount(TablePath path) {
    List<Snapshot> snapshots = new ArrayList<>();
    fixture.lakeTable(path).snapshots().forEach(snapshots::add);
    return snapshots.size();
  }

  @Test
  void logTableRoundsExpireOldSnapshotsAndStillTierEachRowOnce() {
    TablePath path = create("log", "log", Map.of());
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    Map<Long, Long> expected = new TreeMap<>();
    for (int round = 0; round < 5; round++) {
      try (AppendWriter writer =
          fixture
              .connection()
              .table(path)
              .newAppendWriter(WriterOptions.defaults().withBatchRows(40))) {
        for (long id = round * 100L; id < round * 100L + 100; id++) {
          writer.append(id, id * 3);
          expected.put(id, id * 3);
        }
        writer.flush();
      }
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertThat(readLake(path)).isEqualTo(expected);
    }
    assertThat(snapshotCount(path)).isLessThanOrEqualTo(2);
  }

  @Test
  void primaryKeyTablesKeepTheirOffsetsWhenTheTieringSnapshotsBeforeACompactionExpire() {
    TablePath path =
        create("pk", "primary-key", Map.of(TieringConfig.COMPACTION_DELETE_FILES_PROPERTY, "1"));
    IcebergTableTiering tiering = new IcebergTableTiering(fixture.lake(), fixture.connection());
    Map<Long, Long> expected = new TreeMap<>();
    java.util.Random random = new java.util.Random(5);
    for (int round = 0; round < 6; round++) {
      fixture.changeRandomly(
          path, random, 150, 60, 5, WriterOptions.defaults().withBatchRows(40), expected);
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertThat(readLake(path)).isEqualTo(expected);
    }
    Snapshot current = fixture.lakeTable(path).currentSnapshot();
    assertThat(current.operation()).isEqualTo("replace");
    assertThat(current.summary()).containsKey(TieredOffsets.SUMMARY_KEY);
    assertThat(snapshotCount(path)).isLessThanOrEqualTo(2);
  }
}
