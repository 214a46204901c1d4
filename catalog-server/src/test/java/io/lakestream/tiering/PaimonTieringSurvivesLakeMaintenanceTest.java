package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.paimon.PaimonTableTiering;
import io.lakestream.lake.paimon.PaimonTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiered offsets of a Paimon-tiered table survive another engine's maintenance of the Paimon table,
 * as they do for Iceberg-tiered tables ({@link TieringSurvivesLakeMaintenanceTest}): rows are
 * tiered, another engine commits rows of its own (a snapshot without {@value
 * TieredOffsets#SUMMARY_KEY}) and expires every snapshot but that one, as Paimon's {@code
 * expire_snapshots} procedures do. The next round must tier only the new log rows. Before the
 * Paimon tag and the catalog's record, the offsets lived only in the snapshot properties and the
 * round after the expiry started again from offset 0 (every row tiered twice).
 */
class PaimonTieringSurvivesLakeMaintenanceTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "value", Types.LongType.get()));

  @RegisterExtension
  static final TieringFixture fixture = TieringFixture.serviceDiscoveringEverySecond("pmaint");

  /** A Paimon-tiered log table the server's service leaves alone (its round is an hour away). */
  private static TablePath create(String name) {
    return fixture.createTable(
        name,
        SCHEMA,
        PartitionSpec.unpartitioned(),
        TieringFixture.streamTable(
            "log", 2, "lakestream.lake-format", "paimon", TieringConfig.INTERVAL_PROPERTY, "1h"));
  }

  private static String uuid(TablePath path) {
    return ((HasTableOperations) fixture.lakeTable(path)).operations().current().uuid();
  }

  private static PaimonTableTiering tiering() {
    return new PaimonTableTiering(
        fixture.lake(),
        fixture.connection(),
        TieringHook.NONE,
        Duration.ofMinutes(1),
        IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND,
        fixture.tieredOffsets());
  }

  private static FileStoreTable paimonTable(TablePath path) {
    Options options = new Options();
    options.set("warehouse", PaimonTables.warehouse(fixture.lakeTable(path).location()));
    try (Catalog paimon = CatalogFactory.createCatalog(PaimonTables.context(options))) {
      return (FileStoreTable)
          paimon.getTable(Identifier.create(PaimonTables.DATABASE, path.name()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The Paimon table's rows by id, through Paimon's reader; fails on an id read twice. */
  private static Map<Long, Long> readPaimon(TablePath path) {
    FileStoreTable table = paimonTable(path);
    ReadBuilder read = table.newReadBuilder();
    Map<Long, Long> rows = new TreeMap<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            long id = row.getLong(0);
            assertThat(rows.containsKey(id)).as("id %s read twice", id).isFalse();
            rows.put(id, row.isNullAt(1) ? null : row.getLong(1));
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The number of rows of the Paimon table; -1 while tiering has not created it. */
  private static int paimonRows(TablePath path) {
    try {
      return readPaimon(path).size();
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof Catalog.TableNotExistException) {
        return -1;
      }
      throw e;
    }
  }

  /**
   * What another engine writing the Paimon table does: commits rows of its own, as its own commit
   * user, with no {@value TieredOffsets#SUMMARY_KEY}.
   */
  private static void foreignInsert(TablePath path, long from, long to, Map<Long, Long> expected)
      throws Exception {
    FileStoreTable table = paimonTable(path);
    StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("another-engine");
    List<CommitMessage> messages;
    try (StreamTableWrite write = builder.newWrite()) {
      for (long id = from; id < to; id++) {
        write.write(GenericRow.of(id, -id));
        expected.put(id, -id);
      }
      messages = write.prepareCommit(true, 1);
    }
    try (TableCommitImpl commit = (TableCommitImpl) builder.newCommit()) {
      commit.commit(1, messages);
    }
  }

  /** Expires every Paimon snapshot but the latest, as Paimon's expire procedures can. */
  private static void expireAllButLatest(TablePath path) {
    FileStoreTable table = paimonTable(path);
    table
        .newExpireSnapshots()
        .config(
            ExpireConfig.builder()
                .snapshotRetainMin(1)
                .snapshotRetainMax(1)
                .snapshotTimeRetain(Duration.ZERO)
                .build())
        .expire();
    FileStoreTable expired = paimonTable(path);
    assertThat(expired.snapshotManager().earliestSnapshotId())
        .isEqualTo(expired.snapshotManager().latestSnapshotId());
    // No snapshot with offsets is left: offsets kept only in snapshots would start from 0.
    assertThat(PaimonTableTiering.offsetsOf(expired)).isEqualTo(TieredOffsets.NONE);
  }

  @Test
  void expiringEveryTieredSnapshotAfterAForeignCommitLosesNoOffsets() throws Exception {
    TablePath path = create("expired");
    PaimonTableTiering tiering = tiering();
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(readPaimon(path)).isEqualTo(expected);
    FileStoreTable tiered = paimonTable(path);
    assertThat(tiered.tagManager().tagExists(TieredOffsets.TAG)).isTrue();
    assertThat(fixture.tieredOffsets().load(uuid(path)).orElseThrow().offsets())
        .isEqualTo(PaimonTableTiering.offsetsOf(tiered));

    foreignInsert(path, 5000, 5005, expected);
    expireAllButLatest(path);
    // A round with nothing to tier points the entry at the foreign snapshot, which carries the
    // offsets it was committed on (else union reads would read every log from 0 again).
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
    TieredOffsets entryOffsets =
        TieredOffsets.committedIn(
            ((HasTableOperations) fixture.lakeTable(path)).operations().current());
    assertThat(entryOffsets).isNotEqualTo(TieredOffsets.NONE);
    assertThat(entryOffsets)
        .isEqualTo(fixture.tieredOffsets().load(uuid(path)).orElseThrow().offsets());

    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);
    TieringRound round = tiering.tierOnce(path);
    assertThat(round.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(round.rows()).isEqualTo(50);
    Map<Long, Long> rows = readPaimon(path);
    assertThat(rows).hasSize(1000 + 5 + 50);
    assertThat(rows).isEqualTo(expected);

    // The tag and the record follow the commit.
    FileStoreTable after = paimonTable(path);
    long latest = after.snapshotManager().latestSnapshotId();
    assertThat(after.tagManager().getOrThrow(TieredOffsets.TAG).id()).isEqualTo(latest);
    assertThat(fixture.tieredOffsets().load(uuid(path)).orElseThrow().snapshotId())
        .isEqualTo(latest);
    assertThat(fixture.tieredOffsets().load(uuid(path)).orElseThrow().offsets())
        .isEqualTo(PaimonTableTiering.offsetsOf(after));
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
  }

  @Test
  void theCatalogsRecordCoversATagDroppedBeforeTheExpiry() throws Exception {
    TablePath path = create("untagged");
    PaimonTableTiering tiering = tiering();
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);

    foreignInsert(path, 5000, 5005, expected);
    paimonTable(path).deleteTag(TieredOffsets.TAG);
    expireAllButLatest(path);
    assertThat(paimonTable(path).tagManager().tagExists(TieredOffsets.TAG)).isFalse();

    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);
    TieringRound round = tiering.tierOnce(path);
    assertThat(round.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(round.rows()).isEqualTo(50);
    assertThat(readPaimon(path)).hasSize(1000 + 5 + 50).isEqualTo(expected);
    // The commit put the offsets and the tag back into the Paimon table.
    assertThat(paimonTable(path).tagManager().tagExists(TieredOffsets.TAG)).isTrue();
    TieredOffsets offsets = PaimonTableTiering.offsetsOf(paimonTable(path));
    assertThat(offsets.partitions().get("").values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(1050);
    assertThat(fixture.tieredOffsets().load(uuid(path)).orElseThrow().offsets()).isEqualTo(offsets);
  }

  @Test
  void withTheTagAndTheRecordGoneTieringRefusesAndTheStatusSaysFailed() throws Exception {
    TablePath path = create("lost");
    Map<Long, Long> expected = new TreeMap<>();
    fixture.appendIdValues(path, 0, 1000, id -> id * 7, expected);
    // Let the server's own service tier it, every second from now on.
    fixture.lakeTable(path).updateProperties().set(TieringConfig.INTERVAL_PROPERTY, "1s").commit();
    TieringFixture.await(
        "the service to tier 1000 rows",
        Duration.ofSeconds(90),
        () ->
            paimonRows(path) == 1000
                && fixture.tieringStatus("lost").path("lag-rows").asLong() == 0);
    assertThat(fixture.tieredOffsets().load(uuid(path))).isPresent();

    foreignInsert(path, 5000, 5005, expected);
    paimonTable(path).deleteTag(TieredOffsets.TAG);
    expireAllButLatest(path);
    fixture.tieredOffsets().remove(uuid(path));
    fixture.appendIdValues(path, 1000, 1050, id -> id * 7, expected);

    TieringFixture.await(
        "the status to say failed",
        Duration.ofSeconds(90),
        () -> fixture.tieringStatus("lost").path("state").asText().equals("failed"));
    JsonNode status = fixture.tieringStatus("lost");
    assertThat(status.path("last-error").asText())
        .contains("refuses to start again from offset 0")
        .contains("pmaint.lost");
    // Nothing was tiered a second time.
    Map<Long, Long> rows = readPaimon(path);
    assertThat(rows).hasSize(1000 + 5);
    assertThat(rows.keySet()).doesNotContain(1000L);
  }
}
