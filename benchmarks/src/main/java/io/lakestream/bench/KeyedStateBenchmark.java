package io.lakestream.bench;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.store.kv.KvConfig;
import io.lakestream.tiering.TieringConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Workload W2 on a primary-key table of one bucket, through the packaged server and the Java
 * client.
 *
 * <p>Each iteration starts {@code bin/lakestream server} on an empty data directory, creates the W2
 * table {@code bench.w2} through the REST catalog ({@code lakestream.kind=primary-key}, one bucket,
 * so that its state is one RocksDB instance like the baseline's; tiering put off for the length of
 * the run, see {@link #TIERING_INTERVAL}), and:
 *
 * <ul>
 *   <li>warms the new server up as the benchmark JVM is warm for the baseline: upserts W2 rows with
 *       keys of the same key space into a second table {@code bench.w2_warmup}, then drops it (its
 *       state and log go, and with them its RocksDB work), so that the write path is compiled for
 *       what is timed: a profile of keys that are mostly new (row-cache growth, inserts) compiles
 *       differently from one of a few keys changed again and again, and a warm-up of the latter
 *       left the compilers using 6% of the machine while the upserts were timed;
 *   <li>upserts W2 rows with keys uniform in the key space from one client (8192-row batches, 100
 *       ms linger, default ZSTD and fsync), timing first upsert to {@code flush()} return.
 *       Baseline: {@link RawRocksDb} puts of the same rows in 8192-row write batches (and, shown
 *       beside it, the same puts into a RocksDB with 16 MiB memtables instead of the tablets' 64);
 *   <li>looks up random keys with one lookup in flight and with 16 (16 threads, each waiting for
 *       its lookup), after a warm-up pass of a tenth of them, checking each answer against the keys
 *       written. Baseline: {@link RawRocksDb} gets of the same keys the same way;
 *   <li>measures changelog freshness: a thread polls a scanner from the log end while single rows
 *       are upserted and flushed one at a time; the figure is the time from {@code flush()} return
 *       to the row's {@code +U}/{@code +I} arrival. Baseline: the upsert-to-ack time;
 *   <li>waits (at most {@link #CHECKPOINT_WAIT}) for the server's own checkpoint when enough was
 *       written for one to be due ({@link KvConfig#checkpointBytes()}), measures the disk bytes per
 *       live key (the server's {@code kv} and {@code streams} directories, hard links counted once;
 *       baseline: the flushed raw RocksDB directory), then stops the server and restarts it twice:
 *       with its checkpoints, then with them deleted so the whole changelog is replayed. Restart
 *       time is process start to the first lookup answered (the state opens on first use).
 * </ul>
 */
final class KeyedStateBenchmark implements Benchmark {
  private static final int FULL_UPSERTS = 2_000_000;
  private static final int QUICK_UPSERTS = 10_000;
  private static final int FULL_KEY_SPACE = 1_000_000;
  private static final int QUICK_KEY_SPACE = 5_000;
  private static final int FULL_WARMUP_UPSERTS = 1_000_000;
  private static final int QUICK_WARMUP_UPSERTS = 1_000;
  private static final int FULL_LOOKUPS = 200_000;
  private static final int QUICK_LOOKUPS = 1_000;
  private static final int FULL_FRESHNESS_SAMPLES = 200;
  private static final int QUICK_FRESHNESS_SAMPLES = 20;
  private static final int BATCH_ROWS = 8192;

  /**
   * Memtables of the second raw baseline: the size KV tablets used before 64 MiB. Raw puts in
   * arrival order are faster into the smaller skip list, while the tablets, which insert each batch
   * in key order and pay for compaction on the same two cores, are slower with it; the figure shows
   * how much of the ratio to the baseline comes from the baseline's options.
   */
  private static final long SMALL_MEMTABLE_BYTES = 16L << 20;

  private static final int MANY_IN_FLIGHT = 16;
  private static final long UPSERT_SEED = WideEvents.SEED + 1;
  private static final long LOOKUP_SEED = WideEvents.SEED + 2;
  private static final long FRESHNESS_SEED = WideEvents.SEED + 3;
  private static final long WARMUP_SEED = WideEvents.SEED + 4;
  private static final String TABLE = "w2";
  private static final String WARMUP_TABLE = "w2_warmup";

  /**
   * The tables' tiering interval: longer than an iteration, so that no tiering round (the tiering
   * benchmark's subject; by default one every 30 s) runs beside the keyed state being measured, as
   * none runs beside the baseline.
   */
  private static final String TIERING_INTERVAL = "1h";

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration FIRST_LOOKUP_DEADLINE = Duration.ofMinutes(10);
  private static final Duration CHECKPOINT_WAIT = Duration.ofSeconds(25);
  private static final Duration CHECKPOINT_POLL_INTERVAL = Duration.ofMillis(100);
  // A bulk producer fills its batches rather than sending them every 2 ms.
  private static final Duration THROUGHPUT_LINGER = Duration.ofMillis(100);

  private static final double UPSERT_RATIO_TARGET = 0.5;
  private static final double UPSERTS_PER_SECOND_TARGET = 150_000;
  private static final double LOOKUP_P99_MICROS_TARGET = 1_000;
  private static final double LOOKUPS_PER_SECOND_TARGET = 50_000;
  private static final double FRESHNESS_P99_TARGET_MS = 10;

  @Override
  public String name() {
    return "keyed-state";
  }

  @Override
  public String workload() {
    return String.format(
        Locale.ROOT,
        "W2 keyed state, %d upserts of keys uniform in [0, %d) then %d random point lookups at 1"
            + " and at %d in flight (quick mode %d upserts, keys in [0, %d), %d lookups);"
            + " primary-key table with 1 bucket, one client, 8192-row batches (100 ms linger),"
            + " fsync on, after %d warm-up upserts (quick mode %d) of the same key space into a"
            + " table dropped before the measurement;"
            + " %d freshness samples (quick mode %d); restart with and without checkpoint",
        FULL_UPSERTS,
        FULL_KEY_SPACE,
        FULL_LOOKUPS,
        MANY_IN_FLIGHT,
        QUICK_UPSERTS,
        QUICK_KEY_SPACE,
        QUICK_LOOKUPS,
        FULL_WARMUP_UPSERTS,
        QUICK_WARMUP_UPSERTS,
        FULL_FRESHNESS_SAMPLES,
        QUICK_FRESHNESS_SAMPLES);
  }

  /** Sizes of one run. */
  private record Size(
      int upserts, int keySpace, int lookups, int freshnessSamples, int warmupUpserts) {}

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    List<Figure> figures = new java.util.ArrayList<>(ownFigures(context));
    // Issue 37: Kafka and Fluss beside Lakestream's ordinary client, after our own figures.
    figures.addAll(PeerRun.forBenchmark(context, PeerRun.Suite.W2));
    return figures;
  }

  private List<Figure> ownFigures(BenchmarkContext context) throws Exception {
    Size size =
        context.mode() == RunMode.QUICK
            ? new Size(
                QUICK_UPSERTS,
                QUICK_KEY_SPACE,
                QUICK_LOOKUPS,
                QUICK_FRESHNESS_SAMPLES,
                QUICK_WARMUP_UPSERTS)
            : new Size(
                FULL_UPSERTS,
                FULL_KEY_SPACE,
                FULL_LOOKUPS,
                FULL_FRESHNESS_SAMPLES,
                FULL_WARMUP_UPSERTS);
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    Object[][] pool = WideEvents.rowPool();
    List<Sample> samples = context.iterate(() -> measure(context, launcher, pool, size));
    long checkpointed = samples.stream().filter(s -> s.checkpointed).count();
    String restartBaseline =
        String.format(
            Locale.ROOT,
            "restart without checkpoint, full changelog replay (a checkpoint existed in %d of %d"
                + " iterations)",
            checkpointed,
            samples.size());
    return List.of(
        Figure.paired(
            "upserts_per_s",
            samples,
            s -> s.upsertsPerSecond,
            "upserts/s",
            "raw RocksDB JNI puts of the same rows, same options, 8192-row write batches",
            s -> s.rawPutsPerSecond,
            Target.atLeast(UPSERTS_PER_SECOND_TARGET)),
        // The same figure again, judged against its second target, the ratio to the baseline.
        Figure.paired(
            "upserts_per_s_vs_raw",
            samples,
            s -> s.upsertsPerSecond,
            "upserts/s",
            "raw RocksDB JNI puts (as above)",
            s -> s.rawPutsPerSecond,
            Target.ratioAtLeast(UPSERT_RATIO_TARGET)),
        Figure.pairedWithoutTarget(
            "upserts_per_s_vs_raw_16mib_memtables",
            samples,
            s -> s.upsertsPerSecond,
            "upserts/s",
            "raw RocksDB JNI puts as above but with 16 MiB memtables (not the tablets' options)",
            s -> s.rawSmallMemtablePutsPerSecond),
        Figure.pairedWithoutTarget(
            "lookups_per_s_1_in_flight",
            samples,
            s -> s.single.perSecond(),
            "lookups/s",
            "raw RocksDB JNI gets of the same keys, 1 thread",
            s -> s.rawSingle.perSecond()),
        Figure.withoutTarget(
            "lookup_us_p50_1_in_flight",
            Median.of(samples, s -> s.single.p50Micros()),
            "us",
            "raw RocksDB get p50, 1 thread",
            positive(Median.of(samples, s -> s.rawSingle.p50Micros()))),
        Figure.of(
            "lookup_us_p99_1_in_flight",
            Median.of(samples, s -> s.single.p99Micros()),
            "us",
            "raw RocksDB get p99, 1 thread",
            positive(Median.of(samples, s -> s.rawSingle.p99Micros())),
            Target.below(LOOKUP_P99_MICROS_TARGET)),
        Figure.paired(
            "lookups_per_s_16_in_flight",
            samples,
            s -> s.many.perSecond(),
            "lookups/s",
            "raw RocksDB JNI gets of the same keys, 16 threads",
            s -> s.rawMany.perSecond(),
            Target.atLeast(LOOKUPS_PER_SECOND_TARGET)),
        Figure.withoutTarget(
            "lookup_us_p50_16_in_flight",
            Median.of(samples, s -> s.many.p50Micros()),
            "us",
            "raw RocksDB get p50, 16 threads",
            positive(Median.of(samples, s -> s.rawMany.p50Micros()))),
        Figure.withoutTarget(
            "lookup_us_p99_16_in_flight",
            Median.of(samples, s -> s.many.p99Micros()),
            "us",
            "raw RocksDB get p99, 16 threads",
            positive(Median.of(samples, s -> s.rawMany.p99Micros()))),
        Freshness.p50Figure(samples, s -> s.freshness, "upsert"),
        Freshness.p99Figure(samples, s -> s.freshness, "upsert", FRESHNESS_P99_TARGET_MS),
        Freshness.maxFigure(samples, s -> s.freshness, "upsert"),
        Figure.pairedWithoutTarget(
            "restart_ms_with_checkpoint",
            samples,
            s -> s.restartWithCheckpoint.firstLookupMillis(),
            "ms",
            restartBaseline,
            s -> s.restartWithoutCheckpoint.firstLookupMillis()),
        Figure.pairedWithoutTarget(
            "restart_ms_without_checkpoint",
            samples,
            s -> s.restartWithoutCheckpoint.firstLookupMillis(),
            "ms",
            "same restart's process start to GET /ready answering 200",
            s -> s.restartWithoutCheckpoint.readyMillis()),
        Figure.pairedWithoutTarget(
            "disk_bytes_per_live_key",
            samples,
            s -> s.diskBytesPerLiveKey,
            "bytes",
            "raw RocksDB directory after flush, per live key",
            s -> s.rawDiskBytesPerLiveKey));
  }

  private static double positive(double value) {
    return Math.max(value, 0.001);
  }

  /** One iteration's measurements. */
  private static final class Sample {
    double upsertsPerSecond;
    double rawPutsPerSecond;
    double rawSmallMemtablePutsPerSecond;
    PointLookups.Result single;
    PointLookups.Result many;
    PointLookups.Result rawSingle;
    PointLookups.Result rawMany;
    Freshness freshness;
    double diskBytesPerLiveKey;
    double rawDiskBytesPerLiveKey;
    boolean checkpointed;
    Restart restartWithCheckpoint;
    Restart restartWithoutCheckpoint;
  }

  /** Milliseconds from a restarted server's process start to readiness and to a first lookup. */
  private record Restart(double readyMillis, double firstLookupMillis) {}

  /** A running server and its ports. */
  private static Sample measure(BenchmarkContext context, Path launcher, Object[][] pool, Size size)
      throws Exception {
    Sample sample = new Sample();
    long[] upsertKeys =
        new SplittableRandom(UPSERT_SEED).longs(size.upserts, 0, size.keySpace).toArray();
    long[] lookupKeys =
        new SplittableRandom(LOOKUP_SEED).longs(size.lookups, 0, size.keySpace).toArray();
    BitSet live = new BitSet(size.keySpace);
    for (long key : upsertKeys) {
      live.set((int) key);
    }
    int liveKeys = live.cardinality();
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-kv-");
        HttpClient http =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(REQUEST_TIMEOUT)
                .build()) {
      Path work = directory.path();
      Path data = work.resolve("data");
      long rawBytesWritten;
      try (RawRocksDb raw = RawRocksDb.open(work.resolve("raw-rocksdb"))) {
        long start = System.nanoTime();
        rawBytesWritten = rawPuts(raw, pool, upsertKeys);
        sample.rawPutsPerSecond = size.upserts / ((System.nanoTime() - start) / 1e9);
        raw.flush();
        sample.rawDiskBytesPerLiveKey = (double) diskBytes(raw.directory()) / liveKeys;
        PointLookups.Lookup rawGet = key -> raw.get(key) >= 0;
        PointLookups.run(Arrays.copyOf(lookupKeys, lookupKeys.length / 10), 1, rawGet);
        sample.rawSingle = PointLookups.run(lookupKeys, 1, rawGet);
        sample.rawMany = PointLookups.run(lookupKeys, MANY_IN_FLIGHT, rawGet);
      }
      try (RawRocksDb raw =
          RawRocksDb.open(work.resolve("raw-rocksdb-small-memtables"), SMALL_MEMTABLE_BYTES)) {
        long start = System.nanoTime();
        rawPuts(raw, pool, upsertKeys);
        sample.rawSmallMemtablePutsPerSecond = size.upserts / ((System.nanoTime() - start) / 1e9);
      }
      context
          .progress()
          .printf(
              "    raw RocksDB: %.0f puts/s (%.0f with 16 MiB memtables), %.0f gets/s (1 thread),"
                  + " %.0f gets/s (16 threads)%n",
              sample.rawPutsPerSecond,
              sample.rawSmallMemtablePutsPerSecond,
              sample.rawSingle.perSecond(),
              sample.rawMany.perSecond());

      LaunchedServer server = start(launcher, work, data, http);
      try {
        createTable(server.base());
        try (Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null)) {
          long[] warmupKeys =
              new SplittableRandom(WARMUP_SEED)
                  .longs(size.warmupUpserts, 0, size.keySpace)
                  .toArray();
          upserts(connection.table(TablePath.of("bench." + WARMUP_TABLE)), pool, warmupKeys);
          // Its log and state go, so that the checkpoint and disk figures below are the W2 table's.
          dropWarmupTable(server.base());
          Table table = connection.table(TablePath.of("bench." + TABLE));
          sample.upsertsPerSecond = upserts(table, pool, upsertKeys);
          context.progress().printf("    upserts: %.0f upserts/s%n", sample.upsertsPerSecond);

          Lookuper lookuper = table.newLookuper();
          PointLookups.Lookup lookup = key -> checkedLookup(lookuper, live, key);
          PointLookups.run(Arrays.copyOf(lookupKeys, lookupKeys.length / 10), 1, lookup);
          sample.single = PointLookups.run(lookupKeys, 1, lookup);
          sample.many = PointLookups.run(lookupKeys, MANY_IN_FLIGHT, lookup);
          context
              .progress()
              .printf(
                  "    lookups: %.0f/s p99 %.0f us (1 in flight), %.0f/s p99 %.0f us (16)%n",
                  sample.single.perSecond(),
                  sample.single.p99Micros(),
                  sample.many.perSecond(),
                  sample.many.p99Micros());

          freshness(table, pool, size, sample);
          context
              .progress()
              .printf(
                  "    freshness: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                  sample.freshness.p50(), sample.freshness.p99(), sample.freshness.max());
        }
        if (rawBytesWritten >= KvConfig.defaults().checkpointBytes()) {
          awaitCheckpoint(server.process(), data);
        }
        sample.checkpointed = hasCheckpoint(data);
        sample.diskBytesPerLiveKey =
            (double) (diskBytes(data.resolve("kv")) + diskBytes(data.resolve("streams")))
                / liveKeys;
        context
            .progress()
            .printf(
                "    disk: %.0f bytes per live key (raw RocksDB %.0f)%n",
                sample.diskBytesPerLiveKey, sample.rawDiskBytesPerLiveKey);
      } finally {
        stop(server);
      }

      long probeKey = upsertKeys[upsertKeys.length - 1];
      sample.restartWithCheckpoint = restart(launcher, work, data, http, probeKey);
      deleteCheckpoints(data);
      sample.restartWithoutCheckpoint = restart(launcher, work, data, http, probeKey);
      context
          .progress()
          .printf(
              "    restart to first lookup: %.0f ms with checkpoint (%s), %.0f ms without%n",
              sample.restartWithCheckpoint.firstLookupMillis(),
              sample.checkpointed ? "one existed" : "none existed",
              sample.restartWithoutCheckpoint.firstLookupMillis());
    }
    return sample;
  }

  private static LaunchedServer start(Path launcher, Path work, Path data, HttpClient http)
      throws Exception {
    return LaunchedServer.start(
        launcher,
        data,
        work.resolve("server.log"),
        "Lakestream server",
        List.of(),
        http,
        REQUEST_TIMEOUT);
  }

  private static void stop(LaunchedServer server) throws InterruptedException {
    try (server) {
      server.stopCleanly();
    }
  }

  /** Starts the server on the existing data directory and times it to a first lookup. */
  private static Restart restart(
      Path launcher, Path work, Path data, HttpClient http, long probeKey) throws Exception {
    LaunchedServer server = start(launcher, work, data, http);
    try {
      double ready = server.process().millisSinceStart();
      try (Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null)) {
        Table table = connection.table(TablePath.of("bench." + TABLE));
        Object[] row =
            table
                .newLookuper()
                .lookup(probeKey)
                .get(FIRST_LOOKUP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        double firstLookup = server.process().millisSinceStart();
        if (row == null || !Long.valueOf(probeKey).equals(row[0])) {
          throw new IllegalStateException(
              "After a restart, key " + probeKey + " looked up as " + Arrays.toString(row));
        }
        return new Restart(ready, firstLookup);
      }
    } finally {
      stop(server);
    }
  }

  private static void dropWarmupTable(URI base) throws IOException {
    try (RESTCatalog catalog = LaunchedServer.catalog(base)) {
      if (!catalog.dropTable(TableIdentifier.of("bench", WARMUP_TABLE), true)) {
        throw new IllegalStateException("The warm-up table was not dropped");
      }
    }
  }

  private static void createTable(URI base) throws IOException {
    try (RESTCatalog catalog = LaunchedServer.catalog(base)) {
      catalog.createNamespace(Namespace.of("bench"));
      for (String table : List.of(TABLE, WARMUP_TABLE)) {
        catalog
            .buildTable(TableIdentifier.of("bench", table), WideEvents.keyedSchema())
            .withPartitionSpec(PartitionSpec.unpartitioned())
            .withProperties(
                Map.of(
                    LakestreamProperties.KIND,
                    TableKind.PRIMARY_KEY.value(),
                    LakestreamProperties.BUCKETS,
                    "1",
                    TieringConfig.INTERVAL_PROPERTY,
                    TIERING_INTERVAL))
            .create();
      }
    }
  }

  /** The W2 row of upsert {@code i}: a W1 pool row with its first column replaced by the key. */
  private static Object[] row(Object[][] pool, long key, int i) {
    Object[] row = pool[i % WideEvents.DISTINCT_ROWS].clone();
    row[0] = key;
    return row;
  }

  /** Upserts a row per key and returns upserts/s from the first upsert to flush() return. */
  private static double upserts(Table table, Object[][] pool, long[] keys) {
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(BATCH_ROWS).withLinger(THROUGHPUT_LINGER);
    try (UpsertWriter writer = table.newUpsertWriter(options)) {
      long start = System.nanoTime();
      for (int i = 0; i < keys.length; i++) {
        writer.upsert(row(pool, keys[i], i));
      }
      writer.flush();
      return keys.length / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** Puts the same rows as {@link #upserts} in write batches of as many rows; bytes written. */
  private static long rawPuts(RawRocksDb raw, Object[][] pool, long[] keys) throws IOException {
    Object[][] batch = new Object[BATCH_ROWS][];
    long bytes = 0;
    int filled = 0;
    for (int i = 0; i < keys.length; i++) {
      batch[filled++] = row(pool, keys[i], i);
      if (filled == BATCH_ROWS || i == keys.length - 1) {
        bytes += raw.putAll(batch, 0, filled);
        filled = 0;
      }
    }
    return bytes;
  }

  private static boolean checkedLookup(Lookuper lookuper, BitSet live, long key) {
    Object[] row = lookuper.lookup(key).join();
    boolean expected = live.get((int) key);
    if ((row != null) != expected || row != null && !Long.valueOf(key).equals(row[0])) {
      throw new IllegalStateException(
          "Key "
              + key
              + " looked up as "
              + Arrays.toString(row)
              + "; it was "
              + (expected ? "" : "never ")
              + "written");
    }
    return row != null;
  }

  private static void freshness(Table table, Object[][] pool, Size size, Sample sample)
      throws Exception {
    long[] keys =
        new SplittableRandom(FRESHNESS_SEED)
            .longs(size.freshnessSamples, 0, size.keySpace)
            .toArray();
    try (LogScanner scanner = table.newScanner();
        UpsertWriter writer = table.newUpsertWriter(WriterOptions.defaults())) {
      scanner.subscribe(0, LogScanner.offset(table.latestOffset(0)));
      sample.freshness =
          FreshnessProbe.measure(
              scanner,
              size.freshnessSamples,
              new FreshnessProbe.Samples() {
                private Object[] row;

                @Override
                public void markers(ScanBatch batch, LongConsumer markers) {
                  BigIntVector marker = (BigIntVector) batch.root().getVector("b1");
                  for (int i = 0; i < batch.rowCount(); i++) {
                    ChangeType type = batch.changeType(i);
                    if (type == ChangeType.INSERT || type == ChangeType.UPDATE_AFTER) {
                      markers.accept(marker.get(i));
                    }
                  }
                }

                @Override
                public long prepare(int n) {
                  // b1 carries a marker no bulk row has, so every sample changes its row.
                  long marker = -1L - n;
                  row = row(pool, keys[n], n);
                  row[1] = marker;
                  return marker;
                }

                @Override
                public void writeAndFlush() {
                  writer.upsert(row);
                  writer.flush();
                }

                @Override
                public boolean arrived(long marker, long expected) {
                  return marker == expected;
                }

                @Override
                public String neverArrived(int n, long expected) {
                  return "The change of freshness sample " + n + " never arrived";
                }
              });
    }
  }

  /** Waits for a complete checkpoint of the table's state; returns without one at the deadline. */
  private static void awaitCheckpoint(ChildProcess server, Path data) throws Exception {
    long deadline = System.nanoTime() + CHECKPOINT_WAIT.toNanos();
    while (!hasCheckpoint(data) && System.nanoTime() - deadline < 0) {
      server.stayAliveFor(CHECKPOINT_POLL_INTERVAL);
    }
  }

  /** The checkpoint directories of every KV tablet: {@code kv/<table>/<bucket>/checkpoints/*}. */
  private static List<Path> checkpoints(Path data) throws IOException {
    Path kv = data.resolve("kv");
    if (!Files.isDirectory(kv)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.walk(kv, 4)) {
      return paths
          .filter(path -> path.getParent() != null)
          .filter(path -> path.getParent().getFileName().toString().equals("checkpoints"))
          .filter(Files::isDirectory)
          .toList();
    }
  }

  private static boolean hasCheckpoint(Path data) throws IOException {
    for (Path checkpoint : checkpoints(data)) {
      if (Files.isRegularFile(checkpoint.resolve("LAKESTREAM-CHECKPOINT-COMPLETE"))) {
        return true;
      }
    }
    return false;
  }

  private static void deleteCheckpoints(Path data) throws IOException {
    for (Path checkpoint : checkpoints(data)) {
      try (Stream<Path> paths = Files.walk(checkpoint)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  /** Bytes of the regular files under a directory, each file counted once however many links. */
  private static long diskBytes(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return 0;
    }
    Set<Object> inodes = new HashSet<>();
    long total = 0;
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path file : paths.filter(Files::isRegularFile).toList()) {
        try {
          if (inodes.add(Files.getAttribute(file, "unix:ino"))) {
            total += Files.size(file);
          }
        } catch (IOException e) {
          // deleted while walking
        }
      }
    }
    return total;
  }
}
