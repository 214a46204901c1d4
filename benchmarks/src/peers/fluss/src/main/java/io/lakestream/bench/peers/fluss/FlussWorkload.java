package io.lakestream.bench.peers.fluss;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.lookup.Lookuper;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.client.table.writer.UpsertWriter;
import org.apache.fluss.cluster.ServerNode;
import org.apache.fluss.cluster.ServerType;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.LogFormat;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;

/**
 * The client of Apache Fluss in Lakestream's peer benchmarks (issue 37): runs one workload of
 * {@code io.lakestream.bench.PeerWorkload} through Fluss's public Java client and prints its
 * measurements as {@code RESULT name=value} lines.
 *
 * <p>Called as {@code FlussWorkload WORKLOAD key=value...} with the keys {@code pool}, {@code
 * table}, {@code rows}, {@code compression}, {@code buckets}, {@code keySpace} and {@code
 * inFlight}. The cluster's address and any other client setting come from system properties named
 * {@code fluss.} followed by a Fluss configuration key, e.g. {@code
 * -Dfluss.bootstrap.servers=127.0.0.1:9123} or {@code -Dfluss.client.lookup.batch-timeout=1ms};
 * they override the workload's own settings. The workload {@code READY} waits until the cluster has
 * a tablet server and prints {@code RESULT tablet_servers=N}.
 *
 * <p>Every workload fails (non-zero exit) on a wrong answer: a scan that reads more or fewer rows
 * than {@code rows}, a lookup that finds no row or a row that was not upserted under its key.
 */
public final class FlussWorkload {
  private static final String DATABASE = "lakestream_bench";
  private static final long KEY_MULTIPLIER = 2_654_435_761L;
  private static final String[] PREFIXES = {"b", "i", "d", "s"};
  private static final int COLUMNS = 20;
  private static final int FRESHNESS_WARMUP_SAMPLES = 10;
  private static final Duration PROGRESS_DEADLINE = Duration.ofSeconds(120);

  /**
   * Fluss's writer settings for throughput (W1 append and W2 upsert): the documented batch size and
   * batch timeout (the linger), written out so that the run does not depend on defaults changing.
   */
  private static final Map<String, String> THROUGHPUT_WRITER =
      Map.of("client.writer.batch-size", "2mb", "client.writer.batch-timeout", "100ms");

  private final Map<String, String> arguments;
  private final Object[][] pool;

