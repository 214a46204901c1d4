package io.lakestream.store.kv;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.ChangeType;
import io.lakestream.store.testing.TestingClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random write sequences per merge engine against an in-memory model written here, independently of
 * the production merge code: after every step the changelog folds to the model's state, and
 * lookups, prefix lookups and snapshot scans of the durable state equal the model's durable state.
 */
class KvTabletPropertyTest {
  /** Raise with {@code -Dkv.property.seeds=5000} for a deeper run. */
  private static final int SEEDS = Integer.getInteger("kv.property.seeds", 200);

  private static final int MUTATIONS_PER_SEED = 300;
  private static final int SEEDS_PER_TABLET = 20;

  /**
   * Row cache budgets the tablets take in turn: none; a few rows, so that rows are evicted all the
   * time and the write path and lookups read RocksDB for them; and room for every row, so that a
   * tablet that starts empty never reads RocksDB for a row before a change.
   */
  private static final List<Long> ROW_CACHE_SIZES = List.of(0L, 2048L, 1L << 20);

  static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "region", Types.StringType.get()),
              required(2, "id", Types.IntegerType.get()),
              optional(3, "ver", Types.LongType.get()),
              optional(4, "amount", Types.LongType.get()),
              optional(5, "name", Types.StringType.get()),
              optional(6, "flag", Types.BooleanType.get()),
              optional(7, "score", Types.DoubleType.get()),
              optional(8, "note", Types.StringType.get()),
              optional(9, "cnt", Types.LongType.get())),
          Set.of(1, 2));

  private static final int REGION = 0;
  private static final int ID = 1;
  private static final int VER = 2;
  private static final int AMOUNT = 3;
  private static final int NAME = 4;
  private static final int FLAG = 5;
  private static final int SCORE = 6;
  private static final int NOTE = 7;
  private static final int CNT = 8;
  private static final int COLUMNS = 9;

  // "a\0" checks that a prefix lookup of "a" does not see keys of "a\0".
  private static final List<String> REGIONS = List.of("a", "b", "a\u0000");
  private static final List<Integer> IDS = List.of(-1, 0, 1, 2);

  @TempDir Path directory;

  /** Whether whole-row batches go through {@link KvTablet#prepareEncoded}. */
  private boolean encoded;

  /** A model refusal: the whole batch that carries the mutation must be refused. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  /** The model's view of one mutation; {@code columns} null for a whole-row write. */
  private record Op(boolean delete, Object[] row, Set<Integer> columns, boolean malformed) {}

  /** A merge engine as the model sees it: the key's new row (null: none) or {@link Refused}. */
  private interface Model {
    Object[] apply(Object[] current, Op op);
  }

  private static Object[] written(Object[] current, Op op) {
    Object[] result = current == null ? new Object[COLUMNS] : current.clone();
    for (int column = 0; column < COLUMNS; column++) {
      if (op.columns() == null || op.columns().contains(column)) {
        result[column] = op.row()[column];
      }
    }
    return result;
  }

  private static Object[] lastRow(Object[] current, Op op) {
    return op.delete() ? null : written(current, op);
  }

  private static Object[] firstRow(Object[] current, Op op) {
    if (op.delete()) {
      throw new Refused();
    }
    return current != null ? current : written(null, op);
  }

  private static Object[] versioned(Object[] current, Op op) {
    Long version = (Long) op.row()[VER];
    if (version == null || !op.delete() && op.columns() != null && !op.columns().contains(VER)) {
      throw new Refused();
    }
    if (op.delete()) {
      return current == null || version >= (Long) current[VER] ? null : current;
    }
    return current != null && version <= (Long) current[VER] ? current : written(current, op);
  }

  private static Object[] aggregation(Object[] current, Op op) {
    if (op.delete()) {
      return null;
    }
    Object[] in = op.row();
    Object[] result = current == null ? new Object[COLUMNS] : current.clone();
    result[REGION] = in[REGION];
    result[ID] = in[ID];
    for (int column = VER; column < COLUMNS; column++) {
      if (op.columns() != null && !op.columns().contains(column)) {
        continue;
      }
      Object old = current == null ? null : current[column];
      Object value = in[column];
      result[column] =
          switch (column) {
            case VER -> value;
            case AMOUNT -> value == null ? old : old == null ? value : (Long) old + (Long) value;
            case NAME -> value == null ? old : old == null ? value : old + ";" + value;
            case FLAG ->
                value == null ? old : old == null ? value : (Boolean) old | (Boolean) value;
            case SCORE ->
                value == null ? old : old == null ? value : Math.max((Double) old, (Double) value);
            case NOTE -> value == null ? old : value;
            case CNT -> (old == null ? 0L : (Long) old) + (value == null ? 0L : 1L);
            default -> throw new IllegalStateException();
          };
    }
    return result;
  }

  private static Map<String, String> properties(String engine) {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.merge-engine", engine);
    switch (engine) {
      case "versioned" -> properties.put("lakestream.merge-engine.version-column", "ver");
      case "aggregation" -> {
        properties.put("lakestream.fields.ver.aggregate-function", "last_value");
        properties.put("lakestream.fields.amount.aggregate-function", "sum");
        properties.put("lakestream.fields.name.aggregate-function", "listagg");
        properties.put("lakestream.fields.name.listagg-delimiter", ";");
        properties.put("lakestream.fields.flag.aggregate-function", "bool_or");
        properties.put("lakestream.fields.score.aggregate-function", "max");
        properties.put("lakestream.fields.cnt.aggregate-function", "count");
      }
      default -> {}
    }
    return properties;
  }

  private static Model model(String engine) {
    return switch (engine) {
      case "last-row" -> KvTabletPropertyTest::lastRow;
      case "first-row" -> KvTabletPropertyTest::firstRow;
      case "versioned" -> KvTabletPropertyTest::versioned;
      default -> KvTabletPropertyTest::aggregation;
    };
  }

  /**
   * {@code last-row-encoded} is the last-row engine with every batch of whole-row writes going
   * through {@link KvTablet#prepareEncoded}, as the server's direct path sends them.
   */
  @ParameterizedTest
  @ValueSource(strings = {"last-row", "last-row-encoded", "first-row", "versioned", "aggregation"})
  void randomWritesMatchTheModel(String variant) throws Exception {
    String engine = variant.equals("last-row-encoded") ? "last-row" : variant;
    encoded = variant.equals("last-row-encoded");
    KvSchema schema =
        KvSchema.create(Map.of(SCHEMA.schemaId(), SCHEMA), SCHEMA.schemaId(), List.of("region"));
    MergeEngine mergeEngine = MergeEngines.create(SCHEMA, properties(engine));
    for (int first = 0; first < SEEDS; first += SEEDS_PER_TABLET) {
      Block block =
          new Block(
              directory.resolve(engine + "-" + first),
              schema,
              mergeEngine,
              ROW_CACHE_SIZES.get(first / SEEDS_PER_TABLET % ROW_CACHE_SIZES.size()));
      try {
        for (int seed = first; seed < first + SEEDS_PER_TABLET; seed++) {
          try {
            runSeed(engine, block, seed);
          } catch (AssertionError | Exception e) {
            throw new AssertionError(
                "Engine " + engine + " failed with seed " + seed + ": " + e.getMessage(), e);
          }
        }
        try {
          block.reopenAndReplay();
        } catch (AssertionError | Exception e) {
          throw new AssertionError(
              "Engine " + engine + " failed recovering seeds from " + first + ": " + e.getMessage(),
              e);
        }
      } finally {
        block.tablet.close();
      }
    }
  }

  /** A prepared batch not yet durable, with the model state and changelog fold after it. */
  private record Batch(
      long base,
      long end,
      List<KvChange> changes,
      Map<List<Object>, List<Object>> modelAfter,
      Map<List<Object>, List<Object>> foldAfter) {}

  private record LogRecord(long offset, ChangeType type, Object[] row) {}

  /**
   * One tablet shared by consecutive seeds (RocksDB takes tens of milliseconds to open): each seed
   * writes keys of its own regions, so its model covers exactly the rows of its regions, and the
   * other seeds' rows must stay untouched.
   */
  private static final class Block {
    final Path directory;
    final KvSchema schema;
    final MergeEngine engine;
    final KvConfig config;
    final TestingClock clock = new TestingClock(0);
    final List<LogRecord> log = new ArrayList<>();
    final Map<Integer, Map<List<Object>, List<Object>>> finalModels = new LinkedHashMap<>();
    KvTablet tablet;
    long next;
    long durableEnd;

    Block(Path directory, KvSchema schema, MergeEngine engine, long rowCacheBytes)
        throws Exception {
      this.directory = directory;
      this.schema = schema;
      this.engine = engine;
      this.config = new KvConfig(1 << 20, rowCacheBytes, 1 << 20, Duration.ofMinutes(10), 1 << 30);
      this.tablet = KvTablet.open(directory, schema, engine, config, clock);
    }

    void makeDurable(List<Batch> batches) throws Exception {
      for (Batch batch : batches) {
        for (int i = 0; i < batch.changes().size(); i++) {
          KvChange change = batch.changes().get(i);
          log.add(new LogRecord(batch.base() + i, change.type(), change.row()));
        }
      }
      durableEnd = batches.getLast().end();
      tablet.markDurable(durableEnd);
    }

    /**
     * Closes without a checkpoint, reopens and replays the whole log: every seed's state is back.
     */
    void reopenAndReplay() throws Exception {
      tablet.close();
      tablet = KvTablet.open(directory, schema, engine, config, clock);
      assertThat(tablet.appliedOffset()).isLessThanOrEqualTo(durableEnd);
      for (LogRecord record : log) {
        boolean due = record.offset() >= tablet.appliedOffset();
        assertThat(tablet.replay(record.offset(), record.type(), record.row())).isEqualTo(due);
      }
      long replayedTo = tablet.appliedOffset();
      for (Map.Entry<Integer, Map<List<Object>, List<Object>>> seed : finalModels.entrySet()) {
        verify(tablet, regions(seed.getKey()), seed.getValue(), replayedTo);
      }
    }
  }

  private static List<String> regions(int seed) {
    return REGIONS.stream().map(region -> seed + ":" + region).toList();
  }

  private void runSeed(String engine, Block block, int seed) throws Exception {
    Random random = new Random(seed);
    Model model = model(engine);
    List<String> regions = regions(seed);
    double deleteChance = engine.equals("first-row") ? 0.01 : 0.15;
    Map<List<Object>, List<Object>> durableModel = new HashMap<>();
    List<Batch> pending = new ArrayList<>();
    int issued = 0;
    // Checkpoints take a flush and several forces: one per tablet, mid-seed with changes pending.
    boolean checkpointDue = seed % SEEDS_PER_TABLET == SEEDS_PER_TABLET / 2;
    while (issued < MUTATIONS_PER_SEED) {
      if (checkpointDue && issued >= MUTATIONS_PER_SEED / 2) {
        assertThat(block.tablet.checkpoint()).isEqualTo(block.durableEnd);
        checkpointDue = false;
      }
      double action = random.nextDouble();
      Map<List<Object>, List<Object>> preparedModel =
          pending.isEmpty() ? durableModel : pending.getLast().modelAfter();
      Map<List<Object>, List<Object>> preparedFold =
          pending.isEmpty() ? durableModel : pending.getLast().foldAfter();
      if (action < 0.70) {
        int size = 1 + random.nextInt(6);
        issued += size;
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          ops.add(randomOp(random, regions, deleteChance));
        }
        Map<List<Object>, List<Object>> expected = new HashMap<>(preparedModel);
        boolean refused = false;
        try {
          for (Op op : ops) {
            if (op.malformed()) {
              throw new Refused();
            }
            List<Object> key = List.of(op.row()[REGION], op.row()[ID]);
            List<Object> current = expected.get(key);
            Object[] after = model.apply(current == null ? null : current.toArray(), op);
            if (after == null) {
              expected.remove(key);
            } else {
              expected.put(key, Arrays.asList(after));
            }
          }
        } catch (Refused e) {
          refused = true;
        }
        List<Mutation> mutations = ops.stream().map(KvTabletPropertyTest::mutation).toList();
        long base = block.next;
        if (refused) {
          assertThatThrownBy(() -> block.tablet.prepare(base, mutations))
              .isInstanceOf(InvalidMutationException.class);
          continue;
        }
        List<KvChange> changes =
            encoded && ops.stream().allMatch(op -> op.columns() == null)
                ? prepareEncoded(block, base, mutations)
                : block.tablet.prepare(base, mutations);
        Map<List<Object>, List<Object>> fold = fold(preparedFold, changes);
        assertThat(fold).as("changelog fold after prepare at %d", base).isEqualTo(expected);
        pending.add(new Batch(base, base + changes.size(), changes, expected, fold));
        block.next = base + changes.size();
      } else if (action < 0.85 && !pending.isEmpty()) {
        List<Batch> durable = pending.subList(0, 1 + random.nextInt(pending.size()));
        durableModel = durable.getLast().modelAfter();
        block.makeDurable(durable);
        durable.clear();
        if (random.nextDouble() < 0.2) {
          verify(block.tablet, regions, durableModel, block.durableEnd);
        }
      } else if (action < 0.92 && !pending.isEmpty()) {
        int from = random.nextInt(pending.size());
        block.next = pending.get(from).base();
        pending.subList(from, pending.size()).clear();
        block.tablet.abort(block.next);
      } else {
        verify(block.tablet, regions, durableModel, block.durableEnd);
      }
    }
    if (!pending.isEmpty()) {
      durableModel = pending.getLast().modelAfter();
      block.makeDurable(pending);
    }
    verify(block.tablet, regions, durableModel, block.durableEnd);
    block.finalModels.put(seed, durableModel);
  }

  private static Op randomOp(Random random, List<String> regions, double deleteChance) {
    Object[] row = new Object[COLUMNS];
    row[REGION] = regions.get(random.nextInt(regions.size()));
    row[ID] = IDS.get(random.nextInt(IDS.size()));
    row[VER] = random.nextDouble() < 0.03 ? null : (long) random.nextInt(6);
    row[AMOUNT] = random.nextDouble() < 0.2 ? null : (long) random.nextInt(10);
    row[NAME] = pick(random, "x", "y", "z", null);
    row[FLAG] = pick(random, true, false, null);
    row[SCORE] = pick(random, 1.5, 2.0, -3.25, null);
    row[NOTE] = pick(random, "n1", "n2", null);
    row[CNT] = random.nextDouble() < 0.3 ? null : (long) random.nextInt(100);
    double kind = random.nextDouble();
    boolean malformed = false;
    Set<Integer> columns = null;
    if (kind < 0.01) {
      row[AMOUNT] = "not a long";
      malformed = true;
    } else if (kind < 0.02) {
      row[REGION] = null;
      malformed = true;
    }
    boolean delete = random.nextDouble() < deleteChance;
    if (!delete && random.nextDouble() < 0.3) {
      columns = new TreeSet<>(List.of(REGION, ID));
      for (int column = VER; column < COLUMNS; column++) {
        if (random.nextBoolean()) {
          columns.add(column);
        }
      }
      double odd = random.nextDouble();
      if (odd < 0.02) {
        columns.remove(ID);
        malformed = true;
      } else if (odd < 0.04) {
        columns.add(COLUMNS);
        malformed = true;
      }
    }
    return new Op(delete, row, columns, malformed);
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  /** Whole-row writes encoded as the server's direct path encodes them. */
  private static List<KvChange> prepareEncoded(Block block, long base, List<Mutation> mutations)
      throws Exception {
    KvSchema schema = block.tablet.schema();
    List<byte[]> keys = new ArrayList<>();
    byte[][] values = new byte[mutations.size()][];
    for (int i = 0; i < mutations.size(); i++) {
      Object[] row = schema.canonicalRow(mutations.get(i).row());
      keys.add(block.tablet.keyCodec().encodeRow(row));
      if (mutations.get(i).kind() == Mutation.Kind.UPSERT) {
        values[i] = block.tablet.rowCodec().encode(row);
      }
    }
    return block.tablet.prepareEncoded(base, keys, values);
  }

  private static Mutation mutation(Op op) {
    if (op.delete()) {
      return Mutation.delete(op.row().clone());
    }
    if (op.columns() == null) {
      return Mutation.upsert(op.row().clone());
    }
    return Mutation.partialUpdate(
        op.row().clone(), op.columns().stream().mapToInt(Integer::intValue).toArray());
  }

  /** Folds a changelog onto a state, checking that each record is consistent with it. */
  private static Map<List<Object>, List<Object>> fold(
      Map<List<Object>, List<Object>> start, List<KvChange> changes) {
    Map<List<Object>, List<Object>> state = new HashMap<>(start);
    for (int i = 0; i < changes.size(); i++) {
      KvChange change = changes.get(i);
      List<Object> row = Arrays.asList(change.row());
      List<Object> key = List.of(row.get(REGION), row.get(ID));
      switch (change.type()) {
        case INSERT -> {
          assertThat(state).as("+I of a present key %s", key).doesNotContainKey(key);
          state.put(key, row);
        }
        case UPDATE_BEFORE -> {
          assertThat(state.get(key)).as("-U of %s", key).isEqualTo(row);
          assertThat(i + 1).as("-U is last").isLessThan(changes.size());
          KvChange after = changes.get(i + 1);
          assertThat(after.type()).isEqualTo(ChangeType.UPDATE_AFTER);
          assertThat(Arrays.asList(after.row())).as("-U/+U of an unchanged row").isNotEqualTo(row);
        }
        case UPDATE_AFTER -> {
          assertThat(changes.get(i - 1).type()).isEqualTo(ChangeType.UPDATE_BEFORE);
          assertThat(List.of(changes.get(i - 1).row()[REGION], changes.get(i - 1).row()[ID]))
              .isEqualTo(key);
          state.put(key, row);
        }
        case DELETE -> {
          assertThat(state.get(key)).as("-D of %s", key).isEqualTo(row);
          state.remove(key);
        }
      }
    }
    return state;
  }

  /** Checks the durable rows of some regions through every read path. */
  private static void verify(
      KvTablet tablet,
      List<String> regions,
      Map<List<Object>, List<Object>> expected,
      long expectedOffset)
      throws Exception {
    List<Object[]> keys = new ArrayList<>();
    for (String region : regions) {
      for (int id : IDS) {
        keys.add(new Object[] {region, id});
      }
    }
    List<Object[]> all = tablet.lookupAll(keys);
    for (int i = 0; i < keys.size(); i++) {
      List<Object> key = Arrays.asList(keys.get(i));
      Object[] looked = tablet.lookup(keys.get(i));
      assertThat(looked == null ? null : Arrays.asList(looked))
          .as("lookup %s", key)
          .isEqualTo(expected.get(key));
      assertThat(all.get(i) == null ? null : Arrays.asList(all.get(i)))
          .as("lookupAll %s", key)
          .isEqualTo(expected.get(key));
    }
    for (String region : regions) {
      List<List<Object>> rows =
          tablet.prefixLookup(new Object[] {region}).stream().map(Arrays::asList).toList();
      List<List<Object>> expectedRows =
          expected.entrySet().stream()
              .filter(entry -> entry.getKey().get(0).equals(region))
              .sorted(Comparator.comparing(entry -> (Integer) entry.getKey().get(1)))
              .map(Map.Entry::getValue)
              .toList();
      assertThat(rows).as("prefix lookup %s", region).isEqualTo(expectedRows);
    }
    Map<List<Object>, List<Object>> scanned = new LinkedHashMap<>();
    try (KvScan scan = tablet.snapshotScan()) {
      assertThat(scan.offset()).isEqualTo(expectedOffset);
      while (scan.hasNext()) {
        List<Object> row = Arrays.asList(scan.next());
        if (!regions.contains((String) row.get(REGION))) {
          continue;
        }
        scanned.put(List.of(row.get(REGION), row.get(ID)), row);
      }
    }
    assertThat(scanned).as("snapshot scan").isEqualTo(expected);
  }
}
