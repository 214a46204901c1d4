package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.lake.LakeCatalog;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader of {@link TableDiscoverySource}. A thread of its own lists the catalog every discovery
 * interval and, every {@value #TICK_MILLIS} ms, queues the rounds that are due; {@link #pollNext}
 * hands them to Flink on the task's thread, so a slow listing never blocks the task. A listing that
 * fails is logged (once per change) and tried again at the next interval; the tables of the last
 * good listing stay scheduled meanwhile.
 */
final class TableDiscoveryReader
    implements SourceReader<TieringWork, TableDiscoverySource.NoSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(TableDiscoveryReader.class);
  private static final long TICK_MILLIS = 100;

  private final TieringJobOptions options;
  private final Clock clock = Clock.systemUTC();
  private final TieringSchedule schedule = new TieringSchedule();
  private final Queue<TieringWork> due = new ConcurrentLinkedQueue<>();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-tiering-discovery");
            thread.setDaemon(true);
            return thread;
          });
  private CompletableFuture<Void> available = new CompletableFuture<>(); // guarded by this
  // Only touched on the scheduler's thread.
  private ServerConnections server;
  private Instant nextListing = Instant.MIN;
  private String lastListingError;

  TableDiscoveryReader(TieringJobOptions options) {
    this.options = requireNonNull(options, "options is null");
  }

  @Override
  public void start() {
    scheduler.scheduleWithFixedDelay(this::tick, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      Instant now = clock.instant();
      if (!now.isBefore(nextListing)) {
        nextListing = now.plus(options.discoveryInterval());
        list(now);
      }
      List<TieringWork> work = schedule.due(clock.instant());
      if (!work.isEmpty()) {
        due.addAll(work);
        synchronized (this) {
          available.complete(null);
        }
      }
    } catch (RuntimeException e) {
      // Never let the scheduled task die: the executor would stop ticking for good.
      LOG.warn("Tiering discovery tick failed", e);
    }
  }

  private void list(Instant now) {
    List<LakeCatalog.StreamTable> listing;
    try {
      if (server == null) {
        server = ServerConnections.open(options, false);
      }
      listing = server.lake().listStreamTables();
    } catch (RuntimeException e) {
      if (scheduler.isShutdown()) {
        return; // closing: the listing was interrupted
      }
      String message = e.getClass().getSimpleName() + ": " + e.getMessage();
      if (!message.equals(lastListingError)) {
        LOG.warn("Tiering cannot list the streaming tables of {}", options, e);
      }
      lastListingError = message;
      return;
    }
    if (lastListingError != null) {
      LOG.info("Tiering lists the streaming tables of {} again", options);
    }
    lastListingError = null;
    schedule.listed(listing, now);
  }

  @Override
  public InputStatus pollNext(ReaderOutput<TieringWork> output) {
    TieringWork work = due.poll();
    if (work == null) {
      return InputStatus.NOTHING_AVAILABLE;
    }
    output.collect(work, work.issuedAt);
    return due.isEmpty() ? InputStatus.NOTHING_AVAILABLE : InputStatus.MORE_AVAILABLE;
  }

  @Override
  public synchronized CompletableFuture<Void> isAvailable() {
    if (!due.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    return available;
  }

  @Override
  public List<TableDiscoverySource.NoSplit> snapshotState(long checkpointId) {
    return List.of();
  }

  @Override
  public void addSplits(List<TableDiscoverySource.NoSplit> splits) {}

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() throws Exception {
    scheduler.shutdownNow();
    if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
      LOG.warn("The tiering discovery thread did not stop within 10 s");
    }
    if (server != null) {
      server.close();
    }
  }
}
