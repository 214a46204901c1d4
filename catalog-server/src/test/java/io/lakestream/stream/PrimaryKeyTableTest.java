package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.StateSnapshot;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.EmbeddedLakestream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-key tables end to end: upserts, deletes and partial updates through the UpsertWriter,
 * lookups, the changelog through the LogScanner, state after a restart, and typed refusals.
 */
class PrimaryKeyTableTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get()),
              Types.NestedField.optional(3, "score", Types.LongType.get())),
          Set.of(1));

  @TempDir Path data;

  private static Table create(
      EmbeddedLakestream lakestream, String name, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put("lakestream.kind", "primary-key");
    properties.put("lakestream.buckets", "2");
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("app", name), SCHEMA, PartitionSpec.unpartitioned(), properties);
    return lakestream.connection().table(TablePath.of("app." + name));
  }

  /** Folds a changelog into state, checking that each change fits the state before it. */
  private static void fold(Map<Long, Object[]> state, ChangeType type, Object[] row) {
    long id = (Long) row[0];
    switch (type) {
      case INSERT -> assertThat(state.put(id, row)).as("+I of a present key %s", id).isNull();
      case UPDATE_BEFORE -> assertThat(state.get(id)).as("-U of key %s", id).containsExactly(row);
      case UPDATE_AFTER ->
          assertThat(state.put(id, row)).as("+U of an absent key %s", id).isNotNull();
      case DELETE -> assertThat(state.remove(id)).as("-D of key %s", id).containsExactly(row);
    }
  }

  private static Map<Long, Object[]> readChangelog(Table table, int expectedChanges) {
    Map<Long, Object[]> state = new TreeMap<>();
    int changes = 0;
    try (LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (changes < expectedChanges && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
          List<Object[]> rows = batch.rows();
          for (int i = 0; i < rows.size(); i++) {
            fold(state, batch.changeType(i), rows.get(i));
            changes++;
          }
          batch.close();
        }
      }
    }
    assertThat(changes).isEqualTo(expectedChanges);
    return state;
  }

  @Test
  void upsertsDeletesAndPartialUpdatesShowInLookupsTheChangelogAndAfterARestart() throws Exception {
    Map<Long, Object[]> model = new TreeMap<>();
    int changes = 0;
    try (EmbeddedLakestream lakestream = EmbeddedLakestream.start(data)) {
      lakestream.catalog().createNamespace(Namespace.of("app"), new HashMap<>());
      Table table = create(lakestream, "scores", Map.of());
      Random random = new Random(3);
      try (UpsertWriter writer =
          table.newUpsertWriter(WriterOptions.defaults().withBatchRows(50))) {
        for (int i = 0; i < 3_000; i++) {
          long id = random.nextInt(400);
          Object[] old = model.get(id);
          if (random.nextInt(5) == 0) {
            writer.delete(id);
            if (model.remove(id) != null) {
              changes++;
            }
          } else {
            Object[] row = {id, "name-" + random.nextInt(3), (long) random.nextInt(1000)};
            writer.upsert(row);
            model.put(id, row);
            changes += old == null ? 1 : Arrays.equals(old, row) ? 0 : 2;
          }
        }
        writer.flush();
      }
      // A partial update writes only its target columns; the name stays.
      try (UpsertWriter partial =
          table.newUpsertWriter(List.of("id", "score"), WriterOptions.defaults())) {
        for (long id : new ArrayList<>(model.keySet()).subList(0, 10)) {
          Object[] old = model.get(id);
          Object[] updated = {id, old[1], (Long) old[2] + 5_000};
          partial.upsert(id, "ignored", updated[2]);
          model.put(id, updated);
          changes += 2;
        }
      }

      assertLookups(table.newLookuper(), model);
      assertThat(readChangelog(table, changes)).containsExactlyEntriesOf(model);
      assertSnapshots(table, model);
    }

    // The state is rebuilt from the log after a restart.
    try (EmbeddedLakestream lakestream = EmbeddedLakestream.start(data)) {
      Table table = lakestream.connection().table(TablePath.of("app.scores"));
      assertLookups(table.newLookuper(), model);
    }
  }

  /** The buckets' snapshots hold the model's rows, each consistent with the changelog below it. */
  private static void assertSnapshots(Table table, Map<Long, Object[]> model) {
    Map<Long, Object[]> state = new TreeMap<>();
    for (int bucket = 0; bucket < table.buckets(); bucket++) {
      try (StateSnapshot snapshot = table.snapshot("", bucket)) {
        snapshot.forEachRemaining(row -> state.put((Long) row[0], row));
        assertThat(snapshot.offset()).isEqualTo(table.latestOffset(bucket));
      }
    }
    assertThat(state).containsExactlyEntriesOf(model);
  }

  private static void assertLookups(Lookuper lookuper, Map<Long, Object[]> model) {
    List<CompletableFuture<Object[]>> results = new ArrayList<>();
    for (long id = 0; id < 420; id++) {
      results.add(lookuper.lookup(id));
    }
    for (long id = 0; id < 420; id++) {
      Object[] expected = model.get(id);
      Object[] actual = results.get((int) id).join();
      if (expected == null) {
        assertThat(actual).as("key %s", id).isNull();
      } else {
        assertThat(actual).as("key %s", id).containsExactly(expected);
      }
    }
  }

  @Test
  void badWritesGetTypedErrorsAndBadTablesAreRefused() throws Exception {
    try (EmbeddedLakestream lakestream = EmbeddedLakestream.start(data)) {
      lakestream.catalog().createNamespace(Namespace.of("app"), new HashMap<>());
      Table firstRow = create(lakestream, "first", Map.of("lakestream.merge-engine", "first-row"));
      UpsertWriter writer = firstRow.newUpsertWriter();
      writer.upsert(1L, "a", 1L);
      writer.flush();
      writer.upsert(1L, "b", 2L);
      writer.flush();
      assertThat(firstRow.newLookuper().lookup(1L).join()).containsExactly(1L, "a", 1L);
      writer.delete(1L);
      assertThatThrownBy(writer::flush)
          .isInstanceOf(RpcException.class)
          .satisfies(
              e ->
                  assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.DELETE_NOT_SUPPORTED));

      Table table = create(lakestream, "strict", Map.of());
      UpsertWriter nullKey = table.newUpsertWriter();
      nullKey.upsert(null, "a", 1L);
      assertThatThrownBy(nullKey::flush)
          .isInstanceOf(RpcException.class)
          .satisfies(
              e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.INVALID_MUTATION));
      UpsertWriter withoutKey = table.newUpsertWriter(List.of("score"), WriterOptions.defaults());
      withoutKey.upsert(1L, "a", 1L);
      assertThatThrownBy(withoutKey::flush)
          .isInstanceOf(RpcException.class)
          .hasMessageContaining("key")
          .satisfies(
              e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.INVALID_MUTATION));
      assertThat(table.newLookuper().lookup(1L).join()).isNull();
      assertThatThrownBy(table::newAppendWriter).isInstanceOf(IllegalStateException.class);

      assertThatThrownBy(
              () ->
                  lakestream
                      .catalog()
                      .createTable(
                          TableIdentifier.of("app", "nokey"),
                          new Schema(SCHEMA.columns()),
                          PartitionSpec.unpartitioned(),
                          Map.of("lakestream.kind", "primary-key")))
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("needs a primary key");
      assertThatThrownBy(
              () ->
                  create(
                      lakestream,
                      "badsum",
                      Map.of(
                          "lakestream.merge-engine",
                          "aggregation",
                          "lakestream.fields.name.aggregate-function",
                          "sum")))
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("name");
    }
  }

  @Test
  void prefixLookupsReturnTheRowsOfABucketKey() throws Exception {
    Schema composite =
        new Schema(
            List.of(
                Types.NestedField.required(1, "tenant", Types.StringType.get()),
                Types.NestedField.required(2, "id", Types.LongType.get()),
                Types.NestedField.optional(3, "v", Types.LongType.get())),
            Set.of(1, 2));
    try (EmbeddedLakestream lakestream = EmbeddedLakestream.start(data)) {
      lakestream.catalog().createNamespace(Namespace.of("app"), new HashMap<>());
      lakestream
          .catalog()
          .createTable(
              TableIdentifier.of("app", "tenants"),
              composite,
              PartitionSpec.unpartitioned(),
              Map.of(
                  "lakestream.kind", "primary-key",
                  "lakestream.buckets", "3",
                  "lakestream.bucket-key", "tenant"));
      Table table = lakestream.connection().table(TablePath.of("app.tenants"));
      Map<String, List<Object[]>> byTenant = new TreeMap<>();
      try (UpsertWriter writer = table.newUpsertWriter()) {
        for (String tenant : List.of("a", "b", "a\0", "c")) {
          for (long id = 0; id < 20; id++) {
            Object[] row = {tenant, id, id * 7};
            writer.upsert(row);
            byTenant.computeIfAbsent(tenant, ignored -> new ArrayList<>()).add(row);
          }
        }
      }
      Lookuper lookuper = table.newLookuper();
      for (Map.Entry<String, List<Object[]>> tenant : byTenant.entrySet()) {
        assertThat(lookuper.prefixLookup(tenant.getKey()).join())
            .as("tenant %s", tenant.getKey())
            .containsExactlyElementsOf(tenant.getValue());
      }
      assertThat(lookuper.prefixLookup("missing").join()).isEmpty();
      assertThat(lookuper.lookup("b", 3L).join()).containsExactly("b", 3L, 21L);
    }
  }

  @Test
  void aConnectionReadsThePrimaryKey() throws Exception {
    try (EmbeddedLakestream lakestream = EmbeddedLakestream.start(data)) {
      lakestream.catalog().createNamespace(Namespace.of("app"), new HashMap<>());
      Table table = create(lakestream, "keyed", Map.of());
      Connection connection = lakestream.connection();
      assertThat(connection.table(TablePath.of("app.keyed")).primaryKey()).containsExactly("id");
      assertThat(table.bucketKey()).containsExactly("id");
    }
  }
}
