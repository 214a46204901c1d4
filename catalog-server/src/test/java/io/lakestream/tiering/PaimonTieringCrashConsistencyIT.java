package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.paimon.PaimonTableTiering;
import io.lakestream.lake.paimon.PaimonTables;
import io.lakestream.tiering.TieringCrashHarness.AppendLoad;
import io.lakestream.tiering.TieringCrashHarness.Context;
import io.lakestream.tiering.TieringCrashHarness.CrashTable;
import io.lakestream.tiering.TieringCrashHarness.KillLine;
import io.lakestream.tiering.TieringCrashHarness.LoadWriter;
import io.lakestream.tiering.TieringCrashHarness.ServerLives;
import io.lakestream.tiering.TieringCrashHarness.UpsertLoad;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.utils.FileStorePathFactory;
import org.apache.paimon.utils.SnapshotManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering into Paimon ({@code lakestream.lake-format=paimon}) survives SIGKILL exactly once: the
 * fault test of {@link TieringCrashHarness} over a server with two Paimon-tiered tables, a log
 * table and a primary-key table, that tier every second. 20 kills hit both tables. Every other kill
 * comes the moment the server logs one of a table's {@link PaimonTable#killLines()}, the tables and
 * lines in turns: the round's {@code Committing} line (its Paimon data files, and for the
 * primary-key table its compaction's files, are written, nothing is committed), or Paimon's line
 * that it committed the round's append snapshot (before Paimon writes the snapshot's Iceberg
 * metadata and, for the primary-key table, before the compaction snapshot). The others come at
 * random moments once a round of the run committed. The last two kills, one per table, come after
 * the table's writers stopped, right after the append snapshot of the round that tiers its last
 * rows ({@link PaimonTable#lastRowsKillLine}): no later round with new rows repairs what they left.
 *
 * <p>After the last restart, once the newest Paimon snapshot's offsets and the catalog entry's are
 * the log's end:
 *
 * <ul>
 *   <li>log table: read through Paimon's Java API ({@code ReadBuilder}) and through Iceberg's
 *       generic reader of the catalog entry (REST catalog), every acknowledged row is there exactly
 *       once, an unacknowledged one at most once, nothing else, as many rows as the log holds;
 *   <li>primary-key table (upserts with unique versions and deletes, each writer on its own keys):
 *       through both readers every key at most once, the same rows as the server's state, and each
 *       key's version (or absence) is that of its last acknowledged write or of a write whose
 *       acknowledgement the kill lost;
 *   <li>the newest Paimon snapshot's {@code lakestream.offsets} property is the log's end, and so
 *       are the offsets of the catalog entry's current snapshot, which is Paimon's newest;
 *   <li>every data file of every Paimon snapshot, and every file of every snapshot of the catalog
 *       entry, exists;
 *   <li>the documented orphan-file behaviour for Paimon: Lakestream's sweep ({@code
 *       tiering.orphan-file-age} 1s here) skips Paimon tables, so every data file a kill left on
 *       disk is still there; the unreferenced ones (of killed rounds) are counted and printed, and
 *       some kill must have left some (a kill between writing files and committing them happened).
 * </ul>
 *
 * <p>The seed is printed; rerun a failure with {@code -Dlakestream.crash.seed=N}.
 */
class PaimonTieringCrashConsistencyIT {
  private static final TablePath LOG = TablePath.of("tiered.events");
  private static final TablePath KEYED = TablePath.of("tiered.accounts");
  private static final int BUCKETS = 3;
  private static final int MAX_ROWS_PER_FLUSH = 5;
  private static final int KEYS_PER_WRITER = 200;
  private static final int DELETE_PERCENT = 20;
  // Writers pace themselves a little: rounds of a few thousand rows, not tens of thousands.
  private static final Duration FLUSH_PAUSE = Duration.ofMillis(5);
  private static final String SNAPSHOT_COMMITTED = "Successfully commit snapshot ";

  @TempDir Path temp;

  @Test
  void logAndPrimaryKeyTablesTierIntoPaimonExactlyOnceAcrossSigkills() throws Exception {
    TieringCrashHarness.run(
        new TieringCrashHarness.Settings(
            "PaimonTieringCrashConsistencyIT",
            20,
            2,
            100,
            List.of(PaimonTableTiering.class.getName()),
            // C1 only: the server restarts 20 times and each life tiers for seconds, so that the
            // JIT's optimising tier would mostly cost CPU time on a busy 2-core runner
            List.of("-XX:TieredStopAtLevel=1"),
            FLUSH_PAUSE,
            true),
        List.of(new PaimonLogTable(), new PaimonPrimaryKeyTable()),
        temp);
  }

