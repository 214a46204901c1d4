package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringRound;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tiering rounds for every streaming table of a catalog on a schedule, each into its {@link
 * LakeFormat} with that format's {@link LakeTierer}, picked from a registry keyed by format ({@link
 * LakeTierers#standard}): each table every {@link TieringConfig#INTERVAL_PROPERTY} (default 30 s,
 * at least 1 s), its first round one interval after the service finds it. The interval runs from
 * the start of one round to the start of the next, so rounds that take a while do not stretch it,
 * and a round that takes longer than the interval is followed by the next one at once. Tables are
 * found by listing the catalog every {@link TieringConfig#discoveryInterval()}; a dropped table
 * stops being tiered at the next listing.
 *
 * <p>Rounds run on a pool of {@link TieringConfig#threads()} threads, so that the rounds of many
 * tables overlap (a round mostly waits: on the log's reads, its files' writes, the catalog's
 * commit); rounds of one table never overlap. {@link #start()} dispatches every {@value
 * #TICK_MILLIS} ms on the service's own thread: a listing if one is due, then a round for each due
 * table that has none running, without waiting for them, so a slow round holds up only its own
 * table (and one of the pool's threads) and never the server's housekeeping. A table whose rounds
 * overrun its interval runs its next round as soon as the last ends, when a thread is free; tables
 * are dispatched in the order they are listed, and every due table gets its turn before any table
 * gets a second. {@link #tick()} does the same and then waits for every running round to end (for
 * callers that drive the service step by step). A round that fails is recorded as the table's last
 * error (its status says {@code failed}), logged when the error differs from the table's previous
 * one, and retried one interval after it ended. Nothing one table does (an invalid property, a
 * round that throws, a listing entry that cannot be scheduled) stops the rounds of other tables:
 * each table's scheduling and round is isolated, and the periodic dispatch itself never dies.
 *
 * <p>After dispatching, the service sweeps the tables that are due for it with {@link OrphanFiles}:
 * a table right after the service finds it (which removes what a process that died mid-round left),
 * then every {@link TieringConfig#orphanFileAge()}, but not more often than the discovery interval.
 * A sweep that fails is logged and tried again at the table's next sweep; it never stops tiering.
 *
 * <p>Thread safe: dispatches are serialised; {@link #state}, {@link #tables} and {@link
 * #statistics} may be read from any thread.
 */
public final class TieringService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TieringService.class);
  // Rounds start at most this late; a dispatch with nothing due costs a few map lookups.
  private static final long TICK_MILLIS = 100;
  // The latest instant a round is scheduled for: still a millisecond timestamp.
  private static final Instant LATEST = Instant.ofEpochMilli(Long.MAX_VALUE);

  /**
   * The state of a table the service tiers.
   *
   * @param nextRound when its next round runs, or null when it is not tiered because its settings
   *     are invalid ({@code lastError} says why)
   * @param lastRound the last round that finished, or null
   * @param lastError what the last round failed with, or why the table is not tiered; null when the
   *     last round did not fail
   */
  public record TableState(
      Duration interval, Instant nextRound, TieringRound lastRound, String lastError) {
    /** Whether the table's last round failed or it cannot be tiered. */
    public boolean failed() {
      return lastError != null;
    }
  }

  private final LakeCatalog lake;
  private final Map<LakeFormat, LakeTierer> tierers;
  // The lake format of each table, from its properties at the last listing.
  private final Map<TablePath, LakeFormat> formats = new ConcurrentHashMap<>();
  // Tables whose lake format property is invalid: their rounds fail with this message.
  private final Map<TablePath, String> formatErrors = new ConcurrentHashMap<>();
  private final TieringConfig config;
  private final Clock clock;
  private final Map<TablePath, TableState> tables = new ConcurrentHashMap<>();
  private final OrphanFiles orphans;
  private final Duration sweepInterval;
  // Only touched by dispatch(), which is serialised.
  private final Map<TablePath, Instant> nextSweep = new HashMap<>();
  private final TieringStatistics statistics = new TieringStatistics();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "lakestream-tiering");
            thread.setDaemon(true);
            return thread;
          });
  private final ExecutorService rounds;
  // Tables with a round submitted or running, each with the round's outcome.
  private final Map<TablePath, Future<?>> running = new ConcurrentHashMap<>();
  private Instant nextDiscovery = Instant.MIN;
  // What the last failed listing and the last failed dispatch said, to log each failure once.
  private volatile String lastListingError;
  private volatile String lastTickError;

  public TieringService(
      LakeCatalog lake, IcebergTableTiering tiering, TieringConfig config, Clock clock) {
    this(
        lake,
        Map.of(LakeFormat.ICEBERG, requireNonNull(tiering, "tiering is null")),
        config,
        clock);
  }

  /**
   * @param tierers the tierer of each lake format ({@link LakeTierers#standard}); it must have
   *     {@link LakeFormat#ICEBERG}'s. Rounds of tables whose format has none fail with a message
   *     saying so
   */
  public TieringService(
      LakeCatalog lake, Map<LakeFormat, LakeTierer> tierers, TieringConfig config, Clock clock) {
    this.lake = requireNonNull(lake, "lake is null");
    this.tierers = Map.copyOf(tierers);
    if (!this.tierers.containsKey(LakeFormat.ICEBERG)) {
      throw new IllegalArgumentException(
          "tierers has no tierer for " + LakeFormat.ICEBERG.value() + ": " + tierers.keySet());
    }
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.orphans = new OrphanFiles(lake, config.orphanFileAge(), clock);
    this.sweepInterval =
        config.orphanFileAge().compareTo(config.discoveryInterval()) > 0
            ? config.orphanFileAge()
            : config.discoveryInterval();
    AtomicInteger threads = new AtomicInteger();
    this.rounds =
        Executors.newFixedThreadPool(
            config.threads(),
            runnable -> {
              Thread thread =
                  new Thread(runnable, "lakestream-tiering-round-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Dispatches every {@value #TICK_MILLIS} ms on the service's thread until {@link #close()}. */
  public void start() {
    scheduler.scheduleWithFixedDelay(
        this::dispatchLogged, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void dispatchLogged() {
    try {
      dispatch();
    } catch (Throwable e) {
      // Never let the scheduled task die: the executor would stop ticking for good.
      String message = describe(e);
      if (!message.equals(lastTickError)) {
        LOG.warn("Tiering dispatch failed", e);
      } else {
        LOG.debug("Tiering dispatch failed again", e);
      }
      lastTickError = message;
      return;
    }
    lastTickError = null;
  }

  /**
   * Lists the catalog if a listing is due, starts the rounds that are due and waits until no round
   * runs, its own or one started before.
   */
  public void tick() {
    dispatch();
    for (Future<?> round : List.copyOf(running.values())) {
      try {
        round.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | CancellationException e) {
        // runRound records every failure of a round; nothing else can end one abruptly.
      }
    }
  }

  /**
   * Lists the catalog if a listing is due, submits a round for each due table that has none
   * running, then sweeps the tables due for it.
   */
  private synchronized void dispatch() {
    Instant now = clock.instant();
    if (!now.isBefore(nextDiscovery)) {
      nextDiscovery = later(now, config.discoveryInterval());
      discover(now);
    }
    for (Map.Entry<TablePath, TableState> entry : tables.entrySet()) {
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      TablePath path = entry.getKey();
      TableState state = entry.getValue();
      if (state.nextRound() == null
          || clock.instant().isBefore(state.nextRound())
          || running.containsKey(path)) {
        continue;
      }
      FutureTask<Void> round =
          new FutureTask<>(
              () -> {
                try {
                  runRound(path, state);
                } finally {
                  running.remove(path);
                }
                return null;
              });
      running.put(path, round);
      try {
        rounds.execute(round);
      } catch (RejectedExecutionException e) {
        running.remove(path); // closed meanwhile
        return;
      }
    }
    sweepOrphans();
  }

  /**
   * Runs one table's round and records its outcome. Whatever the round throws stays with this
   * table: it is recorded as the table's last error and logged when it differs from the previous
   * one (once per change of state, not once per retry).
   */
  private void runRound(TablePath path, TableState state) {
    TieringRound round = null;
    String error = null;
    Instant started = clock.instant();
    try {
      round = tierOnce(path);
      statistics.roundFinished(path, round, started, clock.instant());
    } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
      statistics.roundFailed(path);
      error = describe(e);
      if (!error.equals(state.lastError())) {
        LOG.warn("Tiering round of {} failed; retrying every {}", path, state.interval(), e);
      } else {
        LOG.debug("Tiering round of {} failed again", path, e);
      }
    }
    if (error == null && state.lastError() != null) {
      LOG.info("Tiering of {} works again after: {}", path, state.lastError());
    }
    TieringRound finished = round;
    String failure = error;
    Instant ended = clock.instant();
    tables.computeIfPresent(
        path,
        (key, current) ->
            new TableState(
                current.interval(),
                current.nextRound() == null
                    ? null
                    // A failed round is retried one interval after it ended, so a round that
                    // fails slowly is not retried back to back.
                    : later(failure == null ? started : ended, current.interval()),
                finished == null ? current.lastRound() : finished,
                failure));
  }

  /** {@code instant + duration}, or the latest instant a millisecond clock can show. */
  private static Instant later(Instant instant, Duration duration) {
    try {
      Instant result = instant.plus(duration);
      return result.isAfter(LATEST) ? LATEST : result;
    } catch (DateTimeException | ArithmeticException e) {
      return LATEST;
    }
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private TieringRound tierOnce(TablePath path) {
    String formatError = formatErrors.get(path);
    if (formatError != null) {
      throw new TieringException("Table " + path + ": " + formatError);
    }
    LakeFormat format = formats.getOrDefault(path, LakeFormat.ICEBERG);
    LakeTierer tierer = tierers.get(format);
    if (tierer == null) {
      throw new TieringException(
          "Table " + path + " tiers into " + format.value() + ", which is not set up here");
    }
    return tierer.tierOnce(path);
  }

  private void sweepOrphans() {
    nextSweep.keySet().retainAll(tables.keySet());
    for (TablePath path : tables.keySet()) {
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      if (formats.getOrDefault(path, LakeFormat.ICEBERG) != LakeFormat.ICEBERG) {
        continue; // Paimon's files are Paimon's; the sweep knows tiering's Iceberg files only
      }
      if (running.containsKey(path)) {
        continue; // swept at a dispatch when no round of it runs
      }
      Instant due = nextSweep.get(path);
      Instant now = clock.instant();
      if (due != null && now.isBefore(due)) {
        continue;
      }
      nextSweep.put(path, now.plus(sweepInterval));
      try {
        OrphanFiles.Sweep sweep = orphans.sweep(path);
        if (!sweep.listingSupported()) {
          LOG.info(
              "Cannot sweep {} for orphaned tiering files: its file IO cannot list files", path);
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Sweeping {} for orphaned tiering files failed; retrying in {}",
            path,
            sweepInterval,
            e);
      }
    }
  }

  private void discover(Instant now) {
    List<LakeCatalog.StreamTable> found;
    try {
      found = lake.listStreamTables();
    } catch (RuntimeException e) {
      String message = describe(e);
      if (!message.equals(lastListingError)) {
        LOG.warn("Tiering cannot list the catalog's log tables", e);
      }
      lastListingError = message;
      return;
    }
    lastListingError = null;
    Set<TablePath> seen = new HashSet<>();
    for (LakeCatalog.StreamTable table : found) {
      seen.add(table.path());
      try {
        found(table, now);
      } catch (RuntimeException e) {
        // Whatever is wrong with one table's properties stays with that table.
        String message = describe(e);
        TableState current = tables.get(table.path());
        if (current == null || !message.equals(current.lastError())) {
          LOG.warn("Table {}: cannot schedule its tiering", table.path(), e);
        }
        tables.put(
            table.path(),
            new TableState(
                TieringConfig.DEFAULT_INTERVAL,
                null,
                current == null ? null : current.lastRound(),
                message));
      }
    }
    tables.keySet().retainAll(seen);
    formats.keySet().retainAll(seen);
    formatErrors.keySet().retainAll(seen);
    statistics.retain(seen);
  }

  /**
   * Schedules a table found by a listing. A table whose {@value TieringConfig#INTERVAL_PROPERTY} is
   * invalid is not tiered and reports why as its last error, until the value is fixed; then its
   * first round is one interval later.
   */
  private void found(LakeCatalog.StreamTable table, Instant now) {
    TablePath path = table.path();
    Duration parsed;
    String intervalError = null;
    try {
      parsed = TieringConfig.interval(table.properties());
    } catch (IllegalArgumentException e) {
      parsed = TieringConfig.DEFAULT_INTERVAL;
      intervalError = "Table " + path + " is not tiered: " + e.getMessage();
    }
    try {
      formats.put(path, LakeFormat.of(table.properties()));
      formatErrors.remove(path);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().equals(formatErrors.get(path))) {
        LOG.warn("Table {}: {}; its rounds fail until it is fixed", path, e.getMessage());
      }
      formatErrors.put(path, e.getMessage());
    }
    Duration interval = parsed;
    String unscheduled = intervalError;
    TableState current = tables.get(path);
    if (unscheduled != null && (current == null || !unscheduled.equals(current.lastError()))) {
      LOG.warn("{}", unscheduled);
    }
    tables.compute(
        path,
        (key, state) -> {
          if (unscheduled != null) {
            return new TableState(
                interval, null, state == null ? null : state.lastRound(), unscheduled);
          }
          if (state == null || state.nextRound() == null) {
            // New, or its interval was just fixed.
            return new TableState(
                interval, later(now, interval), state == null ? null : state.lastRound(), null);
          }
          if (state.interval().equals(interval)) {
            return state;
          }
          Instant next;
          try {
            next = state.nextRound().minus(state.interval()).plus(interval);
          } catch (DateTimeException | ArithmeticException e) {
            next = later(now, interval);
          }
          return new TableState(interval, next, state.lastRound(), state.lastError());
        });
  }

  /** The state of a table the service tiers, if it knows the table. */
  public Optional<TableState> state(TablePath path) {
    return Optional.ofNullable(tables.get(path));
  }

  /** Counts and timings of the rounds this service ran, per table. */
  public TieringStatistics statistics() {
    return statistics;
  }

  /** Every table the service tiers, with its state. */
  public Map<TablePath, TableState> tables() {
    return Map.copyOf(tables);
  }

  /** Stops dispatching; a round still reading is interrupted and commits nothing. */
  @Override
  public void close() {
    scheduler.shutdownNow();
    for (Runnable queued : rounds.shutdownNow()) {
      ((Future<?>) queued).cancel(false); // never ran: nobody waits for it in vain
    }
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)
          || !rounds.awaitTermination(
              Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        LOG.warn("A tiering round did not stop within 10 s of shutdown");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
