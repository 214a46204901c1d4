package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Lakestream beside its peers in one benchmark run (issue 37): W1 (appends, scans, freshness, disk)
 * for {@code log-append-scan}, W2 (upserts, lookups) for {@code keyed-state}.
 *
 * <p>Systems are measured one at a time: each is started, runs every workload of the suite (per
 * workload {@link #FULL_WARMUPS} warm-up run, then {@link #FULL_MEASURED} measured runs, each in a
 * fresh client JVM; one run and no warm-up in quick mode), and is closed before the next starts.
 * Each figure is Lakestream's median beside a peer's median, with the ratio ours / theirs and, for
 * the pairs of the issue, its target. A peer that is not available, that does not support a
 * workload, or (in a full run) that failed, has its figures reported as skipped with the reason;
 * Lakestream failing, or any system failing in quick mode, fails the run.
 *
 * <p>Disk per row is measured on the ZSTD appends (the disk a system holds after an append less
 * before it, per row appended), before any table is dropped; tables no later workload reads are
 * dropped ({@link PeerSystem#dropTable}) between runs so that a full run's disk stays bounded.
 */
final class PeerRun {
  static final int FULL_WARMUPS = 1;
  static final int FULL_MEASURED = 3;

  /** W2 tables have one bucket, for every system. */
  static final int W2_BUCKETS = 1;

  /** Lookups at these numbers in flight. */
  static final List<Integer> LOOKUP_IN_FLIGHT = List.of(1, 16);

  /** The sizes of the runs, and tiny ones for quick mode. */
  static final Sizes FULL = new Sizes(5_000_000, 200, 1_000_000, 200_000);

  static final Sizes QUICK = new Sizes(20_000, 20, 10_000, 5_000);

  /** The suites: which workloads a benchmark compares. */
  enum Suite {
    W1,
    W2
  }

  /**
   * Workload sizes; W2 upserts {@code 2 * w2KeySpace} rows ({@link
   * LakestreamClientWorkload#W2_UPSERTS_PER_KEY} per key), as the lookups expect.
   */
  record Sizes(int w1Rows, int freshnessSamples, int w2KeySpace, int lookups) {
    int w2Upserts() {
      return LakestreamClientWorkload.W2_UPSERTS_PER_KEY * w2KeySpace;
    }
  }

  /**
   * What one system measured: medians by measurement key (e.g. {@code append_none.rows_per_s}), or
   * why it measured nothing.
   */
  record Measured(
      String label,
      boolean fsyncedAcknowledgement,
      Set<PeerWorkload.Kind> supported,
      Map<String, Double> medians,
      Optional<String> failure) {
    Measured {
      requireNonNull(label, "label is null");
      supported = Set.copyOf(supported);
      medians = Map.copyOf(medians);
      requireNonNull(failure, "failure is null");
    }

    /** The first word of the label, e.g. {@code Kafka}. */
    String system() {
      int space = label.indexOf(' ');
      return space < 0 ? label : label.substring(0, space);
    }
  }

  /**
   * One figure of ours beside each peer: the measurement {@code key} of the workload {@code kind},
   * in {@code unit}, with a target for the peers named in {@code targets}.
   */
  record Comparison(
      String name, PeerWorkload.Kind kind, String key, String unit, Map<String, Target> targets) {
    Comparison {
      requireNonNull(name, "name is null");
      requireNonNull(kind, "kind is null");
      requireNonNull(key, "key is null");
      requireNonNull(unit, "unit is null");
      targets = Map.copyOf(targets);
    }
  }

  /** The W1 figures and the targets. */
  static final List<Comparison> W1 =
      List.of(
          new Comparison(
              "append_rows_per_s",
              PeerWorkload.Kind.W1_APPEND,
              "append_none.rows_per_s",
              "rows/s",
              Map.of("Kafka", Target.ratioAtLeast(2.5))),
          new Comparison(
              "append_zstd_rows_per_s",
              PeerWorkload.Kind.W1_APPEND,
              "append_zstd.rows_per_s",
              "rows/s",
              Map.of("Kafka", Target.ratioAtLeast(2.5))),
          new Comparison(
              "scan_rows_per_s",
              PeerWorkload.Kind.W1_SCAN,
              "scan_none.rows_per_s",
              "rows/s",
              Map.of("Kafka", Target.ratioAtLeast(5))),
          new Comparison(
              "scan_zstd_rows_per_s",
              PeerWorkload.Kind.W1_SCAN,
              "scan_zstd.rows_per_s",
              "rows/s",
              Map.of("Kafka", Target.ratioAtLeast(5))),
          new Comparison(
              "projected_scan_rows_per_s",
              PeerWorkload.Kind.W1_SCAN_PROJECTED,
              "scan_projected_none.rows_per_s",
              "rows/s",
              Map.of("Fluss", Target.ratioAtLeast(10))),
          new Comparison(
              "projected_scan_zstd_rows_per_s",
              PeerWorkload.Kind.W1_SCAN_PROJECTED,
              "scan_projected_zstd.rows_per_s",
              "rows/s",
              Map.of("Fluss", Target.ratioAtLeast(10))),
          new Comparison(
              "freshness_ack_to_reader_p50_ms",
              PeerWorkload.Kind.W1_FRESHNESS,
              "freshness.ack_to_reader_p50_ms",
              "ms",
              Map.of()),
          new Comparison(
              "freshness_ack_to_reader_p99_ms",
              PeerWorkload.Kind.W1_FRESHNESS,
              "freshness.ack_to_reader_p99_ms",
              "ms",
              Map.of("Kafka", Target.ratioAtMost(1))),
          new Comparison(
              "freshness_send_to_reader_p50_ms",
              PeerWorkload.Kind.W1_FRESHNESS,
              "freshness.send_to_reader_p50_ms",
              "ms",
              Map.of()),
          new Comparison(
              "freshness_send_to_reader_p99_ms",
              PeerWorkload.Kind.W1_FRESHNESS,
              "freshness.send_to_reader_p99_ms",
              "ms",
              Map.of("Kafka", Target.ratioAtMost(1))),
          new Comparison(
              "disk_bytes_per_row_zstd",
              PeerWorkload.Kind.W1_APPEND,
              "disk_zstd.bytes_per_row",
              "bytes",
              Map.of("Kafka", Target.ratioAtMost(1))));

  /** The W2 figures and the targets. */
  static final List<Comparison> W2 =
      List.of(
          new Comparison(
              "upserts_per_s",
              PeerWorkload.Kind.W2_UPSERT,
              "upsert.rows_per_s",
              "upserts/s",
              Map.of("Fluss", Target.ratioAtLeast(3))),
          new Comparison(
              "lookups_per_s_1_in_flight",
              PeerWorkload.Kind.W2_LOOKUP,
              "lookup_1.lookups_per_s",
              "lookups/s",
              Map.of()),
          new Comparison(
              "lookups_per_s_16_in_flight",
              PeerWorkload.Kind.W2_LOOKUP,
              "lookup_16.lookups_per_s",
              "lookups/s",
              Map.of("Fluss", Target.ratioAtLeast(5))));

  private final List<PeerSystem> systems;
  private final Map<String, String> unavailable;
  private final Sizes sizes;
  private final int warmups;
  private final int measured;
  private final boolean quick;
  private final Path directory;
  private final PrintStream progress;

  PeerRun(
      List<PeerSystem> systems,
      Map<String, String> unavailable,
      RunMode mode,
      Sizes sizes,
      Path directory,
      PrintStream progress) {
    this.systems = List.copyOf(systems);
    this.unavailable = Map.copyOf(unavailable);
    this.sizes = requireNonNull(sizes, "sizes is null");
    this.quick = requireNonNull(mode, "mode is null") == RunMode.QUICK;
    this.warmups = quick ? 0 : FULL_WARMUPS;
    this.measured = quick ? 1 : FULL_MEASURED;
    this.directory = requireNonNull(directory, "directory is null");
    this.progress = requireNonNull(progress, "progress is null");
    if (this.systems.isEmpty() || !(this.systems.get(0) instanceof LakestreamPeer)) {
      throw new IllegalArgumentException("The first system must be Lakestream's");
    }
  }

  /**
   * The peer figures of {@code suite} for a benchmark: the systems of {@link PeerSystems} measured
   * at the sizes of the context's mode, or nothing when the run was asked for none ({@code
   * --no-peers}).
   */
  static List<Figure> forBenchmark(BenchmarkContext context, Suite suite) throws Exception {
    if (!context.peers()) {
      return List.of();
    }
    List<PeerSystem> systems =
        PeerSystems.all(
            context.lakestreamHome(),
            context.mode() == RunMode.QUICK ? List.of() : PeerSystem.CLIENT_HEAP_FLAGS);
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-peers-")) {
      PeerRun run =
          new PeerRun(
              systems,
              PeerSystems.unavailable(context.lakestreamHome()),
              context.mode(),
              context.mode() == RunMode.QUICK ? QUICK : FULL,
              directory.path(),
              context.progress());
      return run.figures(suite);
    }
  }

  /** Measures every system on {@code suite}, one at a time, and returns the figures. */
  List<Figure> figures(Suite suite) throws Exception {
    Path pool = directory.resolve("pool.bin");
    WideEvents.writePool(pool);
    List<Measured> results = new ArrayList<>();
    for (PeerSystem system : systems) {
      results.add(measure(system, suite, pool));
    }
    Measured ours = results.get(0);
    if (ours.failure().isPresent()) {
      throw new IllegalStateException("Lakestream's client run failed: " + ours.failure().get());
    }
    return compare(
        ours, results.subList(1, results.size()), unavailable, suite == Suite.W1 ? W1 : W2);
  }

  private Measured measure(PeerSystem system, Suite suite, Path pool) throws Exception {
    String label = system.label();
    Set<PeerWorkload.Kind> supported = EnumSet.noneOf(PeerWorkload.Kind.class);
    for (PeerWorkload.Kind kind : PeerWorkload.Kind.values()) {
      if (system.supports(kind)) {
        supported.add(kind);
      }
    }
    Samples samples = new Samples();
    progress.printf("  peers: %s on %s%n", label, suite);
    try (system) {
      system.start(directory.resolve(label.replaceAll("[^A-Za-z0-9.]", "_")));
      if (suite == Suite.W1) {
        runW1(system, pool, samples);
      } else {
        runW2(system, pool, samples);
      }
    } catch (Exception e) {
      if (quick || system instanceof LakestreamPeer) {
        throw e;
      }
      progress.printf("  peers: %s failed: %s%n", label, e.getMessage());
      return new Measured(
          label,
          system.fsyncedAcknowledgement(),
          supported,
          Map.of(),
          Optional.of(firstLine(e.getMessage())));
    }
    return new Measured(
        label, system.fsyncedAcknowledgement(), supported, samples.medians(), Optional.empty());
  }

  private void runW1(PeerSystem system, Path pool, Samples samples) throws Exception {
    int rows = sizes.w1Rows();
    // ZSTD first, so that its disk is measured on a system holding nothing else.
    for (String compression : List.of("zstd", "none")) {
      if (!system.supports(PeerWorkload.Kind.W1_APPEND)) {
        break;
      }
      List<String> tables = new ArrayList<>();
      for (int i = 0; i < warmups + measured; i++) {
        String table = "w1_" + compression + "_" + i;
        PeerWorkload append =
            new PeerWorkload(PeerWorkload.Kind.W1_APPEND, pool, table, rows, compression, 1, 1, 1);
        long before = system.diskBytes();
        Map<String, Double> result = run(system, append);
        long after = system.diskBytes();
        if (i >= warmups) {
          samples.add("append_" + compression, result);
          if (compression.equals("zstd")) {
            samples.add("disk_zstd", Map.of("bytes_per_row", (after - before) / (double) rows));
          }
        }
        tables.add(table);
        if (compression.equals("none") && tables.size() > 1) {
          system.dropTable(tables.remove(0));
        }
      }
      while (tables.size() > 1) {
        system.dropTable(tables.remove(0));
      }
      String scanned = tables.get(0);
      for (PeerWorkload.Kind kind :
          List.of(PeerWorkload.Kind.W1_SCAN, PeerWorkload.Kind.W1_SCAN_PROJECTED)) {
        if (!system.supports(kind)) {
          continue;
        }
        String key =
            (kind == PeerWorkload.Kind.W1_SCAN ? "scan_" : "scan_projected_") + compression;
        double expected = expectedChecksum(kind, rows);
        for (int i = 0; i < warmups + measured; i++) {
          Map<String, Double> result =
              run(system, new PeerWorkload(kind, pool, scanned, rows, compression, 1, 1, 1));
          Double checksum = result.get("checksum");
          if (checksum == null || checksum != expected) {
            throw new IllegalStateException(
                system.label()
                    + " "
                    + kind
                    + " of "
                    + scanned
                    + " read checksum "
                    + checksum
                    + " where the rows written have "
                    + expected);
          }
          if (i >= warmups) {
            samples.add(key, result);
          }
        }
      }
      system.dropTable(scanned);
    }
    if (system.supports(PeerWorkload.Kind.W1_FRESHNESS)) {
      for (int i = 0; i < warmups + measured; i++) {
        String table = "w1_freshness_" + i;
        Map<String, Double> result =
            run(
                system,
                new PeerWorkload(
                    PeerWorkload.Kind.W1_FRESHNESS,
                    pool,
                    table,
                    sizes.freshnessSamples(),
                    "none",
                    1,
                    1,
                    1));
        if (i >= warmups) {
          samples.add("freshness", result);
        }
        system.dropTable(table);
      }
    }
  }

  private void runW2(PeerSystem system, Path pool, Samples samples) throws Exception {
    if (!system.supports(PeerWorkload.Kind.W2_UPSERT)) {
      return;
    }
    int keySpace = sizes.w2KeySpace();
    List<String> tables = new ArrayList<>();
    for (int i = 0; i < warmups + measured; i++) {
      String table = "w2_" + i;
      Map<String, Double> result =
          run(
              system,
              new PeerWorkload(
                  PeerWorkload.Kind.W2_UPSERT,
                  pool,
                  table,
                  sizes.w2Upserts(),
                  "none",
                  W2_BUCKETS,
                  keySpace,
                  1));
      if (i >= warmups) {
        samples.add("upsert", result);
      }
      tables.add(table);
      if (tables.size() > 1) {
        system.dropTable(tables.remove(0));
      }
    }
    String looked = tables.get(0);
    if (system.supports(PeerWorkload.Kind.W2_LOOKUP)) {
      for (int inFlight : LOOKUP_IN_FLIGHT) {
        for (int i = 0; i < warmups + measured; i++) {
          Map<String, Double> result =
              run(
                  system,
                  new PeerWorkload(
                      PeerWorkload.Kind.W2_LOOKUP,
                      pool,
                      looked,
                      sizes.lookups(),
                      "none",
                      W2_BUCKETS,
                      keySpace,
                      inFlight));
          if (i >= warmups) {
            samples.add("lookup_" + inFlight, result);
          }
        }
      }
    }
    system.dropTable(looked);
  }

  /** Runs one workload, printing what it measured as progress. */
  private Map<String, Double> run(PeerSystem system, PeerWorkload workload) throws Exception {
    Map<String, Double> result = system.run(workload);
    progress.printf(
        Locale.ROOT,
        "    %s %s %s (%d rows, %s, %d in flight): %s%n",
        system.label(),
        workload.kind(),
        workload.table(),
        workload.rows(),
        workload.compression(),
        workload.inFlight(),
        result);
    return result;
  }

  /**
   * The figures of {@code comparisons}: ours beside each peer of {@link PeerSystems#PEERS} (and any
   * other measured), or skipped with the reason when the peer was unavailable, failed, does not
   * support the workload or measured nothing for it.
   */
  static List<Figure> compare(
      Measured ours,
      List<Measured> peers,
      Map<String, String> unavailable,
      List<Comparison> comparisons) {
    Map<String, Measured> bySystem = new LinkedHashMap<>();
    for (String name : PeerSystems.PEERS) {
      bySystem.put(name, null);
    }
    for (Measured peer : peers) {
      bySystem.put(peer.system(), peer);
    }
    List<Figure> figures = new ArrayList<>();
    for (Map.Entry<String, Measured> entry : bySystem.entrySet()) {
      String name = entry.getKey();
      Measured peer = entry.getValue();
      for (Comparison comparison : comparisons) {
        String figureName = comparison.name() + "_vs_" + name.toLowerCase(Locale.ROOT);
        Optional<Target> target = Optional.ofNullable(comparison.targets().get(name));
        Double value = ours.medians().get(comparison.key());
        double ourValue = value == null ? Double.NaN : value;
        if (peer == null) {
          String reason =
              name
                  + " is not available: "
                  + unavailable.getOrDefault(name, "no " + name + " peer is built on this branch");
          figures.add(
              Figure.skipped(figureName, ourValue, comparison.unit(), name, target, reason));
          continue;
        }
        String baseline = baseline(peer, ours);
        Double theirs = peer.medians().get(comparison.key());
        String reason = null;
        if (peer.failure().isPresent()) {
          reason = peer.label() + " failed: " + peer.failure().get();
        } else if (!peer.supported().contains(comparison.kind())) {
          reason = "not applicable: " + peer.label() + " does not support " + comparison.kind();
        } else if (theirs == null || value == null) {
          reason =
              (value == null ? ours.label() : peer.label()) + " measured no " + comparison.key();
        } else if (!(theirs > 0)) {
          reason = peer.label() + " measured " + theirs + " for " + comparison.key();
        }
        if (reason != null) {
          figures.add(
              Figure.skipped(figureName, ourValue, comparison.unit(), baseline, target, reason));
          continue;
        }
        figures.add(
            new Figure(
                figureName, value, comparison.unit(), baseline, theirs, value / theirs, target));
      }
    }
    return figures;
  }

  /** E.g. "Kafka 4.4.0 through its own client, acknowledged from the page cache (ours: fsync)". */
  static String baseline(Measured peer, Measured ours) {
    return peer.label()
        + " through its own client, acknowledged "
        + acknowledgement(peer.fsyncedAcknowledgement())
        + " (ours "
        + acknowledgement(ours.fsyncedAcknowledgement())
        + ")";
  }

  private static String acknowledgement(boolean fsynced) {
    return fsynced ? "after fsync" : "from the page cache";
  }

  /**
   * The checksum a scan of the first {@code rows} W1 rows reads: the sum of {@code b0} plus the
   * lengths of the strings read ({@code s0..s4}, or {@code s0} alone projected), computed here from
   * the pool and not by any client.
   */
  static double expectedChecksum(PeerWorkload.Kind kind, int rows) {
    Object[][] pool = WideEvents.rowPool();
    int strings = kind == PeerWorkload.Kind.W1_SCAN_PROJECTED ? 1 : 5;
    long[] perRow = new long[pool.length];
    for (int r = 0; r < pool.length; r++) {
      long sum = (Long) pool[r][0];
      for (int s = 0; s < strings; s++) {
        sum += ((String) pool[r][15 + s]).length();
      }
      perRow[r] = sum;
    }
    long checksum = 0;
    for (int n = 0; n < rows; n++) {
      checksum += perRow[n % pool.length];
    }
    return checksum;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "(no message)";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Results of the measured runs, by measurement prefix. */
  private static final class Samples {
    private final Map<String, List<Map<String, Double>>> runs = new LinkedHashMap<>();

    void add(String prefix, Map<String, Double> result) {
      runs.computeIfAbsent(prefix, ignored -> new ArrayList<>()).add(Map.copyOf(result));
    }

    /** The median of each result name over the runs that printed it, as {@code prefix.name}. */
    Map<String, Double> medians() {
      Map<String, Double> medians = new HashMap<>();
      for (Map.Entry<String, List<Map<String, Double>>> entry : runs.entrySet()) {
        for (String name : entry.getValue().get(0).keySet()) {
          List<Map<String, Double>> printed =
              entry.getValue().stream().filter(run -> run.containsKey(name)).toList();
          medians.put(entry.getKey() + "." + name, Median.of(printed, run -> run.get(name)));
        }
      }
      return medians;
    }
  }
}
