package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.tiering.LakeTierers;
import io.lakestream.tiering.OrphanFiles;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the rounds of the tables keyed to this subtask, one at a time, with the tiering module's
 * tierers ({@link LakeTierers#standard}): the same rounds as the server's embedded tiering, so the
 * same guarantee. A round reads each bucket's log range from the table's committed offsets to the
 * high watermark, writes data files and commits them in one snapshot whose summary records the new
 * offsets, on the condition that the table still holds the offsets it started from. The committed
 * offsets are the truth: a round that dies between writing its files and committing them (a failed
 * task, a cancelled job, a lost TaskManager) leaves the table as it was, and the next round, in
 * this job or a restarted one, reads the same range again.
 *
 * <p>Keyed by table, so two subtasks of one job never tier the same table at once; even two jobs
 * (or a job and a server with tiering on) would not duplicate a row, since at most one of two
 * concurrent rounds commits (the other reports {@link TieringRound.Outcome#LOST_RACE}).
 *
 * <p>Work issued before the start of the table's last round is skipped: that round already read
 * everything the work was for (rounds that overrun their interval leave such work queued). The
 * times come from two TaskManagers' clocks: a skew between them can only skip or add a round, never
 * duplicate a row. A round that throws a {@link RuntimeException} is reported as {@code FAILED} and
 * logged once per change of error, and the table's next work retries it, as the embedded service
 * does; nothing one table does stops the rounds of the others. An {@link Error} fails the task, and
 * Flink's restart strategy restarts the job.
 *
 * <p>Metrics, in the subtask's group {@code lakestream_tiering}: {@code roundsCommitted}, {@code
 * roundsFailed} and {@code rowsTiered}.
 *
 * <p>Files a round could not delete (its process died) are swept by {@link OrphanFiles} once older
 * than the job's orphan file age: right after the subtask first tiers a table, then every orphan
 * file age.
 */
final class TieringRoundFunction
    extends KeyedProcessFunction<String, TieringWork, TieringRoundResult> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(TieringRoundFunction.class);

  private final TieringJobOptions options;
  private final JobTieringHook hook;

  private transient Clock clock;
  private transient ServerConnections server;
  private transient Map<LakeFormat, LakeTierer> tierers;
  private transient OrphanFiles orphans;
  // Per table of this subtask: the start of its last round, its last error, its next sweep.
  private transient Map<String, Long> lastStarted;
  private transient Map<String, String> lastError;
  private transient Map<String, Long> nextSweep;
  private transient Counter committed;
  private transient Counter failed;
  private transient Counter rows;

  TieringRoundFunction(TieringJobOptions options, JobTieringHook hook) {
    this.options = requireNonNull(options, "options is null");
    this.hook = requireNonNull(hook, "hook is null");
  }

  @Override
  public void open(OpenContext context) {
    clock = Clock.systemUTC();
    server = ServerConnections.open(options, true);
    // The catalog's own record of offsets lives in the server's database, out of the job's reach:
    // the job relies on the tables' committed state alone (StartOffsets refuses to start a table
    // that lost it from offset 0).
    tierers =
        LakeTierers.standard(
            server.lake(),
            server.connection(),
            hook,
            options.readTimeout(),
            options.maxRowsPerRound(),
            options.dataFileWriter(),
            TieredOffsetsStore.NONE);
    orphans = new OrphanFiles(server.lake(), options.orphanFileAge(), clock);
    MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("lakestream_tiering");
    committed = metrics.counter("roundsCommitted");
    failed = metrics.counter("roundsFailed");
    rows = metrics.counter("rowsTiered");
    lastStarted = new HashMap<>();
    lastError = new HashMap<>();
    nextSweep = new HashMap<>();
  }

  @Override
  public void processElement(TieringWork work, Context context, Collector<TieringRoundResult> out) {
    String key = work.key();
    Long started = lastStarted.get(key);
    if (started != null && work.issuedAt < started) {
      return;
    }
    long start = clock.millis();
    lastStarted.put(key, start);
    TablePath path = work.path();
    try {
      TieringRound round = tierer(work).tierOnce(path);
      long end = clock.millis();
      String before = lastError.remove(key);
      if (before != null) {
        LOG.info("Tiering of {} works again after: {}", path, before);
      }
      if (round.outcome() == TieringRound.Outcome.COMMITTED) {
        committed.inc();
        rows.inc(round.rows());
        LOG.info(
            "Tiered {} rows of {} in {} files (snapshot {}) in {} ms",
            round.rows(),
            path,
            round.files(),
            round.snapshotId(),
            end - start);
      }
      out.collect(
          new TieringRoundResult(key, round.outcome().name(), round.rows(), null, start, end));
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        // The task is being cancelled (a failover, a cancelled job): the round committed nothing
        // and the next job's round redoes it.
        LOG.info("Tiering round of {} interrupted: the task is cancelled", path);
        return;
      }
      failed.inc();
      String error = e.getClass().getSimpleName() + ": " + e.getMessage();
      if (!error.equals(lastError.put(key, error))) {
        LOG.warn("Tiering round of {} failed; retrying at its next round", path, e);
      } else {
        LOG.debug("Tiering round of {} failed again", path, e);
      }
      out.collect(new TieringRoundResult(key, "FAILED", 0, error, start, clock.millis()));
    }
    sweep(work, key, path);
  }

  private LakeTierer tierer(TieringWork work) {
    LakeFormat format = LakeFormat.of(Map.of(LakeFormat.PROPERTY, work.format));
    LakeTierer tierer = tierers.get(format);
    if (tierer == null) {
      throw new TieringException(
          "Table "
              + work.path()
              + " tiers into "
              + format.value()
              + ", whose tierer is not on the job's class path");
    }
    return tierer;
  }

  private void sweep(TieringWork work, String key, TablePath path) {
    if (!LakeFormat.ICEBERG.value().equals(work.format)) {
      return; // Paimon's files are Paimon's; the sweep knows tiering's Iceberg files only
    }
    if (Thread.currentThread().isInterrupted()) {
      return;
    }
    long now = clock.millis();
    Long due = nextSweep.get(key);
    if (due != null && now < due) {
      return;
    }
    Duration every =
        options.orphanFileAge().compareTo(options.discoveryInterval()) > 0
            ? options.orphanFileAge()
            : options.discoveryInterval();
    nextSweep.put(key, now + every.toMillis());
    try {
      orphans.sweep(path);
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // the task is being cancelled
      }
      LOG.warn("Sweeping {} for orphaned tiering files failed; retrying in {}", path, every, e);
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
  }
}
