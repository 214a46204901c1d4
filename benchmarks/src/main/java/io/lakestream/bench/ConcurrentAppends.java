package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * Concurrent writers appending to one table through Iceberg's client: each writer loads the table
 * once, then commits {@code appendsPerWriter} fast appends of one fake data file each (a path, a
 * size and a row count; no file is written). A commit that loses a race gets 409 from the catalog
 * and Iceberg's client retries it on fresh metadata, as the table's {@code commit.retry.*}
 * properties allow.
 *
 * <p>Attempts are counted from Iceberg's own commit reports, so {@code attempts - commits} is the
 * number of conflicts the writers retried. After the writers finish, the table is loaded again and
 * every acknowledged commit must be there: one snapshot and one data file each.
 *
 * <p>Each writer writes its new manifest on its own thread. With Iceberg's default worker pool the
 * committing thread polls for that write in 10 ms sleeps, a wait of the client's making on every
 * commit whichever catalog answers (measured here: 27 ms of wall time for 5 ms of CPU per commit
 * preparation, and half the commit rate against a fast catalog).
 */
final class ConcurrentAppends {
  private static final ExecutorService MANIFESTS_ON_CALLER = new CallerRuns();

  private final CatalogUnderTest catalog;
  private final int writers;
  private final int appendsPerWriter;

  ConcurrentAppends(CatalogUnderTest catalog, int writers, int appendsPerWriter) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    if (writers < 1 || appendsPerWriter < 1) {
      throw new IllegalArgumentException(
          "Need at least one writer and one append: " + writers + " x " + appendsPerWriter);
    }
    this.writers = writers;
    this.appendsPerWriter = appendsPerWriter;
  }

  /**
   * Runs the writers against {@code table}, which must exist and have no snapshot yet.
   *
   * @throws IllegalStateException when a writer fails: a commit that ran out of retries or whose
   *     outcome the catalog could not tell (a 5xx answer)
   */
  Result run(TableIdentifier table) throws InterruptedException {
    LongAdder attempts = new LongAdder();
    MetricsReporter attemptCounter =
        report -> {
          if (report instanceof CommitReport commit) {
            CounterResult counted = commit.commitMetrics().attempts();
            attempts.add(counted == null ? 1 : counted.value());
          }
        };
    CountDownLatch loaded = new CountDownLatch(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Writer> running = new ArrayList<>(writers);
    List<Thread> threads = new ArrayList<>(writers);
    for (int i = 0; i < writers; i++) {
      Writer writer = new Writer(i, table, attemptCounter, loaded, start);
      running.add(writer);
      threads.add(Thread.ofPlatform().name("append-writer-" + i).start(writer));
    }
    loaded.await();
    Duration serverCpuBefore = catalog.serverCpuTime();
    long startNanos = System.nanoTime();
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    Duration serverCpu = catalog.serverCpuTime().minus(serverCpuBefore);

    int acknowledged = 0;
    for (Writer writer : running) {
      if (writer.failure != null) {
        throw new IllegalStateException(
            catalog.name() + " writer " + writer.index + " failed", writer.failure);
      }
      acknowledged += writer.acknowledged;
    }
    Table result = catalog.loadTable(table);
    int snapshots = 0;
    for (Snapshot ignored : result.snapshots()) {
      snapshots++;
    }
    Snapshot current = result.currentSnapshot();
    long dataFiles =
        current == null
            ? 0
            : Long.parseLong(
                current.summary().getOrDefault(SnapshotSummary.TOTAL_DATA_FILES_PROP, "0"));
    long found = Math.min(snapshots, dataFiles);
    int lost = (int) Math.max(0, acknowledged - found);
    return new Result(
        acknowledged,
        attempts.sum(),
        seconds,
        lost,
        serverCpu.toNanos() / 1e6 / Math.max(1, acknowledged));
  }

  /**
   * What one run measured.
   *
   * @param commits appends the catalog acknowledged
   * @param attempts commit attempts behind them, retries of conflicts included
   * @param seconds wall time from releasing the writers to the last one finishing
   * @param lost acknowledged appends missing from the table afterwards
   * @param serverCpuMillisPerCommit CPU time of the server process while the writers ran, per
   *     acknowledged commit
   */
  record Result(
      int commits, long attempts, double seconds, int lost, double serverCpuMillisPerCommit) {
    double commitsPerSecond() {
      return commits / seconds;
    }

    double attemptsPerCommit() {
      return commits == 0 ? 0 : attempts / (double) commits;
    }
  }

  /** One writer thread; its fields are read by the coordinating thread after {@code join}. */
  private final class Writer implements Runnable {
    private final int index;
    private final TableIdentifier table;
    private final MetricsReporter reporter;
    private final CountDownLatch loaded;
    private final CountDownLatch start;
    private int acknowledged;
    private Throwable failure;

    Writer(
        int index,
        TableIdentifier table,
        MetricsReporter reporter,
        CountDownLatch loaded,
        CountDownLatch start) {
      this.index = index;
      this.table = table;
      this.reporter = reporter;
      this.loaded = loaded;
      this.start = start;
    }

    @Override
    public void run() {
      Table writable;
      try {
        writable = catalog.loadTable(table, reporter);
      } catch (RuntimeException | Error e) {
        failure = e;
        return;
      } finally {
        loaded.countDown();
      }
      try {
        start.await();
        for (int i = 0; i < appendsPerWriter; i++) {
          writable
              .newFastAppend()
              .scanManifestsWith(MANIFESTS_ON_CALLER)
              .appendFile(dataFile(writable, i))
              .commit();
          acknowledged++;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = e;
      } catch (RuntimeException | Error e) {
        failure = e;
      }
    }

    private DataFile dataFile(Table writable, int append) {
      return DataFiles.builder(writable.spec())
          .withPath(writable.location() + "/data/writer-" + index + "-" + append + ".parquet")
          .withFileSizeInBytes(4096)
          .withRecordCount(100)
          .withFormat(FileFormat.PARQUET)
          .build();
    }
  }

  /** Runs each task on the thread that submits it; never shuts down. */
  private static final class CallerRuns extends AbstractExecutorService {
    @Override
    public void execute(Runnable task) {
      task.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}
