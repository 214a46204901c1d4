package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.lake.paimon.PaimonTableTiering;
import io.lakestream.lake.paimon.PaimonTables;
import io.lakestream.scan.UnionScanPlanner;
import io.lakestream.scan.UnionScanReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tiering into Paimon ({@code lakestream.lake-format=paimon}) on a real embedded server: log and
 * primary-key tables read back through Paimon's Java API and through Iceberg readers of the catalog
 * entry, compared with a model of what the test wrote; exactly-once across a crash before the
 * commit, a commit repeated after its answer was lost and two rounds from the same start; bad
 * property values refused.
 */
class PaimonTieringTest {
  private static final Schema LOG_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "region", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(4, "day", Types.DateType.get()),
          Types.NestedField.optional(5, "at", Types.TimestampType.withZone()),
          Types.NestedField.optional(6, "payload", Types.BinaryType.get()),
          Types.NestedField.optional(7, "score", Types.DoubleType.get()));
  private static final PartitionSpec LOG_BY_REGION =
      PartitionSpec.builderFor(LOG_SCHEMA).identity("region").build();
  private static final Schema PK_SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "region", Types.StringType.get()),
              Types.NestedField.optional(3, "name", Types.StringType.get()),
              Types.NestedField.optional(4, "score", Types.LongType.get())),
          Set.of(1, 2));
  private static final PartitionSpec PK_BY_REGION =
      PartitionSpec.builderFor(PK_SCHEMA).identity("region").build();
  private static final String[] REGIONS = {"eu", "us", "apac"};
  private static final long BASE_MICROS = 1_790_000_000_000_000L;

  @RegisterExtension
  static final TieringFixture fixture = TieringFixture.serviceDiscoveringEverySecond("pm");

  // ---------------------------------------------------------------------------------------------
  // Tables and the test's model of them

  /** Creates a Paimon-tiered table; {@code interval} 1s lets the server's service tier it. */
  private static TablePath create(
      String name, Schema schema, PartitionSpec spec, String kind, String interval) {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.kind", kind);
    properties.put("lakestream.buckets", "2");
    properties.put("lakestream.lake-format", "paimon");
    properties.put("lakestream.tiering.interval", interval);
    return fixture.createTable(name, schema, spec, properties);
  }

  /** A log row as the test writes it: id, region, amount, day, at (micros), payload, score. */
  private static Object[] logRow(long id) {
    return new Object[] {
      id,
      REGIONS[(int) (id % REGIONS.length)],
      id % 7 == 0 ? null : BigDecimal.valueOf(id * 137 % 100_000, 2),
      id % 11 == 0 ? null : LocalDate.ofEpochDay(19_000 + id % 400),
      id % 13 == 0 ? null : BASE_MICROS + id * 1_000_003L,
      id % 5 == 0 ? null : new byte[] {(byte) id, (byte) (id >> 8), 42},
      id % 3 == 0 ? null : id / 8.0
    };
  }

  /** Appends rows {@code [from, to)} and waits until they are durable; returns them. */
  private static List<Object[]> append(TablePath path, long from, long to) {
    List<Object[]> written = new ArrayList<>();
    fixture.append(
        path,
        from,
        to,
        WriterOptions.defaults().withBatchRows(100),
        id -> {
          Object[] row = logRow(id);
          written.add(row);
          return row;
        });
    return written;
  }

  /** Key (id, region) to row, changed by random upserts and deletes it also sends to the table. */
  private static final class PrimaryKeyModel {
    final Map<List<Object>, Object[]> rows = new HashMap<>();
    final Random random;

    PrimaryKeyModel(long seed) {
      this.random = new Random(seed);
    }

    void change(TablePath path, int count, int keys) {
      try (UpsertWriter writer =
          fixture
              .connection()
              .table(path)
              .newUpsertWriter(WriterOptions.defaults().withBatchRows(64))) {
        for (int i = 0; i < count; i++) {
          long id = random.nextInt(keys);
          String region = REGIONS[random.nextInt(REGIONS.length)];
          List<Object> key = List.of(id, region);
          if (random.nextInt(4) == 0) {
            writer.delete(id, region);
            rows.remove(key);
          } else {
            Object[] row = {
              id,
              region,
              random.nextInt(5) == 0 ? null : "name-" + random.nextInt(1000),
              random.nextBoolean() ? null : (long) random.nextInt(1_000_000)
            };
            writer.upsert(row);
            rows.put(key, row);
          }
        }
        writer.flush();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reading: the values of a row normalised to what the test wrote (Long micros for timestamps,
  // byte[] as a list for comparison, BigDecimal, LocalDate)

  private static List<Object> normalise(Object[] row) {
    List<Object> values = new ArrayList<>();
    for (Object value : row) {
      values.add(value instanceof byte[] bytes ? toList(bytes) : value);
    }
    return values;
  }

  private static List<Byte> toList(byte[] bytes) {
    List<Byte> list = new ArrayList<>();
    for (byte b : bytes) {
      list.add(b);
    }
    return list;
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

  /** Every row of the Paimon table, through Paimon's reader, normalised. */
  private static List<List<Object>> readPaimon(TablePath path, boolean log) {
    FileStoreTable table = paimonTable(path);
    ReadBuilder read = table.newReadBuilder();
    List<List<Object>> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            if (log) {
              rows.add(
                  Arrays.asList(
                      row.getLong(0),
                      row.getString(1).toString(),
                      row.isNullAt(2) ? null : row.getDecimal(2, 12, 2).toBigDecimal(),
                      row.isNullAt(3) ? null : LocalDate.ofEpochDay(row.getInt(3)),
                      row.isNullAt(4) ? null : row.getTimestamp(4, 6).toMicros(),
                      row.isNullAt(5) ? null : toList(row.getBinary(5)),
                      row.isNullAt(6) ? null : row.getDouble(6)));
            } else {
              rows.add(
                  Arrays.asList(
                      row.getLong(0),
                      row.getString(1).toString(),
                      row.isNullAt(2) ? null : row.getString(2).toString(),
                      row.isNullAt(3) ? null : row.getLong(3)));
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Every row of the catalog entry, through Iceberg's generic reader, normalised. */
  private static List<List<Object>> readIceberg(TablePath path) {
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(fixture.lakeTable(path)).build()) {
      for (Record record : records) {
        rows.add(normalise(record));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Every row of a union read (the entry's snapshot and the log after its offsets), normalised. */
  private static List<List<Object>> readUnion(TablePath path) {
    List<List<Object>> rows = new ArrayList<>();
    new UnionScanReader(fixture.connection(), Duration.ofMinutes(1))
        .read(
            new UnionScanPlanner(fixture.lake(), fixture.connection()).plan(path),
            record -> rows.add(normalise(record)));
    return rows;
  }

  private static List<Object> normalise(Record record) {
    List<Object> row = new ArrayList<>();
    for (int i = 0; i < record.size(); i++) {
      Object value = record.get(i);
      if (value instanceof OffsetDateTime at) {
        value = TimeUnit.SECONDS.toMicros(at.toEpochSecond()) + at.getNano() / 1_000;
      } else if (value instanceof ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        value = toList(bytes);
      }
      row.add(value);
    }
    return row;
  }

  /** Rows by id (log tables) or by key (id, region), failing on a duplicate. */
  private static Map<List<Object>, List<Object>> byKey(List<List<Object>> rows, int keyColumns) {
    Map<List<Object>, List<Object>> keyed = new HashMap<>();
    for (List<Object> row : rows) {
      List<Object> previous = keyed.put(row.subList(0, keyColumns), row);
      assertThat(previous).as("row %s read twice", row).isNull();
    }
    return keyed;
  }

  /** Count, per-column sums of the numeric columns and a full comparison with the model. */
  private static void assertLogRows(List<List<Object>> read, List<Object[]> written) {
    assertThat(read).hasSize(written.size());
    List<List<Object>> expected = written.stream().map(PaimonTieringTest::normalise).toList();
    assertThat(sums(read)).isEqualTo(sums(expected));
    Map<List<Object>, List<Object>> actual = byKey(read, 1);
    for (List<Object> row : expected) {
      assertThat(actual.get(row.subList(0, 1))).as("row %s", row.get(0)).isEqualTo(row);
    }
  }

  /** Per column: the sum of its numeric values and the number of nulls. */
  private static List<String> sums(List<List<Object>> rows) {
    List<String> sums = new ArrayList<>();
    int columns = rows.isEmpty() ? 0 : rows.get(0).size();
    for (int c = 0; c < columns; c++) {
      BigDecimal sum = BigDecimal.ZERO;
      long nulls = 0;
      for (List<Object> row : rows) {
        Object value = row.get(c);
        if (value == null) {
          nulls++;
        } else if (value instanceof Number number) {
          sum = sum.add(new BigDecimal(number.toString()));
        } else if (value instanceof LocalDate date) {
          sum = sum.add(BigDecimal.valueOf(date.toEpochDay()));
        }
      }
      sums.add(sum.stripTrailingZeros().toPlainString() + "/" + nulls);
    }
    return sums;
  }

  /**
   * Paimon's reader and Iceberg readers of the catalog entry both read exactly the rows written to
   * the log table and the model's state of the primary-key table.
   */
  private static void assertBothReadersSee(
      TablePath log, List<Object[]> written, TablePath keyed, PrimaryKeyModel model) {
    assertLogRows(readPaimon(log, true), written);
    assertLogRows(readIceberg(log), written);
    assertPrimaryKeyRows(readPaimon(keyed, false), model);
    assertPrimaryKeyRows(readIceberg(keyed), model);
  }

  private static void assertPrimaryKeyRows(List<List<Object>> read, PrimaryKeyModel model) {
    Map<List<Object>, List<Object>> actual = byKey(read, 2);
    assertThat(actual.keySet()).isEqualTo(model.rows.keySet());
    List<List<Object>> expected = model.rows.values().stream().map(Arrays::asList).toList();
    assertThat(sums(read)).isEqualTo(sums(expected));
    model.rows.forEach(
        (key, row) -> assertThat(actual.get(key)).as("row %s", key).containsExactly(row));
  }

  private static TieredOffsets entryOffsets(TablePath path) {
    return TieredOffsets.committedIn(
        ((HasTableOperations) fixture.lakeTable(path)).operations().current());
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  /** Waits until the server's tiering has every written record in Paimon and in the entry. */
  private static void awaitCaughtUp(TablePath path) {
    Map<String, Map<Integer, Long>> target = fixture.highWatermarks(path);
    await(
        path + " tiered to " + target,
        () ->
            entryOffsets(path).partitions().equals(target)
                && PaimonTableTiering.offsetsOf(paimonTable(path)).partitions().equals(target));
  }

  // ---------------------------------------------------------------------------------------------
  // 1. What readers see

  @Test
  void logTableTiersIntoPaimonAndReadsTheSameThroughPaimonAndIceberg() {
    TablePath path = create("events", LOG_SCHEMA, LOG_BY_REGION, "log", "1s");
    List<Object[]> written = new ArrayList<>(append(path, 0, 3_000));
    awaitCaughtUp(path);
    assertLogRows(readPaimon(path, true), written);
    assertLogRows(readIceberg(path), written);

    written.addAll(append(path, 3_000, 4_500));
    awaitCaughtUp(path);
    assertLogRows(readPaimon(path, true), written);
    assertLogRows(readIceberg(path), written);

    // The entry still is the streaming table: its definition is intact, its snapshots are Paimon's.
    Table entry = fixture.lakeTable(path);
    assertThat(entry.properties())
        .containsEntry("lakestream.kind", "log")
        .containsEntry("lakestream.lake-format", "paimon");
    assertThat(entry.schema().sameSchema(LOG_SCHEMA)).isTrue();
    assertThat(entry.currentSnapshot().snapshotId())
        .isEqualTo(paimonTable(path).snapshotManager().latestSnapshotId());
    assertThat(entry.currentSnapshot().manifestListLocation()).contains("/paimon/lakestream.db/");

    // The tiering status reads the offsets from the entry as for an Iceberg-tiered table.
    JsonNode status = status(path);
    assertThat(status.path("lag-rows").asLong()).isZero();
    assertThat(status.path("last-snapshot").path("snapshot-id").asLong())
        .isEqualTo(entry.currentSnapshot().snapshotId());
    long tiered = 0;
    for (JsonNode bucket : status.path("buckets")) {
      tiered += bucket.path("tiered-offset").asLong();
    }
    assertThat(tiered).isEqualTo(written.size());
  }

  private static JsonNode status(TablePath path) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + fixture.lakestream().server().httpPort()
                                  + "/v1/namespaces/pm/tables/"
                                  + path.name()
                                  + "/tiering"))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return new ObjectMapper().readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void primaryKeyTableShowsTheCurrentStateThroughPaimonAndIceberg() {
    TablePath path = create("accounts", PK_SCHEMA, PK_BY_REGION, "primary-key", "1s");
    PrimaryKeyModel model = new PrimaryKeyModel(11);
    for (int wave = 0; wave < 3; wave++) {
      model.change(path, 1_500, 400);
      awaitCaughtUp(path);
      assertPrimaryKeyRows(readPaimon(path, false), model);
      assertPrimaryKeyRows(readIceberg(path), model);
    }
    // A model with deletes and updates of keys from earlier rounds, not only inserts.
    assertThat(model.rows.size()).isLessThan(REGIONS.length * 400).isGreaterThan(100);
  }

  @Test
  void unionReadsCombineThePaimonStateWithTheLogTail() {
    TablePath log = create("union_log", LOG_SCHEMA, LOG_BY_REGION, "log", "1h");
    TablePath keyed = create("union_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
    PaimonTableTiering tiering = tiering(fixture.lake(), 1_000_000);
    List<Object[]> written = new ArrayList<>(append(log, 0, 1_200));
    PrimaryKeyModel model = new PrimaryKeyModel(21);
    model.change(keyed, 900, 200);
    assertThat(tiering.tierOnce(log).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(tiering.tierOnce(keyed).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);

    // Rows after the tiered offsets are only in the log: the union read has every row once.
    written.addAll(append(log, 1_200, 1_700));
    model.change(keyed, 400, 200);
    assertThat(readIceberg(log)).hasSize(1_200);
    assertLogRows(readUnion(log), written);
    assertPrimaryKeyRows(readUnion(keyed), model);
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Exactly once

  @Test
  void aCrashBetweenWritingAndCommittingTiersNoDuplicates() {
    TablePath log = create("crash_log", LOG_SCHEMA, LOG_BY_REGION, "log", "1h");
    TablePath keyed = create("crash_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
    PaimonTableTiering crashing = crashingBeforeTheCommit();
    PaimonTableTiering tiering = tiering(fixture.lake(), 1_000_000);

    List<Object[]> written = new ArrayList<>(append(log, 0, 1_000));
    PrimaryKeyModel model = new PrimaryKeyModel(5);
    model.change(keyed, 800, 200);
    for (TablePath path : List.of(log, keyed)) {
      assertThatThrownBy(() -> crashing.tierOnce(path))
          .hasMessageContaining("crash between writing files and committing");
      assertThat(PaimonTableTiering.offsetsOf(paimonTable(path))).isEqualTo(TieredOffsets.NONE);
      assertThat(readPaimon(path, path == log)).isEmpty();
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    }
    assertBothReadersSee(log, written, keyed, model);

    // A second crash after committed rounds, then the round again.
    written.addAll(append(log, 1_000, 1_700));
    model.change(keyed, 500, 200);
    for (TablePath path : List.of(log, keyed)) {
      TieredOffsets before = PaimonTableTiering.offsetsOf(paimonTable(path));
      assertThatThrownBy(() -> crashing.tierOnce(path)).isInstanceOf(IllegalStateException.class);
      assertThat(PaimonTableTiering.offsetsOf(paimonTable(path))).isEqualTo(before);
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertThat(PaimonTableTiering.offsetsOf(paimonTable(path)).partitions())
          .isEqualTo(fixture.highWatermarks(path));
      assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
    }
    assertBothReadersSee(log, written, keyed, model);
  }

  @Test
  void aCommitWhoseAnswerWasLostIsNotCommittedTwice() {
    TablePath log = create("lost_log", LOG_SCHEMA, PartitionSpec.unpartitioned(), "log", "1h");
    TablePath keyed = create("lost_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
    PaimonTableTiering tiering = tiering(fixture.lake(), 1_000_000);
    List<Object[]> written = new ArrayList<>(append(log, 0, 800));
    PrimaryKeyModel model = new PrimaryKeyModel(9);
    model.change(keyed, 600, 150);

    for (TablePath path : List.of(log, keyed)) {
      // Two rounds prepared from the same start: one commits, and repeating that commit (its
      // answer lost) or committing the other changes nothing.
      PaimonTableTiering.PreparedRound first = tiering.prepare(path).orElseThrow();
      PaimonTableTiering.PreparedRound second = tiering.prepare(path).orElseThrow();
      assertThat(second.identifier()).isEqualTo(first.identifier());
      assertThat(tiering.commit(first).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      long snapshot = paimonTable(path).snapshotManager().latestSnapshotId();
      assertThat(tiering.commit(first).outcome()).isEqualTo(TieringRound.Outcome.LOST_RACE);
      assertThat(tiering.commit(second).outcome()).isEqualTo(TieringRound.Outcome.LOST_RACE);
      assertThat(paimonTable(path).snapshotManager().latestSnapshotId()).isEqualTo(snapshot);
      // The round re-run after the lost answer finds the range committed.
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
      assertThat(tiering.prepare(path)).isEqualTo(Optional.empty());
    }
    assertBothReadersSee(log, written, keyed, model);

    // Commit identifiers go on from there.
    written.addAll(append(log, 800, 1_000));
    assertThat(tiering.tierOnce(log).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertLogRows(readPaimon(log, true), written);
    assertLogRows(readIceberg(log), written);
  }

  @Test
  void aRoundWhoseChangesCancelOutStillRecordsItsOffsets() {
    TablePath path = create("cancel_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
    PaimonTableTiering tiering = tiering(fixture.lake(), 1_000_000);
    PrimaryKeyModel model = new PrimaryKeyModel(3);
    model.change(path, 300, 100);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    long snapshot = paimonTable(path).snapshotManager().latestSnapshotId();

    // Keys the lake never saw, inserted and deleted within the next round: nothing to write.
    try (UpsertWriter writer =
        fixture.connection().table(path).newUpsertWriter(WriterOptions.defaults())) {
      for (long id = 1_000; id < 1_050; id++) {
        writer.upsert(id, "eu", "short-lived", id);
        writer.delete(id, "eu");
      }
      writer.flush();
    }
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(paimonTable(path).snapshotManager().latestSnapshotId()).isGreaterThan(snapshot);
    assertThat(PaimonTableTiering.offsetsOf(paimonTable(path)).partitions())
        .isEqualTo(fixture.highWatermarks(path));
    assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
    assertPrimaryKeyRows(readPaimon(path, false), model);
    assertPrimaryKeyRows(readIceberg(path), model);
  }

  /** Paimon tiering whose rounds fail between writing their files and committing them. */
  private static PaimonTableTiering crashingBeforeTheCommit() {
    return new PaimonTableTiering(
        fixture.lake(),
        fixture.connection(),
        (table, files) -> {
          throw new IllegalStateException("crash between writing files and committing");
        },
        Duration.ofMinutes(1),
        1_000_000);
  }

  /** Paimon tiering through {@code lake} with rounds of at most {@code maxRowsPerRound} rows. */
  private static PaimonTableTiering tiering(LakeCatalog lake, long maxRowsPerRound) {
    return new PaimonTableTiering(
        lake, fixture.connection(), TieringHook.NONE, Duration.ofMinutes(1), maxRowsPerRound);
  }

  /**
   * A lake catalog that fails every load while {@link #down} is set: the catalog is unreachable.
   */
  private static final class FlakyLake implements LakeCatalog {
    final java.util.concurrent.atomic.AtomicBoolean down =
        new java.util.concurrent.atomic.AtomicBoolean();

    /** Prepares a round of {@code path} and fails its commit while the catalog is down. */
    void failCommit(PaimonTableTiering tiering, TablePath path) {
      PaimonTableTiering.PreparedRound round = tiering.prepare(path).orElseThrow();
      down.set(true);
      assertThatThrownBy(() -> tiering.commit(round)).hasMessageContaining("catalog unreachable");
      down.set(false);
    }

    @Override
    public List<StreamTable> listStreamTables() {
      return fixture.lake().listStreamTables();
    }

    @Override
    public Table loadTable(TablePath path) {
      if (down.get()) {
        throw new IllegalStateException("catalog unreachable");
      }
      return fixture.lake().loadTable(path);
    }
  }

  /**
   * A log table with {@code logRows} rows and a primary-key table with {@code changes} random
   * changes over {@code keys} keys, both in their logs only, and a tiering through a {@link
   * FlakyLake}: what the crash tests start from.
   */
  private record CrashSetUp(
      TablePath log,
      TablePath keyed,
      FlakyLake flaky,
      PaimonTableTiering tiering,
      List<Object[]> written,
      PrimaryKeyModel model) {
    static CrashSetUp of(String prefix, int logRows, long seed, int changes, int keys) {
      TablePath log = create(prefix + "_log", LOG_SCHEMA, LOG_BY_REGION, "log", "1h");
      TablePath keyed = create(prefix + "_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
      FlakyLake flaky = new FlakyLake();
      PaimonTableTiering tiering = PaimonTieringTest.tiering(flaky, 1_000_000);
      List<Object[]> written = new ArrayList<>(append(log, 0, logRows));
      PrimaryKeyModel model = new PrimaryKeyModel(seed);
      model.change(keyed, changes, keys);
      return new CrashSetUp(log, keyed, flaky, tiering, written, model);
    }
  }

  @Test
  void aCrashBeforePaimonWroteTheIcebergMetadataIsRepairedByTheNextRoundWithoutNewRows()
      throws IOException {
    CrashSetUp crash = CrashSetUp.of("nometa", 600, 17, 500, 100);

    for (TablePath path : List.of(crash.log(), crash.keyed())) {
      crash.flaky().failCommit(crash.tiering(), path);
      // As if the process died after Paimon's commit, before its callback wrote the snapshot's
      // Iceberg metadata.
      FileStoreTable table = paimonTable(path);
      long latest = table.snapshotManager().latestSnapshotId();
      org.apache.paimon.fs.Path metadata =
          new org.apache.paimon.fs.Path(table.location(), "metadata/v" + latest + ".metadata.json");
      assertThat(table.fileIO().delete(metadata, false)).isTrue();
      assertThat(fixture.lakeTable(path).currentSnapshot()).isNull();
      // Nothing new to tier: the round has Paimon write the metadata and points the entry at it.
      assertThat(crash.tiering().tierOnce(path).outcome())
          .isEqualTo(TieringRound.Outcome.UP_TO_DATE);
      assertThat(table.fileIO().exists(metadata)).isTrue();
      assertThat(paimonTable(path).snapshotManager().latestSnapshotId()).isEqualTo(latest);
      assertThat(fixture.lakeTable(path).currentSnapshot().snapshotId()).isEqualTo(latest);
      assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
    }
    assertLogRows(readIceberg(crash.log()), crash.written());
    assertPrimaryKeyRows(readIceberg(crash.keyed()), crash.model());
  }

  @Test
  void roundsThatTierOnlyRowsOfANullPartitionReachIcebergReaders() {
    // Paimon 1.4.2's Iceberg callback fails on a commit whose new files all lie in a partition
    // whose value is null; such rounds must still commit and be visible through the entry.
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "region", Types.StringType.get()));
    TablePath path =
        create(
            "null_region",
            schema,
            PartitionSpec.builderFor(schema).identity("region").build(),
            "log",
            "1h");
    PaimonTableTiering tiering = tiering(fixture.lake(), 1_000_000);
    List<List<Object>> written = new ArrayList<>();
    appendRegions(path, 0, 300, new String[] {"eu", null}, written);
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    for (int round = 0; round < 2; round++) {
      appendRegions(path, 300 + round * 200, 500 + round * 200, new String[] {null}, written);
      assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
      assertThat(fixture.lakeTable(path).currentSnapshot().snapshotId())
          .isEqualTo(paimonTable(path).snapshotManager().latestSnapshotId());
      assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
      assertThat(readIceberg(path)).containsExactlyInAnyOrderElementsOf(written);
    }
    assertThat(tiering.tierOnce(path).outcome()).isEqualTo(TieringRound.Outcome.UP_TO_DATE);
  }

  /** Appends rows (id, region) for ids {@code [from, to)}, cycling through {@code regions}. */
  private static void appendRegions(
      TablePath path, long from, long to, String[] regions, List<List<Object>> written) {
    fixture.append(
        path,
        from,
        to,
        WriterOptions.defaults().withBatchRows(100),
        id -> {
          String region = regions[(int) (id % regions.length)];
          written.add(Arrays.asList(id, region));
          return new Object[] {id, region};
        });
  }

  @Test
  void aCrashBetweenThePaimonCommitAndTheCatalogEntryIsRepairedByTheNextRound() {
    CrashSetUp crash = CrashSetUp.of("gap", 900, 13, 700, 150);

    for (TablePath path : List.of(crash.log(), crash.keyed())) {
      crash.flaky().failCommit(crash.tiering(), path);
      // Paimon has the range; the entry does not yet.
      assertThat(PaimonTableTiering.offsetsOf(paimonTable(path)).partitions())
          .isEqualTo(fixture.highWatermarks(path));
      assertThat(entryOffsets(path)).isEqualTo(TieredOffsets.NONE);
      assertThat(fixture.lakeTable(path).currentSnapshot()).isNull();
      // The next round finds nothing to tier and points the entry at Paimon's state.
      assertThat(crash.tiering().tierOnce(path).outcome())
          .isEqualTo(TieringRound.Outcome.UP_TO_DATE);
      assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
    }
    assertBothReadersSee(crash.log(), crash.written(), crash.keyed(), crash.model());
  }

  @Test
  void aCompactionLostTwiceIsRedoneAndTheEntryClaimsNoRowsItsIcebergReadersMiss()
      throws IOException {
    CrashSetUp crash = CrashSetUp.of("twice", 10, 23, 600, 150);
    TablePath keyed = crash.keyed();
    assertThat(crash.tiering().tierOnce(keyed).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    TieredOffsets compacted = entryOffsets(keyed);
    List<List<Object>> compactedRows = readIceberg(keyed);
    assertThat(compactedRows).isNotEmpty();

    // A round's append snapshot is committed and its compaction snapshot lost: the process died
    // between the two.
    crash.model().change(keyed, 400, 150);
    commitLosingTheCompaction(crash, keyed);
    // The round that redoes the compaction (no new rows) dies the same way, leaving an append
    // snapshot without rows on top of files that are still not compacted.
    commitLosingTheCompaction(crash, keyed);
    org.apache.paimon.Snapshot latest = paimonTable(keyed).snapshotManager().latestSnapshot();
    assertThat(latest.commitKind()).isEqualTo(org.apache.paimon.Snapshot.CommitKind.APPEND);
    assertThat(latest.deltaRecordCount()).isZero();
    assertThat(PaimonTableTiering.offsetsOf(paimonTable(keyed)).partitions())
        .isEqualTo(fixture.highWatermarks(keyed));

    // A round that dies before its commit points the entry at that snapshot without claiming the
    // offsets of rows its Iceberg readers do not see, and it has a compaction to commit.
    assertThatThrownBy(() -> crashingBeforeTheCommit().tierOnce(keyed))
        .hasMessageContaining("crash between writing files and committing");
    assertThat(fixture.lakeTable(keyed).currentSnapshot().snapshotId()).isEqualTo(latest.id());
    assertThat(entryOffsets(keyed)).isEqualTo(compacted);
    assertThat(readIceberg(keyed)).containsExactlyInAnyOrderElementsOf(compactedRows);

    // The next round compacts again, without new rows: Iceberg readers see every change.
    assertThat(crash.tiering().tierOnce(keyed).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(paimonTable(keyed).snapshotManager().latestSnapshot().commitKind())
        .isEqualTo(org.apache.paimon.Snapshot.CommitKind.COMPACT);
    assertThat(entryOffsets(keyed).partitions()).isEqualTo(fixture.highWatermarks(keyed));
    assertPrimaryKeyRows(readIceberg(keyed), crash.model());
    assertPrimaryKeyRows(readPaimon(keyed, false), crash.model());
    assertThat(crash.tiering().tierOnce(keyed).outcome())
        .isEqualTo(TieringRound.Outcome.UP_TO_DATE);
  }

  @Test
  void anotherEnginesCompactionOfSomeBucketsLeavesNoneHiddenFromIcebergReaders() throws Exception {
    CrashSetUp crash = CrashSetUp.of("foreign", 10, 29, 600, 150);
    TablePath keyed = crash.keyed();
    assertThat(crash.tiering().tierOnce(keyed).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    crash.model().change(keyed, 400, 150);
    commitLosingTheCompaction(crash, keyed);
    int uncompacted = bucketsBelowTheHighestLevel(keyed);
    assertThat(uncompacted).isGreaterThan(1);

    // Another engine fully compacts one of those buckets: its compaction snapshot is the newest,
    // and the other buckets still hold rows Iceberg readers do not see.
    FileStoreTable table = paimonTable(keyed);
    int maxLevel = table.coreOptions().numLevels() - 1;
    org.apache.paimon.manifest.ManifestEntry below =
        table.store().newScan().withLevelFilter(level -> level < maxLevel).plan().files().get(0);
    org.apache.paimon.table.sink.StreamWriteBuilder builder =
        table.newStreamWriteBuilder().withCommitUser("another-engine");
    try (org.apache.paimon.table.sink.StreamTableWrite write = builder.newWrite();
        org.apache.paimon.table.sink.StreamTableCommit commit = builder.newCommit()) {
      write.compact(below.partition(), below.bucket(), true);
      commit.commit(1, write.prepareCommit(true, 1));
    }
    org.apache.paimon.Snapshot latest = paimonTable(keyed).snapshotManager().latestSnapshot();
    assertThat(latest.commitKind()).isEqualTo(org.apache.paimon.Snapshot.CommitKind.COMPACT);
    assertThat(latest.commitUser()).isEqualTo("another-engine");
    assertThat(bucketsBelowTheHighestLevel(keyed)).isEqualTo(uncompacted - 1);

    // The next round compacts the rest, without new rows.
    assertThat(crash.tiering().tierOnce(keyed).outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    assertThat(bucketsBelowTheHighestLevel(keyed)).isZero();
    assertThat(entryOffsets(keyed).partitions()).isEqualTo(fixture.highWatermarks(keyed));
    assertPrimaryKeyRows(readIceberg(keyed), crash.model());
  }

  /** How many buckets of the newest Paimon snapshot hold files below the highest level. */
  private static int bucketsBelowTheHighestLevel(TablePath path) {
    FileStoreTable table = paimonTable(path);
    int maxLevel = table.coreOptions().numLevels() - 1;
    return (int)
        table.store().newScan().withLevelFilter(level -> level < maxLevel).plan().files().stream()
            .map(entry -> List.of(entry.partition(), entry.bucket()))
            .distinct()
            .count();
  }

  /**
   * Commits a round of a primary-key table as if the process died right after Paimon committed its
   * append snapshot: the round's compaction snapshot is taken away again with its Iceberg metadata
   * and the tiering tag moved to it, and the Iceberg metadata Paimon had before the commit is put
   * back (Paimon keeps only the newest; the append snapshot's was never written).
   */
  private static void commitLosingTheCompaction(CrashSetUp crash, TablePath path)
      throws IOException {
    PaimonTableTiering.PreparedRound round = crash.tiering().prepare(path).orElseThrow();
    FileStoreTable table = paimonTable(path);
    org.apache.paimon.fs.FileIO io = table.fileIO();
    long before = table.snapshotManager().latestSnapshotId();
    org.apache.paimon.fs.Path beforeMetadata = icebergMetadata(table, before);
    String beforeJson = io.readFileUtf8(beforeMetadata);
    crash.flaky().down.set(true);
    assertThatThrownBy(() -> crash.tiering().commit(round))
        .hasMessageContaining("catalog unreachable");
    crash.flaky().down.set(false);

    table = paimonTable(path);
    org.apache.paimon.utils.SnapshotManager snapshots = table.snapshotManager();
    org.apache.paimon.Snapshot compaction = snapshots.latestSnapshot();
    assertThat(compaction.commitKind()).isEqualTo(org.apache.paimon.Snapshot.CommitKind.COMPACT);
    assertThat(snapshots.snapshot(compaction.id() - 1).commitKind())
        .isEqualTo(org.apache.paimon.Snapshot.CommitKind.APPEND);
    assertThat(io.delete(snapshots.snapshotPath(compaction.id()), false)).isTrue();
    io.delete(new org.apache.paimon.fs.Path(snapshots.snapshotDirectory(), "LATEST"), false);
    assertThat(io.delete(icebergMetadata(table, compaction.id()), false)).isTrue();
    io.delete(table.tagManager().tagPath(TieredOffsets.TAG), false);
    io.overwriteFileUtf8(beforeMetadata, beforeJson);
    assertThat(paimonTable(path).snapshotManager().latestSnapshot().id())
        .isEqualTo(compaction.id() - 1);
  }

  private static org.apache.paimon.fs.Path icebergMetadata(FileStoreTable table, long snapshot) {
    return new org.apache.paimon.fs.Path(
        table.location(), "metadata/v" + snapshot + ".metadata.json");
  }

  @Test
  void roundsLimitedByRowsCommitWhatTheyReadAndTheNextGoesOn() {
    TablePath log = create("limited_log", LOG_SCHEMA, LOG_BY_REGION, "log", "1h");
    TablePath keyed = create("limited_pk", PK_SCHEMA, PK_BY_REGION, "primary-key", "1h");
    PaimonTableTiering tiering = tiering(fixture.lake(), 250);
    List<Object[]> written = new ArrayList<>(append(log, 0, 1_500));
    PrimaryKeyModel model = new PrimaryKeyModel(17);
    model.change(keyed, 1_200, 300);
    for (TablePath path : List.of(log, keyed)) {
      int committed = 0;
      while (tiering.tierOnce(path).outcome() == TieringRound.Outcome.COMMITTED) {
        committed++;
        assertThat(committed).as("rounds of %s", path).isLessThan(50);
      }
      assertThat(committed).as("rounds of %s", path).isGreaterThan(2);
      assertThat(entryOffsets(path).partitions()).isEqualTo(fixture.highWatermarks(path));
    }
    assertBothReadersSee(log, written, keyed, model);
  }

  @Test
  void theStandardRegistryFindsPaimonsTiererOnTheClassPath() {
    // tiering does not depend on lake-paimon: Paimon's tierer comes from its LakeTiererFactory.
    Map<LakeFormat, LakeTierer> tierers =
        LakeTierers.standard(
            fixture.lake(),
            fixture.connection(),
            TieringHook.NONE,
            Duration.ofMinutes(1),
            1_000,
            DataFileWriter.DUCKDB,
            TieredOffsetsStore.NONE);
    assertThat(tierers.keySet()).containsExactlyInAnyOrder(LakeFormat.ICEBERG, LakeFormat.PAIMON);
    assertThat(tierers.get(LakeFormat.ICEBERG)).isInstanceOf(IcebergTableTiering.class);
    assertThat(tierers.get(LakeFormat.PAIMON)).isInstanceOf(PaimonTableTiering.class);
  }

  // ---------------------------------------------------------------------------------------------
  // 3. Bad values

  @Test
  void badLakeFormatsAndPaimonIncompatibleTablesAreRefused() {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.kind", "log");
    properties.put("lakestream.lake-format", "delta");
    assertThatThrownBy(
            () ->
                fixture
                    .catalog()
                    .createTable(
                        TableIdentifier.of("pm", "delta"),
                        LOG_SCHEMA,
                        PartitionSpec.unpartitioned(),
                        properties))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.lake-format 'delta'")
        .hasMessageContaining("iceberg, paimon");

    properties.put("lakestream.lake-format", "paimon");
    assertThatThrownBy(
            () ->
                fixture
                    .catalog()
                    .createTable(
                        TableIdentifier.of("pm", "by_day"),
                        LOG_SCHEMA,
                        PartitionSpec.builderFor(LOG_SCHEMA).day("at").build(),
                        properties))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.lake-format=paimon")
        .hasMessageContaining("identity");

    TablePath path = create("fixed", LOG_SCHEMA, PartitionSpec.unpartitioned(), "log", "1h");
    assertThatThrownBy(
            () ->
                fixture
                    .lakeTable(path)
                    .updateProperties()
                    .set("lakestream.lake-format", "iceberg")
                    .commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.lake-format cannot change");
    assertThat(fixture.catalog().tableExists(TableIdentifier.of("pm", "delta"))).isFalse();

    // Only tiering commits snapshots of a Paimon-tiered table.
    Table fixed = fixture.lakeTable(path);
    assertThatThrownBy(
            () ->
                fixed
                    .newFastAppend()
                    .appendFile(
                        DataFiles.builder(fixed.spec())
                            .withPath(fixed.location() + "/data/foreign.parquet")
                            .withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(100)
                            .withRecordCount(1)
                            .build())
                    .commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("only tiering commits its snapshots");
    assertThat(fixture.lakeTable(path).currentSnapshot()).isNull();
  }
}
