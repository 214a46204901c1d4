package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
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
 * A round stops at its row limit and commits the offsets it reached; the rounds after it go on from
 * there, and together they tier every row exactly once.
 */
class TieringRoundLimitTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "value", Types.LongType.get())),
          Set.of(1));
  private static final long LIMIT = 100;

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;
  private static Connection connection;
  private static IcebergTableTiering tiering;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    catalog = lakestream.catalog();
    connection = lakestream.connection();
    catalog.createNamespace(Namespace.of("lim"), new HashMap<>());
    tiering =
        new IcebergTableTiering(
            IcebergLakeCatalog.of(catalog),
            connection,
            TieringHook.NONE,
            Duration.ofMinutes(1),
            LIMIT);
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static TablePath create(String name, String kind) {
    catalog.createTable(
        TableIdentifier.of("lim", name),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", kind, "lakestream.buckets", "3")));
    return TablePath.of("lim." + name);
  }

  private static Table lakeTable(TablePath path) {
    return catalog.loadTable(TableIdentifier.of("lim", path.name()));
  }

  private static TieredOffsets offsets(TablePath path) {
    return TieredOffsets.committedIn(((HasTableOperations) lakeTable(path)).operations().current());
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

  private static long sum(TieredOffsets offsets) {
    return offsets.partitions().values().stream()
        .flatMap(buckets -> buckets.values().stream())
        .mapToLong(Long::longValue)
        .sum();
  }

  @Test
  void aLogTableCatchesUpInRoundsOfAboutTheLimit() {
    TablePath path = create("log", "log");
    Map<Long, Long> expected = new TreeMap<>();
    try (AppendWriter writer =
        connection.table(path).newAppendWriter(WriterOptions.defaults().withBatchRows(20))) {
      for (long id = 0; id < 700; id++) {
        writer.append(id, -id);
        expected.put(id, -id);
      }
      writer.flush();
    }
    int rounds = 0;
    long tiered = 0;
    TieringRound round;
    while ((round = tiering.tierOnce(path)).outcome() == TieringRound.Outcome.COMMITTED) {
      rounds++;
      // Each round reads whole batches until it passes the limit; only the last may hold less.
      assertThat(round.rows())
          .isGreaterThanOrEqualTo(Math.min(LIMIT, 700 - tiered))
          .isLessThan(700);
      tiered += round.rows();
      // The lake holds exactly the log rows below the offsets it records.
      assertThat((long) readLake(path).size()).isEqualTo(sum(offsets(path)));
      assertThat(rounds).as("rounds to catch up").isLessThanOrEqualTo(7);
    }
    assertThat(rounds).isGreaterThan(1);
    assertThat(readLake(path)).isEqualTo(expected);
  }

  @Test
  void aPrimaryKeyTableCatchesUpInRoundsAndEndsInItsCurrentState() {
    TablePath path = create("pk", "primary-key");
    Map<Long, Long> expected = new TreeMap<>();
    Random random = new Random(3);
    try (UpsertWriter writer =
        connection.table(path).newUpsertWriter(WriterOptions.defaults().withBatchRows(20))) {
      for (int i = 0; i < 900; i++) {
        long id = random.nextInt(120);
        if (random.nextInt(6) == 0) {
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
    int rounds = 0;
    while (tiering.tierOnce(path).outcome() == TieringRound.Outcome.COMMITTED) {
      rounds++;
      assertThat(rounds).as("rounds to catch up").isLessThanOrEqualTo(20);
    }
    assertThat(rounds).isGreaterThan(1);
    assertThat(readLake(path)).isEqualTo(expected);
  }
}