  /** A table tiering into Paimon; the log and primary-key variants differ in rows and checks. */
  private abstract static class PaimonTable implements CrashTable {
    private final TablePath path;
    private String location;
    private Path paimonDirectory;

    PaimonTable(TablePath path) {
      this.path = path;
    }

    @Override
    public TablePath path() {
      return path;
    }

    /**
     * Before the commit (the round's {@value TieringCrashHarness#COMMITTING} line: its data files,
     * and for a primary-key table its compaction's, are written) and right after Paimon committed
     * the round's append snapshot (Paimon's own line, logged before its commit callbacks write the
     * Iceberg metadata; for a primary-key table also before the compaction snapshot).
     */
    @Override
    public List<KillLine> killLines() {
      String table = " to table " + path.name() + " by user ";
      return List.of(
          KillLine.committing(path),
          new KillLine(
              "after the append snapshot",
              line ->
                  line.contains(SNAPSHOT_COMMITTED)
                      && line.contains(table)
                      && line.contains("kind APPEND")));
    }

    /**
     * In the round that tiers the log's last rows: right after Paimon committed its append
     * snapshot. Nothing is written after it, so no later round's commit writes the Iceberg metadata
     * the kill kept Paimon from writing, nor (primary-key table) compacts what the kill kept the
     * round from compacting: the restart must.
     */
    @Override
    public KillLine lastRowsKillLine(String logEnd) {
      String of = " of " + path + " up to " + logEnd;
      String table = " to table " + path.name() + " by user ";
      boolean[] committing = {false};
      return new KillLine(
          "after the append snapshot of the last rows",
          line -> {
            if (!committing[0]) {
              committing[0] = line.contains(TieringCrashHarness.COMMITTING) && line.contains(of);
              return false;
            }
            return line.contains(SNAPSHOT_COMMITTED)
                && line.contains(table)
                && line.contains("kind APPEND");
          });
    }

    abstract Schema schema();

    abstract String kind();

    @Override
    public void create(RESTCatalog catalog) {
      if (!catalog.namespaceExists(Namespace.of("tiered"))) {
        catalog.createNamespace(Namespace.of("tiered"), new HashMap<>());
      }
      Table table =
          catalog.createTable(
              TieringCrashHarness.identifier(path),
              schema(),
              PartitionSpec.unpartitioned(),
              new HashMap<>(
                  Map.of(
                      "lakestream.kind",
                      kind(),
                      "lakestream.buckets",
                      Integer.toString(BUCKETS),
                      "lakestream.lake-format",
                      "paimon",
                      TieringConfig.INTERVAL_PROPERTY,
                      "1s")));
      location = table.location();
      paimonDirectory =
          LocalFileIO.toPath(
              PaimonTables.warehouse(location)
                  + "/"
                  + PaimonTables.DATABASE
                  + ".db/"
                  + path.name());
    }

    /** Paimon's data files: those in its bucket directories. */
    @Override
    public Set<String> filesOnDisk() {
      return TieringCrashHarness.files(
          paimonDirectory,
          file ->
              file.getParent().getFileName().toString().startsWith("bucket-")
                  && file.getFileName().toString().startsWith("data-"));
    }

    FileStoreTable paimon() {
      Options options = new Options();
      options.set("warehouse", PaimonTables.warehouse(location));
      try (Catalog catalog = CatalogFactory.createCatalog(PaimonTables.context(options))) {
        return (FileStoreTable)
            catalog.getTable(Identifier.create(PaimonTables.DATABASE, path.name()));
      } catch (Exception e) {
        throw new IllegalStateException("Cannot open the Paimon table of " + path, e);
      }
    }

    /** The offsets in the newest Paimon snapshot's properties (empty when it has none). */
    static Map<String, Map<Integer, Long>> latestSnapshotOffsets(FileStoreTable table) {
      Snapshot latest = table.snapshotManager().latestSnapshot();
      if (latest == null
          || latest.properties() == null
          || !latest.properties().containsKey(TieredOffsets.SUMMARY_KEY)) {
        return Map.of();
      }
      return TieredOffsets.parse(latest.properties().get(TieredOffsets.SUMMARY_KEY)).partitions();
    }

