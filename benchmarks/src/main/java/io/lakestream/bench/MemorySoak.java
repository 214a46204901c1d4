package io.lakestream.bench;

import io.lakestream.client.AppendWriter;
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
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The memory curve of the {@code scaling} benchmark: one packaged server at its defaults, with
 * {@code -XX:NativeMemoryTracking=summary} added through {@code LAKESTREAM_JAVA_OPTS}, under a
 * mixed load for a soak (10 minutes; quick mode 6 s; {@code -Dlakestream.bench.soak-seconds}
 * overrides), sampled every 10 s (quick mode at its start and end). The load, each part paced and
 * on its own thread: W1 appends to a log table of 4 buckets (tiered every 5 s) at about 20,000
 * rows/s; upserts to a primary-key table of 4 buckets (tiered every 5 s) at about 10,000 rows/s
 * over 200,000 keys; point lookups of those keys, one in flight; a scan of the log table's last
 * 20,000 rows per bucket every 2 s; and two SQL aggregates over both tables through the Flight SQL
 * JDBC driver every 2 s.
 *
 * <p>Each sample: VmRSS; heap committed and used ({@code jcmd GC.heap_info}, no forced collection);
 * NMT's committed total and its Java Heap and Other (direct buffers and Arrow's unsafe allocations)
 * categories; RSS minus NMT's committed total, the part no JVM category accounts for (RocksDB's
 * block cache and memtables, DuckDB, the C allocator's arenas), when positive; and from {@code
 * /metrics} RocksDB's block-cache usage, the Arrow memory the server's parts hold and the JVM's
 * direct buffers (Netty's and the internal client connections'), the two halves of Other.
 */
final class MemorySoak {
  private static final Duration FULL_SOAK = Duration.ofMinutes(10);
  private static final Duration QUICK_SOAK = Duration.ofSeconds(6);
  private static final Duration FULL_SAMPLE = Duration.ofSeconds(10);
  private static final Duration START_DEADLINE = Duration.ofSeconds(60);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final int APPENDS_PER_SECOND = 20_000;
  private static final int UPSERTS_PER_SECOND = 10_000;
  private static final int KEYS = 200_000;
  private static final int PACE_BATCH = 1000;
  private static final int SCAN_TAIL_ROWS = 20_000;
  private static final int BUCKETS = 4;

  private MemorySoak() {}

  static String describe() {
    return "memory under a mixed soak of "
        + soak(RunMode.FULL).toSeconds()
        + " s (quick "
        + QUICK_SOAK.toSeconds()
        + " s): ~20k appends/s, ~10k upserts/s, lookups, scans, SQL, tiering every 5 s; RSS,"
        + " heap, NMT, RocksDB block cache every "
        + FULL_SAMPLE.toSeconds()
        + " s";
  }

  private static Duration soak(RunMode mode) {
    String seconds = System.getProperty("lakestream.bench.soak-seconds");
    if (mode == RunMode.QUICK) {
      return QUICK_SOAK;
    }
    return seconds == null ? FULL_SOAK : Duration.ofSeconds(Long.parseLong(seconds));
  }

