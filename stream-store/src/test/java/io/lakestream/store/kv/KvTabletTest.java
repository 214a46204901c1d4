package io.lakestream.store.kv;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.ChangeType;
import io.lakestream.store.testing.TestingClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KvTabletTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "id", Types.LongType.get()),
              optional(2, "name", Types.StringType.get()),
              optional(3, "amount", Types.IntegerType.get())),
          Set.of(1));

  private static final KvConfig CONFIG =
      new KvConfig(1 << 20, 1 << 20, 1 << 20, Duration.ofMinutes(10), 1 << 20);

  @TempDir Path directory;
  private final TestingClock clock = new TestingClock(1_000);

  private KvTablet open(Map<String, String> properties) throws Exception {
    return KvTablet.open(
        directory, KvSchema.of(SCHEMA), MergeEngines.create(SCHEMA, properties), CONFIG, clock);
  }

  private static Object[] row(long id, String name, Integer amount) {
    return new Object[] {id, name, amount};
  }

  private static List<String> changelog(List<KvChange> changes) {
    return changes.stream().map(KvChange::toString).toList();
  }

  private static List<Object> lookup(KvTablet tablet, long id) throws Exception {
    Object[] row = tablet.lookup(new Object[] {id});
    return row == null ? null : Arrays.asList(row);
  }

  @Test
  void changelogIsInsertUpdatePairDeleteOrNothing() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      assertThat(changelog(tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 1))))))
          .containsExactly("+I[1, a, 1]");
      assertThat(changelog(tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 1))))))
          .containsExactly("-U[1, a, 1]", "+U[1, b, 1]");
      assertThat(tablet.prepare(3, List.of(Mutation.upsert(row(1, "b", 1))))).isEmpty();
      assertThat(tablet.prepare(3, List.of(Mutation.delete(row(2, null, null))))).isEmpty();
      assertThat(changelog(tablet.prepare(3, List.of(Mutation.delete(row(1, null, null))))))
          .containsExactly("-D[1, b, 1]");
      assertThat(
              changelog(
                  tablet.prepare(
                      4,
                      List.of(
                          Mutation.upsert(row(5, "x", null)),
                          Mutation.upsert(row(5, "y", null)),
                          Mutation.partialUpdate(row(5, "ignored", 7), 0, 2),
                          Mutation.delete(row(5, null, null)),
                          Mutation.delete(row(5, null, null))))))
          .containsExactly(
              "+I[5, x, null]",
              "-U[5, x, null]",
              "+U[5, y, null]",
              "-U[5, y, null]",
              "+U[5, y, 7]",
              "-D[5, y, 7]");
      assertThat(tablet.prepare(10, List.of())).isEmpty();
    }
  }

  @Test
  void changeTypesKeepTheirCodes() {
    for (ChangeType type : ChangeType.values()) {
      assertThat(ChangeType.fromCode(type.code())).isEqualTo(type);
    }
    assertThat(ChangeType.UPDATE_BEFORE.code()).isEqualTo((byte) 1);
    assertThat(ChangeType.DELETE.shortString()).isEqualTo("-D");
    assertThatThrownBy(() -> ChangeType.fromCode((byte) 4))
        .hasMessage("Unknown change type code: 4");
  }

  @Test
  void readsSeeOnlyDurableChangesAndPreparesSeeBufferedOnes() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 1))));
      assertThat(lookup(tablet, 1)).isNull();
      // The next prepare sees the buffered row: an update, not an insert.
      assertThat(changelog(tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 2))))))
          .containsExactly("-U[1, a, 1]", "+U[1, b, 2]");
      tablet.markDurable(1);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "a", 1);
      // Offset 1 (-U) durable but not offset 2 (+U): the update is not applied yet.
      tablet.markDurable(2);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "a", 1);
      assertThat(tablet.appliedOffset()).isEqualTo(2);
      tablet.markDurable(3);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "b", 2);
      tablet.markDurable(2);
      assertThat(tablet.appliedOffset()).isEqualTo(3);
      assertThatThrownBy(() -> tablet.prepare(2, List.of(Mutation.upsert(row(3, "c", 3)))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Cannot prepare changes at offset 2: offsets below 3 are already prepared or"
                  + " durable");
    }
  }

  @Test
  void abortDiscardsPreparedChangesFromItsOffset() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 1))));
      tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 1))));
      tablet.prepare(3, List.of(Mutation.upsert(row(2, "c", 1))));
      tablet.abort(1);
      assertThat(changelog(tablet.prepare(1, List.of(Mutation.upsert(row(2, "d", 1))))))
          .containsExactly("+I[2, d, 1]");
      assertThat(changelog(tablet.prepare(2, List.of(Mutation.upsert(row(1, "e", 1))))))
          .containsExactly("-U[1, a, 1]", "+U[1, e, 1]");
      tablet.markDurable(4);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "e", 1);
      assertThat(lookup(tablet, 2)).containsExactly(2L, "d", 1);
      assertThatThrownBy(() -> tablet.abort(3))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot abort changes from offset 3: the changelog is durable up to 4");
    }
  }

  @Test
  void invalidMutationsRefuseTheWholeCall() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      Mutation valid = Mutation.upsert(row(1, "a", 1));
      assertRefused(
          tablet,
          List.of(valid, Mutation.upsert(new Object[] {2L, "b"})),
          "Mutation 1 refused: Row has 2 values, the schema 3 columns");
      assertRefused(
          tablet,
          List.of(valid, Mutation.upsert(new Object[] {2L, "b", 3L})),
          "Mutation 1 refused: Column 'amount' of type int takes Integer values, got Long");
      assertRefused(
          tablet,
          List.of(valid, Mutation.upsert(row(2, null, null)), Mutation.delete(new Object[3])),
          "Mutation 2 refused: Primary-key column 'id' is null");
      assertRefused(
          tablet,
          List.of(valid, Mutation.partialUpdate(row(2, "b", 1), 1, 2)),
          "Mutation 1 refused: a partial update must write primary-key column 'id'");
      assertRefused(
          tablet,
          List.of(valid, Mutation.partialUpdate(row(2, "b", 1), 0, 3)),
          "Mutation 1 refused: a partial update names unknown column position 3; the schema has"
              + " 3 columns");
      // Nothing of the refused calls was buffered: the key is still new.
      assertThat(changelog(tablet.prepare(0, List.of(valid)))).containsExactly("+I[1, a, 1]");
    }
    assertThatThrownBy(() -> Mutation.upsert(null)).hasMessage("row is null");
  }

  private static void assertRefused(KvTablet tablet, List<Mutation> mutations, String message) {
    assertThatThrownBy(() -> tablet.prepare(0, mutations))
        .isInstanceOf(InvalidMutationException.class)
        .hasMessage(message);
  }

  @Test
  void firstRowKeepsTheFirstRowAndRefusesDeletes() throws Exception {
    try (KvTablet tablet = open(Map.of("lakestream.merge-engine", "first-row"))) {
      assertThat(
              changelog(tablet.prepare(0, List.of(Mutation.partialUpdate(row(1, "a", 9), 0, 1)))))
          .containsExactly("+I[1, a, null]");
      assertThat(tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 1))))).isEmpty();
      assertThat(tablet.prepare(1, List.of(Mutation.partialUpdate(row(1, "b", 1), 0, 2))))
          .isEmpty();
      assertThatThrownBy(
              () ->
                  tablet.prepare(
                      1,
                      List.of(
                          Mutation.upsert(row(2, "c", 1)), Mutation.delete(row(1, null, null)))))
          .isInstanceOf(DeleteNotSupportedException.class)
          .hasMessage(
              "Tables with merge engine first-row do not accept deletes: the first row of a key is"
                  + " kept");
      assertThat(changelog(tablet.prepare(1, List.of(Mutation.upsert(row(2, "c", 1))))))
          .containsExactly("+I[2, c, 1]");
    }
  }

  @Test
  void versionedKeepsTheHighestVersion() throws Exception {
    Map<String, String> properties =
        Map.of(
            "lakestream.merge-engine", "versioned",
            "lakestream.merge-engine.version-column", "amount");
    try (KvTablet tablet = open(properties)) {
      assertThat(changelog(tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 5))))))
          .containsExactly("+I[1, a, 5]");
      assertThat(tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 5))))).isEmpty();
      assertThat(tablet.prepare(1, List.of(Mutation.upsert(row(1, "b", 4))))).isEmpty();
      assertThat(
              changelog(tablet.prepare(1, List.of(Mutation.partialUpdate(row(1, "z", 6), 0, 2)))))
          .containsExactly("-U[1, a, 5]", "+U[1, a, 6]");
      assertThat(tablet.prepare(3, List.of(Mutation.delete(row(1, null, 5))))).isEmpty();
      assertThatThrownBy(() -> tablet.prepare(3, List.of(Mutation.upsert(row(1, "a", null)))))
          .isInstanceOf(InvalidMutationException.class)
          .hasMessage("An upsert of a versioned table has a null version column 'amount'");
      assertThatThrownBy(() -> tablet.prepare(3, List.of(Mutation.delete(row(1, null, null)))))
          .isInstanceOf(InvalidMutationException.class)
          .hasMessage("A delete of a versioned table has a null version column 'amount'");
      assertThatThrownBy(
              () -> tablet.prepare(3, List.of(Mutation.partialUpdate(row(1, "q", 9), 0, 1))))
          .isInstanceOf(InvalidMutationException.class)
          .hasMessage(
              "A partial update of a versioned table must write the version column 'amount'");
      assertThat(changelog(tablet.prepare(3, List.of(Mutation.delete(row(1, null, 6))))))
          .containsExactly("-D[1, a, 6]");
    }
  }

  @Test
  void lookupsReadDurableRowsInOneCall() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      tablet.prepare(
          0, List.of(Mutation.upsert(row(1, "a", 1)), Mutation.upsert(row(3, "c", null))));
      tablet.markDurable(2);
      List<Object[]> rows =
          tablet.lookupAll(List.of(new Object[] {3L}, new Object[] {2L}, new Object[] {1L}));
      assertThat(rows.get(0)).containsExactly(3L, "c", null);
      assertThat(rows.get(1)).isNull();
      assertThat(rows.get(2)).containsExactly(1L, "a", 1);
      assertThatThrownBy(() -> tablet.lookup(new Object[] {1}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column 'id' of type long takes Long values, got Integer");
      assertThatThrownBy(() -> tablet.lookup(new Object[] {1L, 2L}))
          .hasMessage("Primary key has 2 values, expected 1");
    }
  }

  @Test
  void inMemoryLookupsAnswerOnlyWhatTheRowCacheKnows() throws Exception {
    List<Object[]> keys = List.of(new Object[] {1L}, new Object[] {2L}, new Object[] {3L});
    try (KvTablet tablet = open(Map.of())) {
      tablet.prepare(
          0, List.of(Mutation.upsert(row(1, "a", 1)), Mutation.upsert(row(3, "c", null))));
      // Prepared is not durable: a complete cache knows that no key has a row yet.
      assertThat(tablet.lookupValuesInMemory(keys)).containsExactly(null, null, null);
      tablet.markDurable(2);
      List<byte[]> values = tablet.lookupValuesInMemory(keys);
      assertThat(values).hasSize(3);
      assertThat(tablet.rowCodec().decode(values.get(0))).containsExactly(1L, "a", 1);
      assertThat(values.get(1)).isNull();
      assertThat(tablet.rowCodec().decode(values.get(2))).containsExactly(3L, "c", null);
      assertThatThrownBy(() -> tablet.lookupValuesInMemory(List.<Object[]>of(new Object[] {1})))
          .isInstanceOf(IllegalArgumentException.class);
      tablet.checkpoint();
    }
    // Reopened from a checkpoint the cache is not complete: an uncached key needs RocksDB.
    KvTablet reopened = open(Map.of());
    try (reopened) {
      assertThat(reopened.lookupValuesInMemory(keys)).isNull();
      assertThat(reopened.lookupValuesInMemory(List.<Object[]>of(new Object[] {2L}))).isNull();
    }
    assertThat(reopened.lookupValuesInMemory(keys)).isNull();
  }

  @Test
  void prefixLookupFindsEveryKeyOfABucketKey() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                required(1, "tenant", Types.StringType.get()),
                required(2, "day", Types.DateType.get()),
                required(3, "seq", Types.LongType.get()),
                optional(4, "v", Types.StringType.get())),
            Set.of(1, 2, 3));
    KvSchema bySeqAndTenant =
        KvSchema.create(
            Map.of(schema.schemaId(), schema), schema.schemaId(), List.of("seq", "tenant"));
    try (KvTablet tablet =
        KvTablet.open(
            directory, bySeqAndTenant, MergeEngines.create(schema, Map.of()), CONFIG, clock)) {
      List<Mutation> mutations = new ArrayList<>();
      for (String tenant : List.of("t", "t\u0000", "tt")) {
        for (int day : List.of(-3, 0, 20000)) {
          for (long seq : List.of(-1L, 7L)) {
            mutations.add(Mutation.upsert(new Object[] {tenant, day, seq, tenant + day + seq}));
          }
        }
      }
      tablet.markDurable(tablet.prepare(0, mutations).size());
      assertThat(tablet.prefixLookup(new Object[] {7L, "t"}))
          .extracting(row -> row[3])
          .containsExactly("t-37", "t07", "t200007");
      assertThat(tablet.prefixLookup(new Object[] {-1L, "t\u0000"}))
          .extracting(row -> row[3])
          .containsExactly("t\u0000-3-1", "t\u00000-1", "t\u000020000-1");
      assertThat(tablet.prefixLookup(new Object[] {8L, "t"})).isEmpty();
      assertThatThrownBy(() -> tablet.prefixLookup(new Object[] {7L}))
          .hasMessage("Bucket key has 1 values, expected 2");
      assertThat(tablet.lookup(new Object[] {"tt", 0, 7L})).containsExactly("tt", 0, 7L, "tt07");
    }
  }

  @Test
  void snapshotScanIsConsistentToItsOffset() throws Exception {
    try (KvTablet tablet = open(Map.of())) {
      tablet.prepare(0, List.of(Mutation.upsert(row(2, "b", 1)), Mutation.upsert(row(1, "a", 1))));
      tablet.markDurable(2);
      tablet.prepare(2, List.of(Mutation.delete(row(2, null, null))));
      try (KvScan scan = tablet.snapshotScan()) {
        tablet.markDurable(3);
        assertThat(scan.offset()).isEqualTo(2);
        List<List<Object>> rows = new ArrayList<>();
        scan.forEachRemaining(row -> rows.add(Arrays.asList(row)));
        assertThat(rows).containsExactly(List.of(1L, "a", 1), List.of(2L, "b", 1));
      }
      try (KvScan scan = tablet.snapshotScan()) {
        assertThat(scan.offset()).isEqualTo(3);
        assertThat(scan.next()).containsExactly(1L, "a", 1);
        assertThat(scan.hasNext()).isFalse();
      }
    }
  }

  @Test
  void recoveryRestoresTheCheckpointAndReplaysTheRest() throws Exception {
    List<KvChange> log = new ArrayList<>();
    try (KvTablet tablet = open(Map.of())) {
      log.addAll(
          tablet.prepare(
              0, List.of(Mutation.upsert(row(1, "a", 1)), Mutation.upsert(row(2, "b", 2)))));
      tablet.markDurable(2);
      assertThat(tablet.checkpoint()).isEqualTo(2);
      log.addAll(
          tablet.prepare(
              2, List.of(Mutation.upsert(row(1, "c", 1)), Mutation.delete(row(2, null, null)))));
      tablet.markDurable(5);
      // Prepared but never durable: lost with the close, like a failed append.
      tablet.prepare(5, List.of(Mutation.upsert(row(9, "lost", 9))));
    }
    try (KvTablet tablet = open(Map.of())) {
      assertThat(tablet.appliedOffset()).isEqualTo(2);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "a", 1);
      assertThat(lookup(tablet, 2)).containsExactly(2L, "b", 2);
      for (int offset = 0; offset < log.size(); offset++) {
        KvChange change = log.get(offset);
        assertThat(tablet.replay(offset, change.type(), change.row())).isEqualTo(offset >= 2);
      }
      assertThat(tablet.appliedOffset()).isEqualTo(5);
      assertThat(lookup(tablet, 1)).containsExactly(1L, "c", 1);
      assertThat(lookup(tablet, 2)).isNull();
      assertThat(lookup(tablet, 9)).isNull();
      assertThat(changelog(tablet.prepare(5, List.of(Mutation.upsert(row(1, "d", 1))))))
          .containsExactly("-U[1, c, 1]", "+U[1, d, 1]");
      assertThatThrownBy(() -> tablet.replay(7, ChangeType.INSERT, row(3, "x", 3)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot replay the changelog while changes are prepared");
    }
  }

  @Test
  void aTornCheckpointIsIgnoredAndOnlyTheNewestTwoAreKept() throws Exception {
    Path checkpoints = directory.resolve("checkpoints");
    try (KvTablet tablet = open(Map.of())) {
      for (long id = 0; id < 4; id++) {
        tablet.prepare(id, List.of(Mutation.upsert(row(id, "v" + id, null))));
        tablet.markDurable(id + 1);
        tablet.checkpoint();
      }
      assertThat(checkpointNames(checkpoints)).containsExactlyInAnyOrder("3", "4");
      tablet.prepare(4, List.of(Mutation.upsert(row(4, "v4", null))));
      tablet.markDurable(5);
      tablet.checkpoint();
    }
    // A crash before the marker: the newest checkpoint is incomplete.
    Files.delete(checkpoints.resolve("5").resolve(KvCheckpoints.COMPLETE));
    Files.createDirectories(checkpoints.resolve("9"));
    Files.writeString(checkpoints.resolve("9").resolve("CURRENT"), "garbage");
    try (KvTablet tablet = open(Map.of())) {
      assertThat(tablet.appliedOffset()).isEqualTo(4);
      assertThat(lookup(tablet, 3)).containsExactly(3L, "v3", null);
      assertThat(lookup(tablet, 4)).isNull();
      assertThat(checkpointNames(checkpoints)).containsExactly("4");
    }
  }

  private static List<String> checkpointNames(Path checkpoints) throws Exception {
    try (Stream<Path> listing = Files.list(checkpoints)) {
      return listing.map(path -> path.getFileName().toString()).toList();
    }
  }

  @Test
  void checkpointIsDueByBytesOrByInterval() throws Exception {
    KvConfig config = new KvConfig(1 << 20, 1 << 20, 1 << 20, Duration.ofMinutes(1), 100);
    try (KvTablet tablet =
        KvTablet.open(
            directory, KvSchema.of(SCHEMA), MergeEngines.create(SCHEMA, Map.of()), config, clock)) {
      clock.advance(Duration.ofMinutes(2).toMillis());
      assertThat(tablet.shouldCheckpoint()).as("nothing written").isFalse();
      tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 1))));
      assertThat(tablet.shouldCheckpoint()).as("nothing durable").isFalse();
      tablet.markDurable(1);
      assertThat(tablet.shouldCheckpoint()).as("interval passed").isTrue();
      tablet.checkpoint();
      assertThat(tablet.shouldCheckpoint()).isFalse();
      tablet.prepare(1, List.of(Mutation.upsert(row(2, "b", 2))));
      tablet.markDurable(2);
      assertThat(tablet.shouldCheckpoint()).as("small write, interval not passed").isFalse();
      tablet.prepare(2, List.of(Mutation.upsert(row(3, "x".repeat(100), 2))));
      tablet.markDurable(3);
      assertThat(tablet.shouldCheckpoint()).as("bytes passed").isTrue();
    }
  }

  @Test
  void rowsWrittenUnderAnOlderSchemaReadBackWithNullsForAddedColumns() throws Exception {
    Schema old =
        new Schema(
            0,
            List.of(
                required(1, "id", Types.LongType.get()),
                optional(2, "name", Types.StringType.get()),
                optional(3, "amount", Types.IntegerType.get())),
            Set.of(1));
    Schema current =
        new Schema(
            1,
            List.of(
                required(1, "id", Types.LongType.get()),
                optional(3, "amount", Types.LongType.get()),
                optional(4, "score", Types.DoubleType.get())),
            Set.of(1));
    try (KvTablet tablet =
        KvTablet.open(
            directory, KvSchema.of(old), MergeEngines.create(old, Map.of()), CONFIG, clock)) {
      tablet.prepare(0, List.of(Mutation.upsert(row(1, "a", 7))));
      tablet.markDurable(1);
      tablet.checkpoint();
    }
    KvSchema evolved = KvSchema.create(Map.of(0, old, 1, current), 1, List.of());
    try (KvTablet tablet =
        KvTablet.open(directory, evolved, MergeEngines.create(current, Map.of()), CONFIG, clock)) {
      assertThat(tablet.lookup(new Object[] {1L})).containsExactly(1L, 7L, null);
      assertThat(
              changelog(
                  tablet.prepare(
                      1, List.of(Mutation.partialUpdate(new Object[] {1L, null, 2.5}, 0, 2)))))
          .containsExactly("-U[1, 7, null]", "+U[1, 7, 2.5]");
      tablet.markDurable(3);
      assertThat(tablet.lookup(new Object[] {1L})).containsExactly(1L, 7L, 2.5);
    }
  }

  @Test
  void closeReleasesTheTabletAndItsScans() throws Exception {
    KvTablet tablet = open(Map.of());
    assertThatThrownBy(() -> open(Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("A KV tablet is already open in ");
    KvScan scan = tablet.snapshotScan();
    tablet.close();
    tablet.close();
    assertThatThrownBy(scan::hasNext).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tablet.lookup(new Object[] {1L}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("KV tablet is closed");
    assertThatThrownBy(() -> tablet.prepare(0, List.of()))
        .isInstanceOf(IllegalStateException.class);
    open(Map.of()).close();
  }
}
