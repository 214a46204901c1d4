package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.lake.CommittedOffsetsReader;
import io.lakestream.lake.ComposedLakeTierer;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.PrimaryKeyChanges;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.lake.paimon.PaimonDataWriter.PaimonFiles;
import java.time.Duration;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

/**
 * One tiering round of a streaming table whose lake format is Paimon ({@link LakeFormat#PAIMON}):
 * the log range since the Paimon table's offsets is written into the Paimon table ({@link
 * PaimonTables}) and committed through Paimon's Java API, then the table's catalog entry is pointed
 * at the Iceberg metadata Paimon generated ({@link PaimonCatalogEntry}).
 *
 * <p><b>Offsets.</b> The offsets JSON ({@link TieredOffsets}) is a property of the Paimon snapshot
 * ({@code ManifestCommittable.addProperty(}{@value TieredOffsets#SUMMARY_KEY}{@code )}, read back
 * with {@code Snapshot.properties()}); a round starts from those of the newest Paimon snapshot that
 * has them. Paimon puts a commit's properties on every snapshot the commit makes (the append and,
 * for a primary-key table, the compaction). Each commit also moves the Paimon tag {@value
 * TieredOffsets#TAG} to its snapshot and then records its offsets in the catalog's {@link
 * TieredOffsetsStore}, so that another engine expiring the Paimon snapshots cannot make a round
 * start again from 0; {@link PaimonStartOffsets} says which of them a round starts from (the
 * table's when it has them, the record only when the table lost them) and when it refuses to start.
 *
 * <p><b>Exactly once.</b> Every commit of a table's rounds uses the same Paimon commit user, {@code
 * lakestream-tiering-<Iceberg table uuid>}, and the commit identifier one above that of the user's
 * newest snapshot when the round started; so two rounds from the same start share their identifier.
 * A commit ({@link PaimonCommitter}) first checks that the table still holds the round's start
 * offsets, then commits with Paimon's {@code filterAndCommitMultiple}, which drops a committable
 * whose identifier the user has committed already. Hence:
 *
 * <ul>
 *   <li>a round that fails or crashes before its commit changed nothing; the next round reads the
 *       same range again;
 *   <li>a round whose commit succeeded but whose answer was lost (or that is committed again) is
 *       not committed twice: its offsets check finds the end offsets and its identifier is taken;
 *   <li>of two rounds from the same start (two tierers), at most one commits;
 *   <li>a process that died after a Paimon commit and before Paimon wrote the commit's Iceberg
 *       metadata, or (primary-key table) between the commit's append and compaction snapshots, is
 *       repaired by the next round, with or without new rows: it has Paimon write the missing
 *       metadata and compacts the buckets the lost compaction would have.
 * </ul>
 *
 * A round whose files are certainly not in the table deletes them ({@code abort}); when another
 * commit with its identifier exists the files are left (they may be its own).
 *
 * <p><b>Primary-key tables.</b> A round folds its changes per key ({@link PrimaryKeyChanges}) and
 * writes each changed key once: its final row as an upsert, or a delete. Paimon merges by key
 * ({@code deduplicate}). Iceberg readers only see a primary-key table's files of the highest level,
 * so every round fully compacts each bucket it wrote before committing: the commit makes an append
 * snapshot and a compaction snapshot, and the latter is what Iceberg readers see.
 *
 * <p>A {@link ComposedLakeTierer} of {@link PaimonTableCreator} (open or create the Paimon table,
 * repair its Iceberg metadata, sync the catalog entry), {@link PaimonStartOffsets}, {@link
 * PaimonDataWriter} and {@link PaimonCommitter}.
 *
 * <p>Thread safe; rounds of different tables may run concurrently.
 */
public final class PaimonTableTiering implements LakeTierer {
  private final ComposedLakeTierer<PaimonLakeTable, PaimonFiles> rounds;
  private final PaimonCommitter committer;

