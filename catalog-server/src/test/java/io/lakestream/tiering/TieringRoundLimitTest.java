package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
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
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

  @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("lim");

  /** Tiering with rounds limited to {@link #LIMIT} rows. */
  private static IcebergTableTiering limitedTiering() {
    return new IcebergTableTiering(
        fixture.lake(), fixture.connection(), TieringHook.NONE, Duration.ofMinutes(1), LIMIT);
  }

  private static TablePath create(String name, String kind) {
    return fixture.createTable(
        name,
        SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", kind, "lakestream.buckets", "3")));
  }

  private static TieredOffsets offsets(TablePath path) {
    return TieredOffsets.committedIn(
        ((HasTableOperations) fixture.lakeTable(path)).operations().current());
  }

  private static Map<Long, Long> readLake(TablePath path) {
    return fixture.readLake(path, record -> (Long) record.getField("value"));
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
    IcebergTableTiering tiering = limitedTiering();
    Map<Long, Long> expected = new TreeMap<>();
    try (AppendWriter writer =
        fixture
            .connection()
            .table(path)
            .newAppendWriter(WriterOptions.defaults().withBatchRows(20))) {
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
    IcebergTableTiering tiering = limitedTiering();
    Map<Long, Long> expected = new TreeMap<>();
    Random random = new Random(3);
    fixture.changeRandomly(
        path, random, 900, 120, 6, WriterOptions.defaults().withBatchRows(20), expected);
    int rounds = 0;
    while (tiering.tierOnce(path).outcome() == TieringRound.Outcome.COMMITTED) {
      rounds++;
      assertThat(rounds).as("rounds to catch up").isLessThanOrEqualTo(20);
    }
    assertThat(rounds).isGreaterThan(1);
    assertThat(readLake(path)).isEqualTo(expected);
  }
}
