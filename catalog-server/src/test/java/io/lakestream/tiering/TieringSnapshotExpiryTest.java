package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;
  private static Connection connection;
  private static LakeCatalog lake;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    catalog = lakestream.catalog();
    connection = lakestream.connection();
    catalog.createNamespace(Namespace.of("exp"), new HashMap<>());
    lake = IcebergLakeCatalog.of(catalog);
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static TablePath create(String name, String kind, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put("lakestream.kind", kind);
    properties.put("lakestream.buckets", "2");
    properties.put(TableProperties.MAX_SNAPSHOT_AGE_MS, "1");
    catalog.createTable(
        TableIdentifier.of("exp", name), SCHEMA, PartitionSpec.unpartitioned(), properties);
    return TablePath.of("exp." + name);
  }

  private static Table lakeTable(TablePath path) {
    return catalog.loadTable(TableIdentifier.of("exp", path.name()));
  }

  private static Map<Long, Long> readLake(TablePath path) {
    Map<Long, Long> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(lakeTable(path)).build()) {
      for (Record record : records) {
        Long id = (Long) record.getField("id");
        assertThat(rows.containsKey(id)).as("id %s read twice", id).isFalse();
        rows.put(id, (Long) record.getField("value"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static int snapshotCount(TablePath path) {
    List<Snapshot> snapshots = new ArrayList<>();
    lakeTable(path).snapshots().forEach(snapshots::add);
    return snapshots.size();
  }

  @Test
  void logTableRoundsExpireOldSnapshotsAndStillTierEachRowOnce() {
    TablePath path = create("log", "log", Map.of());
    IcebergTableTiering tiering = new IcebergTableTiering(lake, connection);
    Map<Long, Long> expected = new TreeMap<>();
    for (int round = 0; round < 5; round++) {
      try (AppendWriter writer =
          connection.table(path).newAppendWriter(WriterOptions.defaults().withBatchRows(40))) {
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
    IcebergTableTiering tiering = new IcebergTableTiering(lake, connection);
    Map<Long, Long> expected = new TreeMap<>();
    java.util.Random random = new java.util.Random(5);
    for (int round = 0; round < 6; round++) {
      try (UpsertWriter writer =
          connection.table(path).newUpsertWriter(WriterOptions.defaults().withBatchRows(40))) {
        for (int i = 0; i < 150; i++) {
          long id = random.nextInt(60);
          if (random.nextInt(5) == 0) {
            writer.delete(id);
            expected.remove(id);
          } else {
            long value = random.nextLong();
            writer.upsert(id, value);
            expected.put(id, value);
          }
        }
        writer.flush();
      }
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertThat(readLake(path)).isEqualTo(expected);
    }
    Snapshot current = lakeTable(path).currentSnapshot();
    assertThat(current.operation()).isEqualTo("replace");
    assertThat(current.summary()).containsKey(TieredOffsets.SUMMARY_KEY);
    assertThat(snapshotCount(path)).isLessThanOrEqualTo(2);
  }
}
