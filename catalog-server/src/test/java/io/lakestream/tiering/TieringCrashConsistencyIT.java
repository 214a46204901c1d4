package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.TablePath;
import io.lakestream.tiering.TieringCrashHarness.AppendLoad;
import io.lakestream.tiering.TieringCrashHarness.Context;
import io.lakestream.tiering.TieringCrashHarness.CrashTable;
import io.lakestream.tiering.TieringCrashHarness.KillLine;
import io.lakestream.tiering.TieringCrashHarness.LoadWriter;
import io.lakestream.tiering.TieringCrashHarness.ServerLives;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering into Iceberg survives SIGKILL exactly once ({@link TieringCrashHarness}: the packaged
 * server as a separate process, a log table tiering every second, writers remembering acknowledged
 * rows, 20 kills, half of them the moment a round logs that it is about to commit, i.e. after its
 * data files are written and before they are committed). At the end the server runs once more until
 * tiering has caught up with every bucket's high watermark, and the Iceberg table, read through the
 * REST catalog, must hold every acknowledged row exactly once (an unacknowledged one at most once,
 * nothing else), every file its snapshots reference must exist, and the orphan sweep ({@code
 * tiering.orphan-file-age} 1s) must have deleted every data file tiering wrote that no snapshot
 * references.
 *
 * <p>The seed is printed; rerun a failure with {@code -Dlakestream.crash.seed=N}.
 */
class TieringCrashConsistencyIT {
  private static final TablePath TABLE = TablePath.of("tiered.events");
  private static final int BUCKETS = 3;
  // Small flushes: the writers are paced by the server's acknowledgements, and the log grows by a
  // few thousand rows between rounds instead of a backlog that a round needs seconds to read.
  private static final int MAX_ROWS_PER_FLUSH = 5;

  @TempDir Path temp;

  @Test
  void everyAcknowledgedRowIsTieredExactlyOnceAcrossSigkills() throws Exception {
    TieringCrashHarness.run(
        new TieringCrashHarness.Settings(
            "TieringCrashConsistencyIT",
            20,
            2,
            100,
            List.of(IcebergTableTiering.class.getName()),
            List.of(),
            Duration.ZERO,
            false),
        List.of(new IcebergLogTable()),
        temp);
  }

  /** A log table tiering into Iceberg. */
  private static final class IcebergLogTable implements CrashTable {
    private Path dataDirectory;

    @Override
    public TablePath path() {
      return TABLE;
    }

    @Override
    public List<KillLine> killLines() {
      return List.of(KillLine.committing(TABLE));
    }

    @Override
    public void create(RESTCatalog catalog) {
      catalog.createNamespace(Namespace.of("tiered"), new HashMap<>());
      Table table =
          catalog.createTable(
              TieringCrashHarness.identifier(TABLE),
              new Schema(
                  Types.NestedField.required(1, "id", Types.LongType.get()),
                  Types.NestedField.optional(2, "writer", Types.IntegerType.get())),
              PartitionSpec.unpartitioned(),
              new HashMap<>(
                  Map.of(
                      "lakestream.kind",
                      "log",
                      "lakestream.buckets",
                      Integer.toString(BUCKETS),
                      TieringConfig.INTERVAL_PROPERTY,
                      "1s")));
      dataDirectory = LocalFileIO.toPath(OrphanFiles.dataLocation(table));
    }

    @Override
    public LoadWriter newWriter(int index, ServerLives lives, long seed) {
      return new AppendLoad(TABLE, index, lives, seed, MAX_ROWS_PER_FLUSH);
    }

    /** Every file under the data location with a name tiering gives its files. */
    @Override
    public Set<String> filesOnDisk() {
      return TieringCrashHarness.files(
          dataDirectory, path -> OrphanFiles.isTieringFile(path.toString()));
    }

    @Override
    public String check(Context context) throws IOException {
      long seed = context.seed();
      Map<String, Map<Integer, Long>> highWatermarks =
          TieringCrashHarness.highWatermarks(context.connection(), TABLE);
      TieringCrashHarness.awaitCaughtUp(
          () -> TieringCrashHarness.entryOffsets(load(context)).equals(highWatermarks),
          () ->
              "tiered "
                  + TieringCrashHarness.entryOffsets(load(context))
                  + ", high watermarks "
                  + highWatermarks,
          seed);
      Table table = load(context);

      Map<Long, Integer> counts = new HashMap<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record record : records) {
          counts.merge((Long) record.getField("id"), 1, Integer::sum);
        }
      }
      long rowsInLog =
          highWatermarks.values().stream()
              .flatMap(buckets -> buckets.values().stream())
              .mapToLong(Long::longValue)
              .sum();
      TieringCrashHarness.assertNoViolations(
          TieringCrashHarness.logViolations("Iceberg", counts, context.writers(), rowsInLog), seed);

      Set<String> referenced = TieringCrashHarness.icebergReferencedFiles(table);
      assertThat(referenced).as("files the snapshots reference").isNotEmpty();
      for (String location : referenced) {
        assertThat(Path.of(location)).as("a referenced data file").exists();
      }
      // Sweeps run every second: every tiering file no snapshot references goes.
      Set<String> unreferenced = awaitNoOrphans(referenced);
      assertThat(unreferenced).as("unreferenced tiering files (seed %d)", seed).isEmpty();

      int[] orphaning =
          TieringCrashHarness.orphaningKills(
              TABLE, context.kills(), referenced, file -> !file.endsWith(".tmp"));
      int acknowledged = 0;
      int sent = 0;
      for (LoadWriter writer : context.writers()) {
        acknowledged += ((AppendLoad) writer).acknowledged().size();
        sent += ((AppendLoad) writer).sent().size();
      }
      assertThat(acknowledged).as("acknowledged rows (seed %d)", seed).isGreaterThan(0);
      assertThat(orphaning[0])
          .as("kills between writing data files and committing (seed %d)", seed)
          .isPositive();
      return String.format(
          Locale.ROOT,
          "%s (Iceberg, log, %d buckets): %d rows acknowledged, %d more sent unacknowledged, %d"
              + " in the table in %d snapshots; %d kills between writing data files and committing"
              + " them (%d at the commit log line), %d orphaned files swept",
          TABLE,
          BUCKETS,
          acknowledged,
          sent - acknowledged,
          counts.values().stream().mapToLong(Integer::longValue).sum(),
          size(table.snapshots()),
          orphaning[0],
          orphaning[1],
          orphaning[2]);
    }

    private static Table load(Context context) {
      return context.catalog().loadTable(TieringCrashHarness.identifier(TABLE));
    }

    private Set<String> awaitNoOrphans(Set<String> referenced) {
      long deadline = System.nanoTime() + TieringCrashHarness.CATCH_UP_TIMEOUT.toNanos();
      while (true) {
        Set<String> unreferenced = new HashSet<>(filesOnDisk());
        unreferenced.removeAll(referenced);
        if (unreferenced.isEmpty() || System.nanoTime() > deadline) {
          return unreferenced;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
      }
    }
  }

  static int size(Iterable<?> items) {
    int size = 0;
    for (Object ignored : items) {
      size++;
    }
    return size;
  }
}