    /** Every data file of every Paimon snapshot, as local paths. */
    static Set<String> paimonReferencedFiles(FileStoreTable table) {
      SnapshotManager snapshots = table.snapshotManager();
      FileStorePathFactory paths = table.store().pathFactory();
      Set<String> files = new HashSet<>();
      Long earliest = snapshots.earliestSnapshotId();
      Long latest = snapshots.latestSnapshotId();
      for (long id = earliest; id <= latest; id++) {
        for (ManifestEntry entry : table.store().newScan().withSnapshot(id).plan().files()) {
          files.add(
              LocalFileIO.toPath(
                      paths
                          .createDataFilePathFactory(entry.partition(), entry.bucket())
                          .toPath(entry.file())
                          .toString())
                  .toString());
        }
      }
      return files;
    }

    /** Every row of the newest Paimon snapshot through Paimon's reader. */
    static void readPaimon(FileStoreTable table, java.util.function.Consumer<InternalRow> rows)
        throws IOException {
      ReadBuilder read = table.newReadBuilder();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(rows);
      }
    }

    /** Every row of the catalog entry's current snapshot through Iceberg's generic reader. */
    static void readIceberg(Table entry, java.util.function.Consumer<Record> rows)
        throws IOException {
      try (CloseableIterable<Record> records = IcebergGenerics.read(entry).build()) {
        records.forEach(rows);
      }
    }

    Table entry(Context context) {
      return context.catalog().loadTable(TieringCrashHarness.identifier(path));
    }

    /**
     * Waits until the newest Paimon snapshot and the catalog entry both hold the log's end, checks
     * the rows ({@link #checkRows}) and the files; returns the figures.
     */
    @Override
    public String check(Context context) throws IOException {
      long seed = context.seed();
      Map<String, Map<Integer, Long>> highWatermarks =
          TieringCrashHarness.highWatermarks(context.connection(), path);
      TieringCrashHarness.awaitCaughtUp(
          () ->
              latestSnapshotOffsets(paimon()).equals(highWatermarks)
                  && TieringCrashHarness.entryOffsets(entry(context)).equals(highWatermarks),
          () ->
              path
                  + ": newest Paimon snapshot's offsets "
                  + latestSnapshotOffsets(paimon())
                  + " (newest with offsets: "
                  + PaimonTableTiering.offsetsOf(paimon())
                  + "), the entry's "
                  + TieringCrashHarness.entryOffsets(entry(context))
                  + ", high watermarks "
                  + highWatermarks,
          seed);
      FileStoreTable table = paimon();
      Table entry = entry(context);
      assertThat(entry.currentSnapshot().snapshotId())
          .as("%s: the entry's current snapshot is Paimon's newest (seed %d)", path, seed)
          .isEqualTo(table.snapshotManager().latestSnapshotId());
      String rows = checkRows(context, table, entry, highWatermarks);

      Set<String> referenced = paimonReferencedFiles(table);
      assertThat(referenced).as("%s: files the Paimon snapshots reference", path).isNotEmpty();
      for (String file : referenced) {
        assertThat(Path.of(file))
            .as("%s: a data file Paimon references (seed %d)", path, seed)
            .exists();
      }
      Set<String> entryReferenced = TieringCrashHarness.icebergReferencedFiles(entry);
      assertThat(referenced)
          .as("%s: the entry's snapshots reference Paimon's files (seed %d)", path, seed)
          .containsAll(entryReferenced);
      for (String file : entryReferenced) {
        assertThat(Path.of(file))
            .as("%s: a file the entry references (seed %d)", path, seed)
            .exists();
      }

      // Lakestream's orphan sweep skips Paimon tables (docs/tiering.md), and Paimon expires no
      // snapshot within the test: every data file any kill left on disk must still be there.
      Set<String> atKills = new HashSet<>();
      context.kills().forEach(kill -> atKills.addAll(kill.files().get(path)));
      List<String> gone = new ArrayList<>();
      for (String file : atKills) {
        if (!Files.exists(Path.of(file))) {
          gone.add(file);
        }
      }
      assertThat(gone)
          .as("%s: Paimon data files deleted since a kill (seed %d)", path, seed)
          .isEmpty();
      Set<String> unreferenced = new HashSet<>(filesOnDisk());
      unreferenced.removeAll(referenced);
      int[] orphaning =
          TieringCrashHarness.orphaningKills(path, context.kills(), referenced, file -> true);
      assertThat(orphaning[0])
          .as("%s: kills between writing data files and committing (seed %d)", path, seed)
          .isPositive();
      return String.format(
          Locale.ROOT,
          "%s (Paimon, %s, %d buckets): %s; %d Paimon snapshots; %d kills between writing data"
              + " files and committing them (%d at one of the table's kill lines), %d unreferenced"
              + " data files left (not swept, as documented), %d referenced; restarts wrote"
              + " missing Iceberg metadata %d times, redid lost compactions %d times",
          path,
          kind(),
          BUCKETS,
          rows,
          table.snapshotManager().snapshotCount(),
          orphaning[0],
          orphaning[1],
          unreferenced.size(),
          referenced.size(),
          serverLines(context.logs(), "has no Iceberg metadata"),
          serverLines(context.logs(), "whose compaction a crash lost"));
    }

