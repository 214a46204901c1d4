package io.lakestream.bench;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriteAck;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.Compression;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The client side of {@link LakestreamPeer}: one {@link PeerWorkload} run through Lakestream's
 * ordinary public client ({@code io.lakestream.client}) the way an application writes and reads row
 * by row, in a JVM of its own.
 *
 * <p>Called as {@code LakestreamClientWorkload KIND key=value...} with the keys of {@link
 * PeerWorkload#arguments()} plus {@code server=lakestream://host:port}; prints {@code RESULT
 * name=value} lines as {@link PeerWorkload} names them and exits 0, or exits 1 with the error on
 * standard error. Tables are created in the namespace {@code peers}. Writers for W1 appends and W2
 * upserts use the documented throughput settings (8,192-row batches, 100 ms linger, compression as
 * the workload says); the freshness writer uses the defaults. Only the client's classes and
 * Iceberg's schema API (which the client's API takes) are used.
 */
public final class LakestreamClientWorkload {
  private static final String NAMESPACE = "peers";
  private static final Duration THROUGHPUT_LINGER = Duration.ofMillis(100);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration READ_DEADLINE = Duration.ofMinutes(10);
  private static final long W2_KEY_MULTIPLIER = 2_654_435_761L;

  /** Freshness samples written before the measured ones, as many as the peers' clients write. */
  static final int FRESHNESS_WARM_UP_SAMPLES = 20;

  private static final long WAIT_STEP_NANOS = 20_000;

  /** Upserts per key of the key space that the W2 lookups expect were written (see PeerRun). */
  static final int W2_UPSERTS_PER_KEY = 2;

  private LakestreamClientWorkload() {}

  public static void main(String[] args) {
    try {
      if (args.length < 1) {
        throw new IllegalArgumentException(
            "usage: LakestreamClientWorkload KIND key=value... server=lakestream://host:port");
      }
      PeerWorkload.Kind kind = PeerWorkload.Kind.valueOf(args[0]);
      Map<String, String> arguments = new HashMap<>();
      for (int i = 1; i < args.length; i++) {
        int equals = args[i].indexOf('=');
        if (equals <= 0) {
          throw new IllegalArgumentException("Argument '" + args[i] + "' is not key=value");
        }
        arguments.put(args[i].substring(0, equals), args[i].substring(equals + 1));
      }
      PeerWorkload workload =
          new PeerWorkload(
              kind,
              Path.of(required(arguments, "pool")),
              required(arguments, "table"),
              Integer.parseInt(required(arguments, "rows")),
              required(arguments, "compression"),
              Integer.parseInt(required(arguments, "buckets")),
              Integer.parseInt(required(arguments, "keySpace")),
              Integer.parseInt(required(arguments, "inFlight")));
      Object[][] pool = readPool(workload.pool());
      try (Connection connection = Connection.open(required(arguments, "server"))) {
        Map<String, Double> results = run(connection, workload, pool);
        for (Map.Entry<String, Double> result : results.entrySet()) {
          System.out.printf(Locale.ROOT, "RESULT %s=%s%n", result.getKey(), result.getValue());
        }
      }
      System.out.flush();
      System.exit(0);
    } catch (Throwable e) {
      e.printStackTrace(System.err);
      System.exit(1);
    }
  }

  private static Map<String, Double> run(
      Connection connection, PeerWorkload workload, Object[][] pool) throws Exception {
    TablePath path = TablePath.of(NAMESPACE + "." + workload.table());
    return switch (workload.kind()) {
      case W1_APPEND -> append(connection, path, workload, pool);
      case W1_SCAN -> scan(connection.table(path), workload.rows(), List.of());
      case W1_SCAN_PROJECTED -> scan(connection.table(path), workload.rows(), List.of("b0", "s0"));
      case W1_FRESHNESS -> freshness(connection, path, workload, pool);
      case W2_UPSERT -> upsert(connection, path, workload, pool);
      case W2_LOOKUP -> lookup(connection.table(path), workload, pool);
    };
  }

