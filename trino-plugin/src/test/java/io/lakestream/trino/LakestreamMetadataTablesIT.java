package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.TieredTables;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The metadata tables of the {@code lakestream} catalog: {@code "t$offsets"} of a streaming table
 * against what the test wrote and waited to be tiered, and the Iceberg connector's own ({@code
 * $snapshots}, {@code $files}) for streaming and plain tables.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamMetadataTablesIT {
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);
  private static final String SCHEMA = LAKESTREAM_CATALOG + "." + TieredTables.NAMESPACE;

  private final SharedTrino shared;
  private TieredTables tables;

  LakestreamMetadataTablesIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort());
  }

  @AfterAll
  void close() {
    if (tables != null) {
      tables.close();
    }
  }

  /**
   * Proves that {@code "t$offsets"} has one row per bucket whose high watermarks add up to the rows
   * written, whose lag is the high watermark less the tiered offset, and that once everything is
   * tiered the tiered offsets equal the high watermarks (lag 0); rows appended after that show as
   * lag again.
   */
  @Test
  void offsetsTableShowsTieredOffsetHighWatermarkAndLag() {
    TieredTables.LogTable table = tables.createLogTable("meta_offsets", false);
    String offsets = SCHEMA + ".\"" + table.name() + "$offsets\"";
    table.append(3_000);
    assertOffsets(offsets, 3_000, 0);

    table.awaitTiered(TIERING_TIMEOUT);
    assertOffsets(offsets, 3_000, 3_000);
    assertThat(shared.rows("SELECT max(lag) FROM " + offsets)).containsExactly(List.of(0L));

    table.append(1_200);
    // Tiering goes on every second: at least what was tiered before, at most everything.
    List<List<Object>> sums =
        shared.rows("SELECT sum(high_watermark), sum(tiered_offset), sum(lag) FROM " + offsets);
    long tiered = (Long) sums.getFirst().get(1);
    assertThat(sums.getFirst().getFirst()).isEqualTo(4_200L);
    assertThat(tiered).isBetween(3_000L, 4_200L);
    assertThat(sums.getFirst().get(2)).isEqualTo(4_200L - tiered);
  }

  /**
   * Proves that {@code "t$offsets"} of a partitioned table has a row per bucket of each of its 12
   * partitions, high watermarks adding up to the rows written and, once tiered, no lag.
   */
  @Test
  void offsetsTableOfAPartitionedTableHasEveryPartitionsBuckets() {
    TieredTables.LogTable table = tables.createLogTable("meta_offsets_by_day", true);
    table.append(2_000);
    table.awaitTiered(TIERING_TIMEOUT);
    assertThat(
            shared.rows(
                "SELECT count(*), count(DISTINCT partition), sum(high_watermark),"
                    + " sum(tiered_offset), max(lag) FROM "
                    + SCHEMA
                    + ".\""
                    + table.name()
                    + "$offsets\""))
        .containsExactly(List.of(36L, 12L, 2_000L, 2_000L, 0L));
  }

  /**
   * Asserts the rows of {@code t$offsets}: buckets 0, 1, 2 of the one partition {@code ""}, high
   * watermarks adding up to {@code written}, tiered offsets adding up to at least {@code
   * tieredAtLeast}, lag = high watermark - tiered offset, log start 0.
   */
  private void assertOffsets(String offsets, long written, long tieredAtLeast) {
    List<List<Object>> rows =
        shared.rows(
            "SELECT partition, bucket, log_start_offset, tiered_offset, high_watermark, lag FROM "
                + offsets
                + " ORDER BY bucket");
    assertThat(rows).extracting(row -> row.get(1)).containsExactly(0, 1, 2);
    long highWatermarks = 0;
    long tiered = 0;
    for (List<Object> row : rows) {
      assertThat(row.getFirst()).as("partition of %s", row).isEqualTo("");
      assertThat(row.get(2)).as("log start of %s", row).isEqualTo(0L);
      long tieredOffset = (Long) row.get(3);
      long highWatermark = (Long) row.get(4);
      assertThat(row.get(5)).as("lag of %s", row).isEqualTo(highWatermark - tieredOffset);
      assertThat(tieredOffset).as("tiered offset of %s", row).isBetween(0L, highWatermark);
      highWatermarks += highWatermark;
      tiered += tieredOffset;
    }
    assertThat(highWatermarks).as("high watermarks of %s", offsets).isEqualTo(written);
    assertThat(tiered).as("tiered offsets of %s", offsets).isGreaterThanOrEqualTo(tieredAtLeast);
    if (tieredAtLeast == written) {
      assertThat(tiered).isEqualTo(written);
    }
  }

  /**
   * Proves that the Iceberg connector's metadata tables work through the {@code lakestream}
   * catalog: {@code $snapshots} of a streaming table lists the tiering commits with their offsets,
   * {@code $files} its files, and both work for a plain Iceberg table, which has no {@code
   * $offsets}.
   */
  @Test
  void icebergMetadataTablesWorkForStreamingAndPlainTables() {
    TieredTables.LogTable table = tables.createLogTable("meta_snapshots", false);
    table.append(1_000);
    table.awaitTiered(TIERING_TIMEOUT);
    String snapshots = SCHEMA + ".\"" + table.name() + "$snapshots\"";
    List<List<Object>> tiering =
        shared.rows(
            "SELECT count(*) FROM "
                + snapshots
                + " WHERE element_at(summary, 'lakestream.offsets') IS NOT NULL AND operation = 'append'");
    assertThat((Long) tiering.getFirst().getFirst()).isPositive();
    assertThat(
            shared.rows(
                "SELECT sum(record_count) FROM " + SCHEMA + ".\"" + table.name() + "$files\""))
        .containsExactly(List.of(1_000L));

    shared.rows("CREATE TABLE lake." + TieredTables.NAMESPACE + ".meta_plain (x bigint)");
    shared.rows("INSERT INTO lake." + TieredTables.NAMESPACE + ".meta_plain VALUES 1, 2, 3");
    // The same snapshots as the Iceberg catalog lists (CREATE TABLE commits one, INSERT another).
    assertThat(
            shared.rows(
                "SELECT snapshot_id, operation FROM " + SCHEMA + ".\"meta_plain$snapshots\""))
        .containsExactlyInAnyOrderElementsOf(
            shared.rows(
                "SELECT snapshot_id, operation FROM lake."
                    + TieredTables.NAMESPACE
                    + ".\"meta_plain$snapshots\""))
        .isNotEmpty();
    assertThat(
            shared.rows(
                "SELECT count(*) FROM "
                    + SCHEMA
                    + ".\"meta_plain$snapshots\" WHERE element_at(summary, 'added-records') = '3'"))
        .containsExactly(List.of(1L));
    assertThat(shared.rows("SELECT sum(record_count) FROM " + SCHEMA + ".\"meta_plain$files\""))
        .containsExactly(List.of(3L));
    assertThatThrownBy(() -> shared.rows("SELECT * FROM " + SCHEMA + ".\"meta_plain$offsets\""))
        .hasMessageContaining("does not exist");
  }

  /** Shows what {@code SHOW CREATE TABLE} of a streaming table says (for the report). */
  @Test
  void showCreateTableOfAStreamingTable() {
    TieredTables.LogTable table = tables.createLogTable("meta_show", false);
    String shown =
        (String)
            shared.rows("SHOW CREATE TABLE " + SCHEMA + "." + table.name()).getFirst().getFirst();
    System.out.println("SHOW CREATE TABLE of a streaming table:\n" + shown);
    assertThat(shown).contains("CREATE TABLE");
  }
}
