package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiered offsets survive other engines' maintenance of the lake table. As a Trino user did: rows
 * are tiered, another engine appends rows and deletes some, then expires every snapshot but the
 * current one (Iceberg's own {@code expireSnapshots} through the REST catalog, which is what
 * Trino's and Spark's {@code expire_snapshots} run). The next rounds must tier only the new log
 * rows: no duplicates, deleted rows not back. Without the tag and the catalog's record, the round
 * after the expiry started again from offset 0.
 */
class TieringSurvivesLakeMaintenanceTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "value", Types.LongType.get()));

  @RegisterExtension
  static final TieringFixture fixture = TieringFixture.serviceDiscoveringEverySecond("maint");

  /** A log table the server's service finds but leaves alone (its first round is an hour away). */
  private static TablePath create(String name) {
    return fixture.createTable(
        name,
        SCHEMA,
        PartitionSpec.unpartitioned(),
        TieringFixture.streamTable("log", 2, TieringConfig.INTERVAL_PROPERTY, "1h"));
  }

  /** Iceberg tiering with the catalog's record of tiered offsets, as the server runs it. */
  private static IcebergTableTiering tiering() {
    return new IcebergTableTiering(
        fixture.lake(),
        fixture.connection(),
        TieringHook.NONE,
        Duration.ofMinutes(1),
        IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND,
        DataFileWriter.DUCKDB,
        fixture.tieredOffsets());
  }

  /** The lake table's rows by id; fails on an id read twice. */
  private static Map<Long, Long> readLake(TablePath path) {
    return fixture.readLake(path, record -> (Long) record.getField("value"));
  }

  /**
   * What another engine does: appends a data file of its own with rows {@code ids} and deletes the
   * rows {@code deleted} by an equality delete on {@code id}, in one row-delta commit.
   */
  private static void foreignInsertAndDelete(
      TablePath path, List<Long> ids, List<Long> deleted, Map<Long, Long> expected) {
    Table table = fixture.lakeTable(path);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(table.schema().select("id"))
            .build();
    DataFile dataFile;
    DeleteFile deleteFile;
    try {
      OutputFile dataOut =
          table.io().newOutputFile(table.locationProvider().newDataLocation(foreignName()));
      DataWriter<Record> dataWriter =
          writers.newDataWriter(
              EncryptedFiles.plainAsEncryptedOutput(dataOut), PartitionSpec.unpartitioned(), null);
      try (dataWriter) {
        for (long id : ids) {
          GenericRecord record = GenericRecord.create(table.schema());
          record.setField("id", id);
          record.setField("value", -id);
          dataWriter.write(record);
          expected.put(id, -id);
        }
      }
      dataFile = dataWriter.toDataFile();
      OutputFile deleteOut =
          table.io().newOutputFile(table.locationProvider().newDataLocation(foreignName()));
      EqualityDeleteWriter<Record> deleteWriter =
          writers.newEqualityDeleteWriter(
              EncryptedFiles.plainAsEncryptedOutput(deleteOut),
              PartitionSpec.unpartitioned(),
              null);
      try (deleteWriter) {
        for (long id : deleted) {
          GenericRecord key = GenericRecord.create(table.schema().select("id"));
          key.setField("id", id);
          deleteWriter.write(key);
          expected.remove(id);
        }
      }
      deleteFile = deleteWriter.toDeleteFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.newRowDelta().addRows(dataFile).addDeletes(deleteFile).commit();
  }

  private static String foreignName() {
    return "trino-" + UUID.randomUUID() + ".parquet";
  }

  /** Expires every snapshot but the current one, as {@code expire_snapshots} with retain 1 does. */
  private static void expireAllButCurrent(TablePath path) {
    Table table = fixture.lakeTable(path);
    table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }

  private static String uuid(TablePath path) {
    return ((HasTableOperations) fixture.lakeTable(path)).operations().current().uuid();
  }

  @Test
  void expiringEverySnapshotButTheCurrentOneAfterForeignChangesLosesNoOffsets() {
    TablePath path = create("expired");
    IcebergTableTiering tiering = tiering();
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(readLake(path)).isEqualTo(expected);

    foreignInsertAndDelete(path, range(5000, 5005), range(100, 110), expected);
    expireAllButCurrent(path);
    Table expired = fixture.lakeTable(path);
    assertThat(expired.currentSnapshot().summary()).doesNotContainKey(TieredOffsets.SUMMARY_KEY);
    assertThat(expired.refs()).containsKey(TieredOffsets.TAG);

    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);
    TieringRound round = tiering.tierOnce(path);
    assertThat(round.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(round.rows()).isEqualTo(50);
    Map<Long, Long> lakeRows = readLake(path);
    assertThat(lakeRows).hasSize(1000 - 10 + 5 + 50);
    assertThat(lakeRows).isEqualTo(expected);

    // Both copies follow the commit: the tag and the catalog's record.
    Table after = fixture.lakeTable(path);
    Snapshot tagged = after.snapshot(after.refs().get(TieredOffsets.TAG).snapshotId());
    assertThat(tagged.snapshotId()).isEqualTo(after.currentSnapshot().snapshotId());
    TieredOffsets offsets = TieredOffsets.parse(tagged.summary().get(TieredOffsets.SUMMARY_KEY));
    assertThat(fixture.tieredOffsets().load(uuid(path)).orElseThrow().offsets()).isEqualTo(offsets);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
  }

  @Test
  void theCatalogsRecordCoversATagDroppedBeforeTheExpiry() {
    TablePath path = create("untagged");
    IcebergTableTiering tiering = tiering();
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);

    foreignInsertAndDelete(path, range(5000, 5005), range(100, 110), expected);
    fixture.lakeTable(path).manageSnapshots().removeTag(TieredOffsets.TAG).commit();
    expireAllButCurrent(path);
    assertThat(fixture.lakeTable(path).refs()).doesNotContainKey(TieredOffsets.TAG);

    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);
    TieringRound round = tiering.tierOnce(path);
    assertThat(round.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(round.rows()).isEqualTo(50);
    assertThat(readLake(path)).isEqualTo(expected);
    // The commit put the offsets and the tag back into the table.
    assertThat(fixture.lakeTable(path).refs()).containsKey(TieredOffsets.TAG);
    assertThat(fixture.lakeTable(path).currentSnapshot().summary())
        .containsKey(TieredOffsets.SUMMARY_KEY);
  }

  @Test
  void withTheTagAndTheRecordGoneTieringRefusesAndTheStatusSaysFailed() {
    TablePath path = create("lost");
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    // Let the server's own service tier it, every second from now on.
    fixture.lakeTable(path).updateProperties().set(TieringConfig.INTERVAL_PROPERTY, "1s").commit();
    TieringFixture.await(
        "the service to tier 1000 rows",
        Duration.ofSeconds(60),
        () ->
            readLake(path).size() == 1000
                && fixture.tieringStatus("lost").path("lag-rows").asLong() == 0);

    foreignInsertAndDelete(path, range(5000, 5005), range(100, 110), expected);
    fixture.lakeTable(path).manageSnapshots().removeTag(TieredOffsets.TAG).commit();
    expireAllButCurrent(path);
    fixture.tieredOffsets().remove(uuid(path));
    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);

    TieringFixture.await(
        "the status to say failed",
        Duration.ofSeconds(60),
        () -> fixture.tieringStatus("lost").path("state").asText().equals("failed"));
    JsonNode status = fixture.tieringStatus("lost");
    assertThat(status.path("state").asText()).isEqualTo("failed");
    assertThat(status.path("last-error").asText())
        .contains("refuses to start again from offset 0")
        .contains("maint.lost");
    assertThat(status.path("offsets-error").asText()).contains("refuses");
    // Nothing was tiered a second time, and the deleted rows are not back.
    Map<Long, Long> lakeRows = readLake(path);
    assertThat(lakeRows).hasSize(1000 - 10 + 5);
    assertThat(lakeRows.keySet()).doesNotContain(100L, 1000L);
  }
}