  private static Map<String, Double> append(
      Connection connection, TablePath path, PeerWorkload workload, Object[][] pool) {
    createTable(connection, path, TableDescriptor.logTable(WideEvents.schema(), 1));
    Table table = connection.table(path);
    WriterOptions options =
        WriterOptions.defaults()
            .withBatchRows(WriterOptions.DEFAULT_BATCH_ROWS)
            .withLinger(THROUGHPUT_LINGER)
            .withCompression(compression(workload.compression()));
    double seconds;
    try (AppendWriter writer = table.newAppendWriter(options)) {
      // Timed from the writer made to the last row acknowledged (flush() waits for every
      // acknowledgement), as the Kafka and Fluss clients time theirs.
      long start = System.nanoTime();
      for (int n = 0; n < workload.rows(); n++) {
        writer.append(pool[n % pool.length]);
      }
      writer.flush();
      seconds = (System.nanoTime() - start) / 1e9;
    }
    return Map.of("rows_per_s", workload.rows() / seconds);
  }

  /**
   * Reads {@code rows} rows from the start of the table's only bucket, touching every value read
   * (numbers summed, strings decoded and hashed, as the Kafka and Fluss clients touch theirs); the
   * checksum is the sum of {@code b0} plus the lengths of the strings read.
   */
  static Map<String, Double> scan(Table table, int rows, List<String> columns) {
    long checksum = 0;
    long touched = 0;
    long read = 0;
    long start;
    try (LogScanner scanner =
        columns.isEmpty() ? table.newScanner() : table.newScanner(columns, BatchFilter.MATCH_ALL)) {
      // Timed from the scanner made, before it is positioned, as the Kafka and Fluss clients time
      // theirs: making a scanner costs the first one in a JVM ~0.4 s of Arrow's class set-up.
      start = System.nanoTime();
      scanner.subscribeAll(LogScanner.earliest());
      long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
      while (read < rows) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "Read " + read + " of " + rows + " rows of " + table.path() + " in " + READ_DEADLINE);
        }
        for (ScanBatch batch : scanner.poll(POLL)) {
          try (batch) {
            ScanRow row = columns.isEmpty() ? batch.row() : batch.row(columns);
            int b0 = row.indexOf("b0");
            int count = row.columnCount();
            while (read < rows && row.next()) {
              for (int c = 0; c < count; c++) {
                // Columns in the W1 order: b*, i*, d*, s*; a projection keeps b0 then s0.
                String name = row.columnName(c);
                switch (name.charAt(0)) {
                  case 'b' -> {
                    long value = row.getLong(c);
                    if (c == b0) {
                      checksum += value;
                    } else {
                      touched += value;
                    }
                  }
                  case 'i' -> touched += row.getInt(c);
                  case 'd' -> touched += Double.doubleToRawLongBits(row.getDouble(c));
                  case 's' -> {
                    String value = row.getString(c);
                    checksum += value.length();
                    touched += value.hashCode();
                  }
                  default -> throw new IllegalStateException("Unexpected column " + name);
                }
              }
              read++;
            }
          }
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Double> results = new HashMap<>();
    results.put("rows_per_s", read / seconds);
    results.put("checksum", (double) checksum);
    // Keeps the other values' reads from being optimised away.
    results.put("touched_parity", (double) (touched & 1));
    return results;
  }