  /** A tiering that keeps no record of the offsets beside the Paimon table. */
  public PaimonTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound) {
    this(lake, connection, hook, readTimeout, maxRowsPerRound, TieredOffsetsStore.NONE);
  }

  /**
   * @param readTimeout how long a round may take to read its ranges before it fails
   * @param maxRowsPerRound log rows after which a round stops reading (at a batch boundary) and
   *     commits what it has
   * @param offsetsStore where every commit's offsets are recorded too, and where a round finds them
   *     when the Paimon table lost them ({@link PaimonStartOffsets})
   */
  public PaimonTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      TieredOffsetsStore offsetsStore) {
    requireNonNull(offsetsStore, "offsetsStore is null");
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException("maxRowsPerRound must be positive: " + maxRowsPerRound);
    }
    PaimonCatalogEntry entries = new PaimonCatalogEntry(lake, offsetsStore);
    this.committer = new PaimonCommitter(entries, offsetsStore);
    this.rounds =
        new ComposedLakeTierer<>(
            connection,
            hook,
            new PaimonTableCreator(lake, entries),
            (path, table) ->
                CommittedOffsetsReader.Start.inLake(
                    PaimonStartOffsets.resolve(
                        path, table.uuid(), table.table(), offsetsStore, true)),
            new PaimonDataWriter(readTimeout, maxRowsPerRound),
            committer);
  }

  /** A round's written and not yet committed files ({@link #prepare}), to {@link #commit}. */
  public static final class PreparedRound {
    private final ComposedLakeTierer.Prepared<PaimonLakeTable, PaimonFiles> prepared;

    private PreparedRound(ComposedLakeTierer.Prepared<PaimonLakeTable, PaimonFiles> prepared) {
      this.prepared = prepared;
    }

    public TablePath path() {
      return prepared.path();
    }

    /** The Paimon commit identifier of the round. */
    public long identifier() {
      return prepared.files().orElseThrow().identifier();
    }

    /** The offsets the round started from. */
    public TieredOffsets from() {
      return prepared.start().from();
    }

    /** The offsets the round's rows reach. */
    public TieredOffsets to() {
      return prepared.to();
    }

    /** Log rows the files hold (for a primary-key table, changelog rows folded into them). */
    public long rows() {
      return prepared.files().orElseThrow().rows();
    }

    /** Data files the round wrote (new files and compaction results). */
    public int files() {
      return prepared.files().orElseThrow().count();
    }
  }

  /**
   * Runs one round: points the catalog entry at the Paimon table's latest state if it is behind (a
   * process that died between a Paimon commit and the entry's update left it so), then {@link
   * #prepare}s, calls the hook, {@link #commit}s and updates the entry.
   *
   * @throws TieringException when the table is not a streaming table of lake format Paimon, cannot
   *     be tiered into Paimon, or a range cannot be read in time
   * @throws RuntimeException from the catalog, the stream RPC, Paimon or the file system
   */
  @Override
  public TieringRound tierOnce(TablePath path) {
    return rounds.tierOnce(path);
  }

  /**
   * Reads the table's new log range and writes it into Paimon data files, committing nothing.
   *
   * @return empty when the table is caught up
   */
  public Optional<PreparedRound> prepare(TablePath path) {
    ComposedLakeTierer.Prepared<PaimonLakeTable, PaimonFiles> prepared = rounds.prepare(path);
    return prepared.files().isEmpty() ? Optional.empty() : Optional.of(new PreparedRound(prepared));
  }

  /**
   * Commits a prepared round ({@link PaimonCommitter}). Calling it again for the same round commits
   * nothing.
   *
   * @return {@link TieringRound.Outcome#COMMITTED}, or {@link TieringRound.Outcome#LOST_RACE} when
   *     another round, or this one before, committed first
   * @throws RuntimeException from Paimon or the catalog; the commit may or may not have happened,
   *     which the next round finds out from the table's offsets
   */
  public TieringRound commit(PreparedRound round) {
    return rounds.commit(round.prepared);
  }

  /**
   * Deletes the files of a round that is certainly not committed.
   *
   * @throws IllegalStateException when a commit of the round's identifier exists
   */
  public void abort(PreparedRound round) {
    PaimonLakeTable table = round.prepared.table();
    committer.abortOrThrow(table.path(), table.table(), round.prepared.files().orElseThrow());
  }

  /** How the Paimon commit users of tiering rounds begin ({@link #commitUser}). */
  static final String COMMIT_USER_PREFIX = "lakestream-tiering-";

  /** The fixed Paimon commit user of a table's rounds. */
  public static String commitUser(Table entry) {
    return COMMIT_USER_PREFIX + entry.uuid();
  }

  /**
   * The offsets a Paimon table holds: those of its newest snapshot that has them, or {@link
   * TieredOffsets#NONE}.
   *
   * @throws IllegalArgumentException when that property is not valid offsets JSON
   */
  public static TieredOffsets offsetsOf(FileStoreTable table) {
    return newestWithOffsets(table)
        .map(snapshot -> TieredOffsets.parse(snapshot.properties().get(TieredOffsets.SUMMARY_KEY)))
        .orElse(TieredOffsets.NONE);
  }

  static Optional<Snapshot> newestWithOffsets(FileStoreTable table) {
    SnapshotManager snapshots = table.snapshotManager();
    Long latest = snapshots.latestSnapshotIdFromFileSystem();
    Long earliest = snapshots.earliestSnapshotId();
    if (latest == null) {
      return Optional.empty();
    }
    for (long id = latest; earliest != null && id >= earliest; id--) {
      if (!snapshots.snapshotExists(id)) {
        break;
      }
      Snapshot snapshot = snapshots.snapshot(id);
      if (snapshot.properties() != null
          && snapshot.properties().containsKey(TieredOffsets.SUMMARY_KEY)) {
        return Optional.of(snapshot);
      }
    }
    return Optional.empty();
  }
}