    /** The newest Paimon snapshots: id, kind, commit user, rows, offsets; newest first. */
    static String snapshotHistory(FileStoreTable table) {
      SnapshotManager snapshots = table.snapshotManager();
      Long latest = snapshots.latestSnapshotId();
      Long earliest = snapshots.earliestSnapshotId();
      if (latest == null || earliest == null) {
        return "no Paimon snapshot";
      }
      StringBuilder history = new StringBuilder("Paimon snapshots:");
      for (long id = latest; id >= Math.max(earliest, latest - 11); id--) {
        Snapshot snapshot = snapshots.snapshot(id);
        history
            .append("\n    ")
            .append(id)
            .append(' ')
            .append(snapshot.commitKind())
            .append(" by ")
            .append(snapshot.commitUser())
            .append(" (identifier ")
            .append(snapshot.commitIdentifier())
            .append(", ")
            .append(snapshot.deltaRecordCount())
            .append(" delta rows, ")
            .append(snapshot.totalRecordCount())
            .append(" total) offsets ")
            .append(
                snapshot.properties() == null
                    ? null
                    : snapshot.properties().get(TieredOffsets.SUMMARY_KEY));
      }
      return history.toString();
    }

    /** How many lines of the server's outputs name this table and contain the text. */
    long serverLines(Path logs, String text) throws IOException {
      String of = " of " + path + " ";
      long lines = 0;
      try (java.util.stream.Stream<Path> outputs = Files.list(logs)) {
        for (Path output : outputs.filter(file -> file.toString().endsWith(".out")).toList()) {
          lines +=
              Files.readAllLines(output).stream()
                  .filter(line -> line.contains(text) && line.contains(of))
                  .count();
        }
      }
      return lines;
    }

