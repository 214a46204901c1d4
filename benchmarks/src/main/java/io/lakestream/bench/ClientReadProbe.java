package io.lakestream.bench;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.Compression;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A user's reading path measured in a fresh JVM against a running server (issue 37): the W1 scan
 * that reads every value through {@link ScanBatch#row()}, the scan projected to {@code b0, s0}, and
 * W2 point lookups with 1 or more in flight, each through the ordinary client as an application
 * calls it. One run per process, so that each figure includes the JIT's warm-up as a user's does.
 *
 * <p>Usage: {@code setup HTTP_BASE RPC_PORT ROWS KEYS}, {@code scan RPC_PORT TABLE full|projected},
 * {@code lookup RPC_PORT KEYS LOOKUPS IN_FLIGHT}; results as {@code RESULT name=value} lines.
 * Tables live in the namespace {@code probe}: {@code w1} (uncompressed), {@code w1_zstd} and the
 * primary-key {@code w2}.
 */
public final class ClientReadProbe {
  private static final long LOOKUP_SEED = 37L;

  private ClientReadProbe() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "setup" -> setup(URI.create(args[1]), Integer.parseInt(args[2]), args[3], args[4]);
      case "scan" -> scan(Integer.parseInt(args[1]), args[2], args[3].equals("projected"));
      case "lookup" ->
          lookup(
              Integer.parseInt(args[1]),
              Integer.parseInt(args[2]),
              Integer.parseInt(args[3]),
              Integer.parseInt(args[4]));
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  private static void setup(URI base, int rpcPort, String rowsArg, String keysArg)
      throws Exception {
    int rows = Integer.parseInt(rowsArg);
    int keys = Integer.parseInt(keysArg);
    Object[][] pool = WideEvents.rowPool();
    try (RESTCatalog catalog = LaunchedServer.catalog(base);
        Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      catalog.createNamespace(Namespace.of("probe"));
      for (String name : List.of("w1", "w1_zstd")) {
        catalog
            .buildTable(TableIdentifier.of("probe", name), WideEvents.schema())
            .withPartitionSpec(PartitionSpec.unpartitioned())
            .withProperties(
                Map.of(
                    LakestreamProperties.KIND, TableKind.LOG.value(),
                    LakestreamProperties.BUCKETS, "1",
                    LakestreamProperties.TIERING_INTERVAL, "24h"))
            .create();
        Table table = connection.table(TablePath.of("probe." + name));
        WriterOptions options =
            WriterOptions.defaults()
                .withCompression(name.equals("w1") ? Compression.NONE : Compression.ZSTD);
        try (AppendWriter writer = table.newAppendWriter(options)) {
          for (int i = 0; i < rows; i++) {
            Object[] row = pool[i % WideEvents.DISTINCT_ROWS];
            row[0] = (long) i;
            writer.append(row);
          }
          writer.flush();
        }
        System.out.println("wrote " + name);
      }
      catalog
          .buildTable(TableIdentifier.of("probe", "w2"), WideEvents.keyedSchema())
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperties(
              Map.of(
                  LakestreamProperties.KIND, TableKind.PRIMARY_KEY.value(),
                  LakestreamProperties.BUCKETS, "1",
                  LakestreamProperties.TIERING_INTERVAL, "24h"))
          .create();
      Table table = connection.table(TablePath.of("probe.w2"));
      try (UpsertWriter writer = table.newUpsertWriter(WriterOptions.defaults())) {
        for (int i = 0; i < keys; i++) {
          Object[] row = pool[i % WideEvents.DISTINCT_ROWS].clone();
          row[0] = (long) i;
          writer.upsert(row);
        }
        writer.flush();
      }
      System.out.println("wrote w2");
    }
  }

  /** CPU time of this process so far, in seconds: unlike wall time, little moved by other load. */
  private static double cpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  private static void scan(int rpcPort, String name, boolean projected) throws Exception {
    double cpuStart = cpuSeconds();
    long start = System.nanoTime();
    long rows = 0;
    long checksum = 0;
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      Table table = connection.table(TablePath.of("probe." + name));
      long end = table.latestOffset(0);
      try (LogScanner scanner =
          projected
              ? table.newScanner(List.of("b0", "s0"), BatchFilter.MATCH_ALL)
              : table.newScanner()) {
        scanner.subscribe(0, LogScanner.earliest());
        while (scanner.position(0) < end) {
          for (ScanBatch batch : scanner.poll(Duration.ofSeconds(5))) {
            try (batch) {
              ScanRow row = batch.row();
              if (projected) {
                while (row.next()) {
                  checksum += row.getLong(0) + row.getString(1).length();
                }
              } else {
                while (row.next()) {
                  for (int c = 0; c < 5; c++) {
                    checksum += row.getLong(c);
                    checksum += row.getInt(5 + c);
                    checksum += (long) row.getDouble(10 + c);
                    checksum += row.getString(15 + c).length();
                  }
                }
              }
              rows += batch.rowCount();
            }
          }
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpu = cpuSeconds() - cpuStart;
    System.out.printf("RESULT rows_per_cpu_s=%.0f%n", rows / cpu);
    System.out.println("RESULT rows=" + rows);
    System.out.println("RESULT checksum=" + checksum);
    System.out.printf("RESULT rows_per_s=%.0f%n", rows / seconds);
  }

  private static void lookup(int rpcPort, int keys, int lookups, int inFlight) throws Exception {
    double cpuStart = cpuSeconds();
    long[] wanted = new SplittableRandom(LOOKUP_SEED).longs(lookups, 0, keys).toArray();
    long start = System.nanoTime();
    AtomicLong found = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      Lookuper lookuper = connection.table(TablePath.of("probe.w2")).newLookuper();
      // inFlight threads, each waiting for its lookup, as an application's request threads do.
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < inFlight; t++) {
        int thread = t;
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int i = thread; i < wanted.length; i += inFlight) {
                          CompletableFuture<Object[]> answer = lookuper.lookup(wanted[i]);
                          Object[] row = answer.get();
                          if (row == null || (Long) row[0] != wanted[i]) {
                            throw new IllegalStateException("wrong answer for " + wanted[i]);
                          }
                          found.incrementAndGet();
                        }
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    }));
      }
      for (Thread thread : threads) {
        thread.join();
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.println("RESULT found=" + found.get());
    System.out.printf("RESULT lookups_per_s=%.0f%n", lookups / seconds);
    System.out.printf("RESULT lookups_per_cpu_s=%.0f%n", lookups / (cpuSeconds() - cpuStart));
  }
}