  static Curve run(BenchmarkContext context, Path launcher, HttpClient http) throws Exception {
    boolean quick = context.mode() == RunMode.QUICK;
    Duration soak = soak(context.mode());
    // Quick mode samples the start and the end only: each sample runs jcmd, seconds when loaded.
    Duration sampleEvery = quick ? soak : FULL_SAMPLE;
    Curve.Builder curve =
        new Curve.Builder(
            "memory", "Server memory under a mixed soak (defaults)", "seconds", false);
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-soak-")) {
      Path work = directory.path();
      int[] ports = FreePorts.onLoopback(3);
      ProcessBuilder builder =
          LakestreamLauncher.server(launcher, work.resolve("data"), ports[0], ports[1], ports[2]);
      builder.environment().put("LAKESTREAM_JAVA_OPTS", "-XX:NativeMemoryTracking=summary");
      URI base = new URI("http", null, "127.0.0.1", ports[0], null, null, null);
      try (ChildProcess server =
          ChildProcess.start("Lakestream server (soak)", builder, work.resolve("server.log"))) {
        server.awaitCondition(
            "GET /ready answering 200",
            START_DEADLINE,
            Duration.ofMillis(10),
            () -> HttpProbes.answersOk(http, base.resolve("/ready"), REQUEST_TIMEOUT));
        createTables(base);
        Load load = new Load(base, ports[1], ports[2]);
        long start = System.nanoTime();
        load.start();
        try {
          long end = start + soak.toNanos();
          long next = start;
          while (true) {
            double seconds = Math.rint((System.nanoTime() - start) / 1e9);
            sample(context, curve, server, http, base, seconds);
            load.check();
            if (System.nanoTime() - end >= 0) {
              break;
            }
            // A sample can take longer than the interval on a loaded machine (jcmd starts a JVM):
            // the soak still ends on time, with one last sample at its end.
            next = Math.min(Math.max(next + sampleEvery.toNanos(), System.nanoTime()), end);
            LockSupport.parkNanos(next - System.nanoTime());
          }
        } finally {
          load.stop();
        }
        context
            .progress()
            .printf(
                "    load done: %d appends, %d upserts, %d lookups, %d scans, %d SQL queries%n",
                load.appended.get(),
                load.upserted.get(),
                load.lookedUp.get(),
                load.scans.get(),
                load.queries.get());
        int exit = server.terminate(Duration.ofSeconds(30));
        if (exit != 0) {
          throw server.failure("exited with " + exit + " after SIGTERM instead of 0");
        }
      }
    }
    return curve.build();
  }

  private static void sample(
      BenchmarkContext context,
      Curve.Builder curve,
      ChildProcess server,
      HttpClient http,
      URI base,
      double seconds)
      throws Exception {
    long pid = server.pid();
    double rss = server.residentMemoryMib();
    ServerProbes.Memory memory = ServerProbes.memory(pid);
    ServerProbes.Heap heap = memory.heap();
    Map<String, Double> nmt = memory.nativeCommittedMib();
    double nmtTotal = nmt.getOrDefault("Total", 0.0);
    double other = nmt.getOrDefault("Other", 0.0);
    double javaHeap = nmt.getOrDefault("Java Heap", 0.0);
    double blockCache =
        ServerProbes.metric(http, base, "lakestream_kv_block_cache_usage_bytes") / (1 << 20);
    double arrow = ServerProbes.metric(http, base, "lakestream_arrow_allocated_bytes") / (1 << 20);
    double directBuffers =
        ServerProbes.metricLines(http, base, "jvm_buffer_pool_used_bytes{pool=\"direct\"}")
            / (1 << 20);
    curve
        .add("server_rss_mib", "MiB", seconds, rss)
        .add("heap_committed_mib", "MiB", seconds, heap.committedMib())
        .add("heap_used_mib", "MiB", seconds, heap.usedMib())
        .add("nmt_committed_mib", "MiB", seconds, nmtTotal)
        .add("nmt_beside_heap_mib", "MiB", seconds, Math.max(0, nmtTotal - javaHeap))
        .add("nmt_other_mib", "MiB", seconds, other)
        .add("rocksdb_block_cache_mib", "MiB", seconds, blockCache)
        .add("arrow_mib", "MiB", seconds, arrow)
        .add("direct_buffers_mib", "MiB", seconds, directBuffers);
    StringBuilder categories = new StringBuilder();
    for (Map.Entry<String, Double> category : nmt.entrySet()) {
      if (!category.getKey().equals("Total") && category.getValue() >= 8) {
        categories.append(
            String.format(
                java.util.Locale.ROOT, " %s %.0f,", category.getKey(), category.getValue()));
      }
    }
    context
        .progress()
        .printf(
            "    %4.0f s: RSS %.0f MiB, heap %.0f/%.0f MiB used/committed, block cache %.0f MiB,"
                + " Arrow %.0f MiB, direct buffers %.0f MiB, NMT committed %.0f MiB:%s%n",
            seconds,
            rss,
            heap.usedMib(),
            heap.committedMib(),
            blockCache,
            arrow,
            directBuffers,
            nmtTotal,
            categories);
  }

  private static void createTables(URI base) throws Exception {
    try (RESTCatalog catalog = LaunchedServer.catalog(base)) {
      catalog.createNamespace(Namespace.of("soak"));
      catalog
          .buildTable(TableIdentifier.of("soak", "events"), WideEvents.schema())
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperties(
              Map.of(
                  LakestreamProperties.KIND, TableKind.LOG.value(),
                  LakestreamProperties.BUCKETS, Integer.toString(BUCKETS),
                  LakestreamProperties.TIERING_INTERVAL, "5s"))
          .create();
      catalog
          .buildTable(TableIdentifier.of("soak", "state"), WideEvents.keyedSchema())
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperties(
              Map.of(
                  LakestreamProperties.KIND, TableKind.PRIMARY_KEY.value(),
                  LakestreamProperties.BUCKETS, Integer.toString(BUCKETS),
                  LakestreamProperties.TIERING_INTERVAL, "5s"))
          .create();
    }
  }

  /** The mixed load's threads; the first failure of any of them fails the soak. */
  private static final class Load {
    private final URI base;
    private final int rpcPort;
    private final int flightPort;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    final AtomicLong appended = new AtomicLong();
    final AtomicLong upserted = new AtomicLong();
    final AtomicLong lookedUp = new AtomicLong();
    final AtomicLong scans = new AtomicLong();
    final AtomicLong queries = new AtomicLong();
    private Connection connection;

    Load(URI base, int rpcPort, int flightPort) {
      this.base = base;
      this.rpcPort = rpcPort;
      this.flightPort = flightPort;
    }

    void start() throws Exception {
      connection = Connection.open("127.0.0.1", rpcPort, null);
      Table events = connection.table(TablePath.of("soak.events"));
      Table state = connection.table(TablePath.of("soak.state"));
      Object[][] pool = WideEvents.rowPool();
      spawn("soak-appender", () -> appends(events, pool));
      spawn("soak-upserter", () -> upserts(state, pool));
      spawn("soak-lookups", () -> lookups(state));
      spawn("soak-scanner", () -> scans(events));
      spawn("soak-sql", this::sql);
    }

    private void spawn(String name, Work work) {
      Thread thread =
          Thread.ofPlatform()
              .name(name)
              .daemon()
              .start(
                  () -> {
                    try {
                      work.run();
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  });
      threads.add(thread);
    }

    /** Throws the first failure of a load thread, if any. */
    void check() {
      Throwable first = failure.get();
      if (first != null) {
        throw new IllegalStateException("The soak's load failed: " + first, first);
      }
    }

    void stop() throws Exception {
      running.set(false);
      for (Thread thread : threads) {
        thread.join(Duration.ofSeconds(60));
      }
      if (connection != null) {
        connection.close();
      }
      check();
    }

    /** Waits until {@code done} units at {@code perSecond} are due since {@code start}. */
    private static void pace(long start, long done, int perSecond) {
      long due = start + (long) (done * 1e9 / perSecond);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }

    private void appends(Table events, Object[][] pool) {
      WriterOptions options =
          WriterOptions.defaults().withBatchRows(PACE_BATCH).withLinger(Duration.ofMillis(20));
      try (AppendWriter writer = events.newAppendWriter(options)) {
        long start = System.nanoTime();
        long i = 0;
        while (running.get()) {
          for (int r = 0; r < PACE_BATCH; r++, i++) {
            Object[] row = pool[(int) (i % WideEvents.DISTINCT_ROWS)].clone();
            row[0] = i;
            writer.append(row);
          }
          appended.addAndGet(PACE_BATCH);
          pace(start, i, APPENDS_PER_SECOND);
        }
        writer.flush();
      }
    }

    private void upserts(Table state, Object[][] pool) {
      WriterOptions options =
          WriterOptions.defaults().withBatchRows(PACE_BATCH).withLinger(Duration.ofMillis(20));
      SplittableRandom random = new SplittableRandom(7);
      try (UpsertWriter writer = state.newUpsertWriter(options)) {
        long start = System.nanoTime();
        long i = 0;
        while (running.get()) {
          for (int r = 0; r < PACE_BATCH; r++, i++) {
            Object[] row = pool[(int) (i % WideEvents.DISTINCT_ROWS)].clone();
            row[0] = (long) random.nextInt(KEYS);
            writer.upsert(row);
          }
          upserted.addAndGet(PACE_BATCH);
          pace(start, i, UPSERTS_PER_SECOND);
        }
        writer.flush();
      }
    }

    private void lookups(Table state) {
      Lookuper lookuper = state.newLookuper();
      SplittableRandom random = new SplittableRandom(11);
      while (running.get()) {
        lookuper.lookup((long) random.nextInt(KEYS)).join();
        lookedUp.incrementAndGet();
      }
    }

    private void scans(Table events) {
      long next = System.nanoTime();
      while (running.get()) {
        try (LogScanner scanner = events.newScanner()) {
          long[] ends = new long[BUCKETS];
          for (int b = 0; b < BUCKETS; b++) {
            ends[b] = events.latestOffset(b);
            long from = Math.max(events.earliestOffset(b), ends[b] - SCAN_TAIL_ROWS);
            scanner.subscribe(b, LogScanner.offset(from));
          }
          boolean done = false;
          while (!done && running.get()) {
            for (ScanBatch batch : scanner.poll(Duration.ofMillis(100))) {
              batch.close();
            }
            done = true;
            for (int b = 0; b < BUCKETS; b++) {
              done &= scanner.position(b) >= ends[b];
            }
          }
        }
        scans.incrementAndGet();
        next += Duration.ofSeconds(2).toNanos();
        LockSupport.parkNanos(next - System.nanoTime());
      }
    }

    private void sql() throws Exception {
      String url = "jdbc:arrow-flight-sql://127.0.0.1:" + flightPort + "?useEncryption=false";
      long next = System.nanoTime();
      try (java.sql.Connection flight = DriverManager.getConnection(url)) {
        while (running.get()) {
          for (String query :
              List.of(
                  "SELECT count(*), avg(d0), max(s0) FROM soak.events",
                  "SELECT i0 % 16, count(*), sum(b1) FROM soak.state GROUP BY 1")) {
            try (Statement statement = flight.createStatement();
                ResultSet result = statement.executeQuery(query)) {
              while (result.next()) {
                result.getObject(1);
              }
            }
            queries.incrementAndGet();
          }
          next += Duration.ofSeconds(2).toNanos();
          LockSupport.parkNanos(next - System.nanoTime());
        }
      }
    }

    @FunctionalInterface
    private interface Work {
      void run() throws Exception;
    }
  }
}