    /** Checks the rows read through both readers; returns their figures. */
    abstract String checkRows(
        Context context,
        FileStoreTable table,
        Table entry,
        Map<String, Map<Integer, Long>> highWatermarks)
        throws IOException;
  }

  /** A log table {@code (id bigint, writer int)} tiering into a Paimon append table. */
  private static final class PaimonLogTable extends PaimonTable {
    PaimonLogTable() {
      super(LOG);
    }

    @Override
    Schema schema() {
      return new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "writer", Types.IntegerType.get()));
    }

    @Override
    String kind() {
      return "log";
    }

    @Override
    public LoadWriter newWriter(int index, ServerLives lives, long seed) {
      return new AppendLoad(LOG, index, lives, seed, MAX_ROWS_PER_FLUSH);
    }

    @Override
    String checkRows(
        Context context,
        FileStoreTable table,
        Table entry,
        Map<String, Map<Integer, Long>> highWatermarks)
        throws IOException {
      long rowsInLog =
          highWatermarks.values().stream()
              .flatMap(buckets -> buckets.values().stream())
              .mapToLong(Long::longValue)
              .sum();
      Map<Long, Integer> paimonCounts = new HashMap<>();
      readPaimon(table, row -> paimonCounts.merge(row.getLong(0), 1, Integer::sum));
      Map<Long, Integer> icebergCounts = new HashMap<>();
      readIceberg(
          entry, record -> icebergCounts.merge((Long) record.getField("id"), 1, Integer::sum));
      List<String> violations = new ArrayList<>();
      violations.addAll(
          TieringCrashHarness.logViolations(
              "Paimon reader", paimonCounts, context.writers(), rowsInLog));
      violations.addAll(
          TieringCrashHarness.logViolations(
              "Iceberg reader", icebergCounts, context.writers(), rowsInLog));
      TieringCrashHarness.assertNoViolations(violations, context.seed());
      int acknowledged = 0;
      int sent = 0;
      for (LoadWriter writer : context.writers()) {
        acknowledged += ((AppendLoad) writer).acknowledged().size();
        sent += ((AppendLoad) writer).sent().size();
      }
      assertThat(acknowledged).as("acknowledged rows (seed %d)", context.seed()).isPositive();
      return String.format(
          Locale.ROOT,
          "%d rows acknowledged, %d more sent unacknowledged, %d in the table",
          acknowledged,
          sent - acknowledged,
          rowsInLog);
    }
  }

  /**
   * A primary-key table {@code (id bigint key, writer int, version bigint)} tiering into a Paimon
   * primary-key table.
   */
  private static final class PaimonPrimaryKeyTable extends PaimonTable {
    PaimonPrimaryKeyTable() {
      super(KEYED);
    }

    @Override
    Schema schema() {
      return new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "writer", Types.IntegerType.get()),
              Types.NestedField.optional(3, "version", Types.LongType.get())),
          Set.of(1));
    }

    @Override
    String kind() {
      return "primary-key";
    }

    @Override
    public LoadWriter newWriter(int index, ServerLives lives, long seed) {
      return new UpsertLoad(KEYED, index, lives, seed, KEYS_PER_WRITER, 5, DELETE_PERCENT);
    }

    @Override
    String checkRows(
        Context context,
        FileStoreTable table,
        Table entry,
        Map<String, Map<Integer, Long>> highWatermarks)
        throws IOException {
      Map<Long, Long> server = new HashMap<>();
      TieringCrashHarness.serverState(context.connection(), KEYED)
          .forEach((key, row) -> server.put(key, ((Number) row[2]).longValue()));
      Map<Long, List<Long>> paimonRows = new HashMap<>();
      BiConsumer<Map<Long, List<Long>>, long[]> add =
          (rows, row) -> rows.computeIfAbsent(row[0], key -> new ArrayList<>()).add(row[1]);
      readPaimon(table, row -> add.accept(paimonRows, new long[] {row.getLong(0), row.getLong(2)}));
      Map<Long, List<Long>> icebergRows = new HashMap<>();
      readIceberg(
          entry,
          record ->
              add.accept(
                  icebergRows,
                  new long[] {(Long) record.getField("id"), (Long) record.getField("version")}));
      List<String> violations = new ArrayList<>();
      violations.addAll(
          TieringCrashHarness.primaryKeyViolations(
              "Paimon reader", paimonRows, server, context.writers()));
      violations.addAll(
          TieringCrashHarness.primaryKeyViolations(
              "Iceberg reader", icebergRows, server, context.writers()));
      TieringCrashHarness.assertNoViolations(
          violations,
          context.seed(),
          () ->
              String.format(
                  Locale.ROOT,
                  "%d keys through Paimon's reader, %d through Iceberg's, %d on the server;"
                      + " the entry's current snapshot %s; %s%n  ",
                  paimonRows.size(),
                  icebergRows.size(),
                  server.size(),
                  entry.currentSnapshot() == null
                      ? "none"
                      : entry.currentSnapshot().snapshotId()
                          + " "
                          + entry.currentSnapshot().summary(),
                  snapshotHistory(table)));
      int acknowledgedKeys = 0;
      for (LoadWriter writer : context.writers()) {
        acknowledgedKeys += ((UpsertLoad) writer).acknowledgedKeys();
      }
      long changes =
          highWatermarks.values().stream()
              .flatMap(buckets -> buckets.values().stream())
              .mapToLong(Long::longValue)
              .sum();
      assertThat(server).as("keys the server holds (seed %d)", context.seed()).isNotEmpty();
      return String.format(
          Locale.ROOT,
          "%d changelog records, %d keys in the table (%d live by acknowledged writes)",
          changes,
          paimonRows.size(),
          acknowledgedKeys);
    }
  }
}