  private static Map<String, Double> freshness(
      Connection connection, TablePath path, PeerWorkload workload, Object[][] pool)
      throws Exception {
    createTable(connection, path, TableDescriptor.logTable(WideEvents.schema(), 1));
    Table table = connection.table(path);
    // The first rows are written and read but not measured (a fresh JVM's first requests run
    // interpreted code), as the Kafka and Fluss clients leave out theirs.
    int measured = workload.rows();
    int samples = FRESHNESS_WARM_UP_SAMPLES + measured;
    AtomicLongArray seenNanos = new AtomicLongArray(samples);
    AtomicLong seen = new AtomicLong();
    AtomicReference<Throwable> readerFailure = new AtomicReference<>();
    Thread reader =
        Thread.ofPlatform()
            .name("freshness-reader")
            .start(
                () -> {
                  try (LogScanner scanner = table.newScanner()) {
                    scanner.subscribeAll(LogScanner.earliest());
                    while (seen.get() < samples) {
                      for (ScanBatch batch : scanner.poll(Duration.ofMillis(50))) {
                        try (batch) {
                          long now = System.nanoTime();
                          ScanRow row = batch.row();
                          while (row.next()) {
                            int offset = (int) row.offset();
                            if (offset < samples) {
                              seenNanos.set(offset, now);
                              seen.incrementAndGet();
                            }
                          }
                        }
                      }
                    }
                  } catch (Throwable e) {
                    readerFailure.set(e);
                  }
                });
    double[] ackToReader = new double[measured];
    double[] sendToReader = new double[measured];
    try (AppendWriter writer = table.newAppendWriter()) {
      for (int n = 0; n < samples; n++) {
        long sent = System.nanoTime();
        CompletableFuture<WriteAck> ack = writer.append(pool[n % pool.length]);
        writer.flush();
        ack.join();
        long acknowledged = System.nanoTime();
        long deadline = acknowledged + READ_DEADLINE.toNanos();
        while (seenNanos.get(n) == 0) {
          if (readerFailure.get() != null) {
            throw new IllegalStateException("The reader failed", readerFailure.get());
          }
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("The reader did not see row " + n + " in time");
          }
          // The reader takes its own time stamp: waiting without spinning leaves both cores to
          // the reader and the client's network thread, as the Kafka and Fluss clients wait.
          LockSupport.parkNanos(WAIT_STEP_NANOS);
        }
        if (n >= FRESHNESS_WARM_UP_SAMPLES) {
          long readAt = seenNanos.get(n);
          ackToReader[n - FRESHNESS_WARM_UP_SAMPLES] = Math.max(0, readAt - acknowledged) / 1e6;
          sendToReader[n - FRESHNESS_WARM_UP_SAMPLES] = Math.max(0, readAt - sent) / 1e6;
        }
      }
    }
    reader.join(TimeUnit.MINUTES.toMillis(1));
    Arrays.sort(ackToReader);
    Arrays.sort(sendToReader);
    Map<String, Double> results = new HashMap<>();
    results.put("ack_to_reader_p50_ms", Percentile.of(ackToReader, 0.50));
    results.put("ack_to_reader_p99_ms", Percentile.of(ackToReader, 0.99));
    results.put("send_to_reader_p50_ms", Percentile.of(sendToReader, 0.50));
    results.put("send_to_reader_p99_ms", Percentile.of(sendToReader, 0.99));
    return results;
  }

  private static Map<String, Double> upsert(
      Connection connection, TablePath path, PeerWorkload workload, Object[][] pool) {
    createTable(
        connection,
        path,
        TableDescriptor.primaryKeyTable(
            WideEvents.keyedSchema(), List.of("id"), workload.buckets()));
    Table table = connection.table(path);
    WriterOptions options =
        WriterOptions.defaults()
            .withBatchRows(WriterOptions.DEFAULT_BATCH_ROWS)
            .withLinger(THROUGHPUT_LINGER)
            .withCompression(compression(workload.compression()));
    double seconds;
    try (UpsertWriter writer = table.newUpsertWriter(options)) {
      // Timed as the appends are: from the writer made to the last row acknowledged.
      long start = System.nanoTime();
      for (int n = 0; n < workload.rows(); n++) {
        writer.upsert(keyedRow(pool, n, workload.keySpace()));
      }
      writer.flush();
      seconds = (System.nanoTime() - start) / 1e9;
    }
    return Map.of("rows_per_s", workload.rows() / seconds);
  }

  /**
   * Looks up {@code rows} keys drawn at random (seeded) from the key space, {@code inFlight} at a
   * time, and checks every answer against the last row that the W2 upserts wrote for the key,
   * {@link #W2_UPSERTS_PER_KEY} times the key space of them as {@link PeerRun} writes.
   */
  private static Map<String, Double> lookup(Table table, PeerWorkload workload, Object[][] pool)
      throws Exception {
    int keySpace = workload.keySpace();
    int[] lastWriter = lastWriters(keySpace, (long) W2_UPSERTS_PER_KEY * keySpace);
    Lookuper lookuper = table.newLookuper();
    Semaphore inFlight = new Semaphore(workload.inFlight());
    AtomicReference<String> mismatch = new AtomicReference<>();
    SplittableRandom random = new SplittableRandom(WideEvents.SEED);
    long start = System.nanoTime();
    for (int i = 0; i < workload.rows(); i++) {
      long key = random.nextInt(keySpace);
      inFlight.acquire();
      lookuper
          .lookup(key)
          .whenComplete(
              (row, failure) -> {
                try {
                  String problem = check(key, row, failure, lastWriter, pool, keySpace);
                  if (problem != null) {
                    mismatch.compareAndSet(null, problem);
                  }
                } finally {
                  inFlight.release();
                }
              });
    }
    inFlight.acquire(workload.inFlight());
    double seconds = (System.nanoTime() - start) / 1e9;
    if (mismatch.get() != null) {
      throw new IllegalStateException("Lookup answered wrongly: " + mismatch.get());
    }
    return Map.of("lookups_per_s", workload.rows() / seconds);
  }

  private static String check(
      long key, Object[] row, Throwable failure, int[] lastWriter, Object[][] pool, int keySpace) {
    if (failure != null) {
      return "key " + key + " failed: " + failure;
    }
    int writer = lastWriter[(int) key];
    if (writer < 0) {
      return row == null ? null : "key " + key + " was never written but has a row";
    }
    Object[] expected = keyedRow(pool, writer, keySpace);
    if (row == null) {
      return "key " + key + " has no row; expected row " + writer;
    }
    return Arrays.equals(row, expected)
        ? null
        : "key " + key + ": " + Arrays.toString(row) + " instead of " + Arrays.toString(expected);
  }

  /** For each key, the last of the first {@code upserts} W2 rows written with it, or -1. */
  static int[] lastWriters(int keySpace, long upserts) {
    int[] last = new int[keySpace];
    Arrays.fill(last, -1);
    for (int n = 0; n < upserts; n++) {
      last[(int) key(n, keySpace)] = n;
    }
    return last;
  }

  /** Row {@code n} of W2: pool row {@code n % poolSize} with its first column set to the key. */
  static Object[] keyedRow(Object[][] pool, long n, int keySpace) {
    Object[] row = pool[(int) (n % pool.length)].clone();
    row[0] = key(n, keySpace);
    return row;
  }

  static long key(long n, int keySpace) {
    return Math.floorMod(n * W2_KEY_MULTIPLIER, (long) keySpace);
  }

  private static void createTable(
      Connection connection, TablePath path, TableDescriptor descriptor) {
    connection.admin().createNamespaceIfNotExists(null, List.of(NAMESPACE));
    connection.admin().createTable(path, descriptor);
  }

  private static Compression compression(String name) {
    return switch (name) {
      case "none" -> Compression.NONE;
      case "zstd" -> Compression.ZSTD;
      default -> throw new IllegalArgumentException("Unknown compression " + name);
    };
  }

  /** The rows of the pool file {@link WideEvents#writePool} wrote. */
  static Object[][] readPool(Path file) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      int count = in.readInt();
      Object[][] pool = new Object[count][];
      for (int r = 0; r < count; r++) {
        Object[] row = new Object[WideEvents.COLUMNS];
        for (int c = 0; c < 5; c++) {
          row[c] = in.readLong();
        }
        for (int c = 5; c < 10; c++) {
          row[c] = in.readInt();
        }
        for (int c = 10; c < 15; c++) {
          row[c] = in.readDouble();
        }
        for (int c = 15; c < 20; c++) {
          row[c] = in.readUTF();
        }
        pool[r] = row;
      }
      return pool;
    }
  }

  private static String required(Map<String, String> arguments, String key) {
    String value = arguments.get(key);
    if (value == null) {
      throw new IllegalArgumentException("Missing argument " + key + "=...");
    }
    return value;
  }
}