  private FlussWorkload(Map<String, String> arguments, Object[][] pool) {
    this.arguments = arguments;
    this.pool = pool;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      throw new IllegalArgumentException("usage: FlussWorkload WORKLOAD key=value...");
    }
    Map<String, String> arguments = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int equals = args[i].indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("not key=value: " + args[i]);
      }
      arguments.put(args[i].substring(0, equals), args[i].substring(equals + 1));
    }
    String workload = args[0];
    Object[][] pool =
        arguments.containsKey("pool") ? readPool(Path.of(arguments.get("pool"))) : new Object[0][];
    FlussWorkload run = new FlussWorkload(arguments, pool);
    // Fluss's client threads are not all daemons: end the JVM here, also when the workload fails.
    try {
      switch (workload) {
        case "READY" -> run.ready();
        case "W1_APPEND" -> run.append();
        case "W1_SCAN" -> run.scan(false);
        case "W1_SCAN_PROJECTED" -> run.scan(true);
        case "W1_FRESHNESS" -> run.freshness();
        case "W2_UPSERT" -> run.upsert();
        case "W2_LOOKUP" -> run.lookup();
        default -> throw new IllegalArgumentException("unknown workload " + workload);
      }
    } catch (Throwable e) {
      e.printStackTrace(System.out);
      // Last, so that the tail of the output the benchmark reports holds it.
      System.out.println("FAILED " + workload + ": " + e);
      System.out.flush();
      System.exit(1);
    }
    System.out.flush();
    System.exit(0);
  }

  private void ready() throws Exception {
    long deadline = System.nanoTime() + PROGRESS_DEADLINE.toNanos();
    try (Connection connection = connect(Map.of());
        Admin admin = connection.getAdmin()) {
      while (true) {
        try {
          List<ServerNode> nodes = admin.getServerNodes().get(10, TimeUnit.SECONDS);
          long tablets =
              nodes.stream().filter(n -> n.serverType() == ServerType.TABLET_SERVER).count();
          if (tablets > 0) {
            admin.createDatabase(DATABASE, DatabaseDescriptor.EMPTY, true).get();
            result("tablet_servers", tablets);
            return;
          }
        } catch (Exception e) {
          if (System.nanoTime() - deadline > 0) {
            throw e;
          }
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "no tablet server registered within " + PROGRESS_DEADLINE);
        }
        Thread.sleep(100);
      }
    }
  }

  private void append() throws Exception {
    int rows = intArgument("rows");
    try (Connection connection = connect(THROUGHPUT_WRITER)) {
      TablePath path = createTable(connection, false, 1);
      try (Table table = connection.getTable(path)) {
        AppendWriter writer = table.newAppend().createWriter();
        GenericRow[] rowPool = rowPool();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong acknowledged = new AtomicLong();
        long start = System.nanoTime();
        for (int n = 0; n < rows; n++) {
          writer
              .append(rowPool[n % rowPool.length])
              .whenComplete(
                  (r, e) -> {
                    if (e != null) {
                      failure.compareAndSet(null, e);
                    } else {
                      acknowledged.incrementAndGet();
                    }
                  });
        }
        writer.flush();
        long end = System.nanoTime();
        check(failure);
        if (acknowledged.get() != rows) {
          throw new IllegalStateException(acknowledged.get() + " of " + rows + " acknowledged");
        }
        result("rows_per_s", rows / ((end - start) / 1e9));
      }
    }
  }

  private void scan(boolean projected) throws Exception {
    int rows = intArgument("rows");
    try (Connection connection = connect(Map.of());
        Table table = connection.getTable(tablePath())) {
      LogScanner scanner =
          projected
              ? table.newScan().project(List.of("b0", "s0")).createLogScanner()
              : table.newScan().createLogScanner();
      long read = 0;
      long checksum = 0;
      long stringChars = 0;
      long touched = 0;
      long lastProgress = System.nanoTime();
      long start = System.nanoTime();
      scanner.subscribeFromBeginning(0);
      while (read < rows) {
        ScanRecords records = scanner.poll(Duration.ofSeconds(1));
        if (records.isEmpty()) {
          if (System.nanoTime() - lastProgress > PROGRESS_DEADLINE.toNanos()) {
            throw new IllegalStateException(
                "read " + read + " of " + rows + " rows, then nothing for " + PROGRESS_DEADLINE);
          }
          continue;
        }
        lastProgress = System.nanoTime();
        for (ScanRecord record : records) {
          InternalRow row = record.getRow();
          if (projected) {
            String s0 = row.getString(1).toString();
            int length = s0.length();
            checksum += row.getLong(0) + length;
            stringChars += length;
            touched += s0.hashCode();
          } else {
            checksum += row.getLong(0);
            for (int c = 1; c < 5; c++) {
              touched += row.getLong(c);
            }
            for (int c = 5; c < 10; c++) {
              touched += row.getInt(c);
            }
            for (int c = 10; c < 15; c++) {
              touched += Double.doubleToRawLongBits(row.getDouble(c));
            }
            for (int c = 15; c < 20; c++) {
              String value = row.getString(c).toString();
              int length = value.length();
              checksum += length;
              stringChars += length;
              touched += value.hashCode();
            }
          }
          read++;
        }
      }
      long end = System.nanoTime();
      scanner.close();
      if (read != rows) {
        throw new IllegalStateException("read " + read + " rows where " + rows + " were written");
      }
      System.out.println("touched " + touched);
      result("rows_per_s", rows / ((end - start) / 1e9));
      // Exact, though the benchmark parses it as a double: checksum wraps around as a long.
      System.out.println("RESULT checksum=" + checksum);
      result("string_chars", stringChars);
    }
  }

  private void freshness() throws Exception {
    int samples = intArgument("rows");
    int warmup = Math.min(FRESHNESS_WARMUP_SAMPLES, samples);
    int total = warmup + samples;
    try (Connection connection = connect(Map.of())) {
      TablePath path = createTable(connection, false, 1);
      long endOffset;
      try (Admin admin = connection.getAdmin()) {
        endOffset =
            admin.listOffsets(path, List.of(0), new OffsetSpec.LatestSpec()).bucketResult(0).get();
      }
      try (Table table = connection.getTable(path)) {
        AtomicLongArray seen = new AtomicLongArray(total);
        AtomicReference<Throwable> readerFailure = new AtomicReference<>();
        LogScanner scanner = table.newScan().createLogScanner();
        scanner.subscribe(0, endOffset);
        Thread reader =
            new Thread(
                () -> {
                  try {
                    int count = 0;
                    while (count < total) {
                      for (ScanRecord record : scanner.poll(Duration.ofMillis(100))) {
                        long now = System.nanoTime();
                        int sample = (int) record.getRow().getLong(0);
                        if (sample < 0 || sample >= total || !seen.compareAndSet(sample, 0, now)) {
                          throw new IllegalStateException("unexpected or repeated row " + sample);
                        }
                        count++;
                      }
                    }
                  } catch (Throwable e) {
                    readerFailure.set(e);
                  }
                },
                "fluss-freshness-reader");
        reader.setDaemon(true);
        reader.start();
        AppendWriter writer = table.newAppend().createWriter();
        GenericRow[] rowPool = rowPool();
        double[] ackToReader = new double[samples];
        double[] sendToReader = new double[samples];
        for (int i = 0; i < total; i++) {
          GenericRow row = copy(rowPool[i % rowPool.length]);
          row.setField(0, (long) i);
          long send = System.nanoTime();
          CompletableFuture<?> acknowledgement = writer.append(row);
          writer.flush();
          acknowledgement.get();
          long ack = System.nanoTime();
          long deadline = ack + PROGRESS_DEADLINE.toNanos();
          while (seen.get(i) == 0) {
            check(readerFailure);
            if (System.nanoTime() - deadline > 0) {
              throw new IllegalStateException("the reader did not see row " + i);
            }
            LockSupport.parkNanos(20_000);
          }
          if (i >= warmup) {
            long visible = seen.get(i);
            // The reader may see a row before the writer's thread runs on after its
            // acknowledgement.
            ackToReader[i - warmup] = Math.max(0, visible - ack) / 1e6;
            sendToReader[i - warmup] = (visible - send) / 1e6;
          }
        }
        reader.join(PROGRESS_DEADLINE.toMillis());
        check(readerFailure);
        scanner.close();
        result("ack_to_reader_p50_ms", percentile(ackToReader, 0.50));
        result("ack_to_reader_p99_ms", percentile(ackToReader, 0.99));
        result("send_to_reader_p50_ms", percentile(sendToReader, 0.50));
        result("send_to_reader_p99_ms", percentile(sendToReader, 0.99));
      }
    }
  }

  private void upsert() throws Exception {
    int rows = intArgument("rows");
    int keySpace = intArgument("keySpace");
    try (Connection connection = connect(THROUGHPUT_WRITER)) {
      TablePath path = createTable(connection, true, intArgument("buckets"));
      try (Table table = connection.getTable(path)) {
        UpsertWriter writer = table.newUpsert().createWriter();
        GenericRow[] rowPool = rowPool();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong acknowledged = new AtomicLong();
        long start = System.nanoTime();
        for (int n = 0; n < rows; n++) {
          GenericRow row = copy(rowPool[n % rowPool.length]);
          row.setField(0, key(n, keySpace));
          writer
              .upsert(row)
              .whenComplete(
                  (r, e) -> {
                    if (e != null) {
                      failure.compareAndSet(null, e);
                    } else {
                      acknowledged.incrementAndGet();
                    }
                  });
        }
        writer.flush();
        long end = System.nanoTime();
        check(failure);
        if (acknowledged.get() != rows) {
          throw new IllegalStateException(acknowledged.get() + " of " + rows + " acknowledged");
        }
        result("rows_per_s", rows / ((end - start) / 1e9));
      }
    }
  }

  /**
   * Looks up random keys, {@code inFlight} at a time through Fluss's asynchronous {@link Lookuper}
   * (which batches concurrent lookups per bucket, see {@code client.lookup.*}), and checks each
   * answer: the row must exist and be the pool row of an upsert {@code n} whose key is the one
   * looked up, i.e. {@code n ≡ key * 2654435761^-1 (mod keySpace)}, so {@code n = n0 + m *
   * keySpace}; the last upsert of a key wins, and {@code m} below 64 covers up to 64 upserts per
   * key.
   */
  private void lookup() throws Exception {
    int lookups = intArgument("rows");
    int keySpace = intArgument("keySpace");
    int inFlight = intArgument("inFlight");
    long inverse =
        BigInteger.valueOf(KEY_MULTIPLIER % keySpace)
            .modInverse(BigInteger.valueOf(keySpace))
            .longValue();
    Map<Long, Integer> poolIndexByB1 = new HashMap<>();
    for (int j = 0; j < pool.length; j++) {
      poolIndexByB1.put((Long) pool[j][1], j);
    }
    long[] keys = new long[lookups];
    SplittableRandom random = new SplittableRandom(37);
    for (int i = 0; i < lookups; i++) {
      keys[i] = random.nextInt(keySpace);
    }
    try (Connection connection = connect(Map.of());
        Table table = connection.getTable(tablePath())) {
      Lookuper lookuper = table.newLookup().createLookuper();
      Semaphore permits = new Semaphore(inFlight);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      long start = System.nanoTime();
      for (int i = 0; i < lookups && failure.get() == null; i++) {
        long key = keys[i];
        permits.acquire();
        lookuper
            .lookup(GenericRow.of(key))
            .whenComplete(
                (result, e) -> {
                  try {
                    if (e != null) {
                      failure.compareAndSet(null, e);
                    } else {
                      String wrong =
                          wrongAnswer(
                              key, result.getSingletonRow(), keySpace, inverse, poolIndexByB1);
                      if (wrong != null) {
                        failure.compareAndSet(null, new IllegalStateException(wrong));
                      }
                    }
                  } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                  } finally {
                    permits.release();
                  }
                });
      }
      permits.acquire(inFlight);
      long end = System.nanoTime();
      check(failure);
      result("lookups_per_s", lookups / ((end - start) / 1e9));
    }
  }

  private String wrongAnswer(
      long key, InternalRow row, int keySpace, long inverse, Map<Long, Integer> poolIndexByB1) {
    if (row == null) {
      return "no row for key " + key;
    }
    if (row.getLong(0) != key) {
      return "key " + key + " answered with the row of key " + row.getLong(0);
    }
    Integer j = row.isNullAt(1) ? null : poolIndexByB1.get(row.getLong(1));
    if (j == null) {
      return "key " + key + " answered with a row that is not in the pool";
    }
    Object[] expected = pool[j];
    for (int c = 1; c < COLUMNS; c++) {
      if (!expected[c].equals(value(row, c))) {
        return "key " + key + ": column " + c + " is " + value(row, c) + ", not " + expected[c];
      }
    }
    long n0 = Math.floorMod(key * inverse, (long) keySpace);
    for (long m = 0; m < 64; m++) {
      if ((n0 + m * keySpace) % pool.length == j) {
        return null;
      }
    }
    return "key " + key + " answered with pool row " + j + ", which no upsert of it wrote";
  }

  private static Object value(InternalRow row, int column) {
    return switch (column / 5) {
      case 0 -> row.getLong(column);
      case 1 -> row.getInt(column);
      case 2 -> row.getDouble(column);
      default -> row.getString(column).toString();
    };
  }

  private TablePath createTable(Connection connection, boolean keyed, int buckets)
      throws Exception {
    Schema.Builder schema = Schema.newBuilder();
    DataType[] types = {
      DataTypes.BIGINT(), DataTypes.INT(), DataTypes.DOUBLE(), DataTypes.STRING()
    };
    for (int t = 0; t < PREFIXES.length; t++) {
      for (int c = 0; c < 5; c++) {
        String name = keyed && t == 0 && c == 0 ? "id" : PREFIXES[t] + c;
        schema.column(name, keyed && t == 0 && c == 0 ? types[t].copy(false) : types[t]);
      }
    }
    if (keyed) {
      schema.primaryKey("id");
    }
    TableDescriptor descriptor =
        TableDescriptor.builder()
            .schema(schema.build())
            .distributedBy(buckets, keyed ? new String[] {"id"} : new String[0])
            .logFormat(LogFormat.ARROW)
            .property(
                "table.log.arrow.compression.type",
                arguments.get("compression").equals("zstd") ? "ZSTD" : "NONE")
            .build();
    TablePath path = tablePath();
    try (Admin admin = connection.getAdmin()) {
      admin.createDatabase(DATABASE, DatabaseDescriptor.EMPTY, true).get();
      admin.createTable(path, descriptor, false).get();
      awaitLeaders(admin, path, buckets);
    }
    return path;
  }

  /**
   * Waits until every bucket of a new table has a leader that answers, so that the timed writes do
   * not include the table's creation on the tablet server.
   */
  private static void awaitLeaders(Admin admin, TablePath path, int buckets) throws Exception {
    List<Integer> all = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      all.add(b);
    }
    long deadline = System.nanoTime() + PROGRESS_DEADLINE.toNanos();
    while (true) {
      try {
        admin.listOffsets(path, all, new OffsetSpec.LatestSpec()).all().get(10, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(20);
      }
    }
  }

  private TablePath tablePath() {
    return TablePath.of(DATABASE, arguments.get("table"));
  }

  /**
   * A connection with {@code settings} overridden by the system properties named {@code fluss.KEY}.
   */
  private static Connection connect(Map<String, String> settings) {
    Configuration configuration = new Configuration();
    settings.forEach(configuration::setString);
    Properties properties = System.getProperties();
    for (String name : properties.stringPropertyNames()) {
      if (name.startsWith("fluss.")) {
        configuration.setString(name.substring("fluss.".length()), properties.getProperty(name));
      }
    }
    return ConnectionFactory.createConnection(configuration);
  }

  private GenericRow[] rowPool() {
    GenericRow[] rows = new GenericRow[pool.length];
    for (int r = 0; r < pool.length; r++) {
      GenericRow row = new GenericRow(COLUMNS);
      for (int c = 0; c < COLUMNS; c++) {
        Object value = pool[r][c];
        row.setField(c, value instanceof String s ? BinaryString.fromString(s) : value);
      }
      rows[r] = row;
    }
    return rows;
  }

  private static GenericRow copy(GenericRow row) {
    GenericRow copy = new GenericRow(COLUMNS);
    for (int c = 0; c < COLUMNS; c++) {
      copy.setField(c, row.getField(c));
    }
    return copy;
  }

  private static long key(long n, int keySpace) {
    return (n * KEY_MULTIPLIER) % keySpace;
  }

  /** The pool file of {@code WideEvents.writePool}. */
  private static Object[][] readPool(Path file) throws IOException {
    try (InputStream stream = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(stream))) {
      int size = in.readInt();
      List<Object[]> rows = new ArrayList<>(size);
      for (int r = 0; r < size; r++) {
        Object[] row = new Object[COLUMNS];
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
        rows.add(row);
      }
      return rows.toArray(new Object[0][]);
    }
  }

  private int intArgument(String name) {
    String value = arguments.get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing argument " + name);
    }
    return Integer.parseInt(value);
  }

  private static void check(AtomicReference<Throwable> failure) throws Exception {
    Throwable e = failure.get();
    if (e instanceof Exception exception) {
      throw exception;
    }
    if (e != null) {
      throw new IllegalStateException(e);
    }
  }

  /** Nearest-rank percentile. */
  private static double percentile(double[] values, double quantile) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(quantile * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  private static void result(String name, double value) {
    System.out.println("RESULT " + name + "=" + value);
  }
}
