package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeRecords;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.LogRangeReader;
import io.lakestream.lake.PrimaryKeyChanges;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.scan.LogRangePlanner;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * A commit ({@link #commit}) first checks that the table still holds the round's start offsets,
 * then commits with Paimon's {@code filterAndCommitMultiple}, which drops a committable whose
 * identifier the user has committed already. Hence:
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
 * <p>Thread safe; rounds of different tables may run concurrently.
 */
public final class PaimonTableTiering implements LakeTierer {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonTableTiering.class);

  private final LakeCatalog lake;
  private final Connection connection;
  private final TieringHook hook;
  private final Duration readTimeout;
  private final long maxRowsPerRound;
  private final PaimonCatalogEntry entries;
  private final TieredOffsetsStore offsetsStore;

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
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = requireNonNull(connection, "connection is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException("maxRowsPerRound must be positive: " + maxRowsPerRound);
    }
    this.maxRowsPerRound = maxRowsPerRound;
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
    this.entries = new PaimonCatalogEntry(lake, offsetsStore);
  }

  /**
   * A round's written and not yet committed files.
   *
   * @param table the Paimon table, as the round opened it
   * @param tableUuid the catalog entry's table uuid
   * @param from the offsets the round started from
   * @param to the offsets the round's rows reach
   * @param identifier the Paimon commit identifier of the round
   * @param rows log rows the files hold (for a primary-key table, changelog rows folded into them)
   */
  public record PreparedRound(
      TablePath path,
      FileStoreTable table,
      String tableUuid,
      String commitUser,
      long identifier,
      TieredOffsets from,
      TieredOffsets to,
      List<CommitMessage> messages,
      long rows) {
    public PreparedRound {
      requireNonNull(path, "path is null");
      requireNonNull(table, "table is null");
      requireNonNull(tableUuid, "tableUuid is null");
      requireNonNull(commitUser, "commitUser is null");
      requireNonNull(from, "from is null");
      requireNonNull(to, "to is null");
      messages = List.copyOf(messages);
    }

    /** Data files the round wrote (new files and compaction results). */
    public int files() {
      int files = 0;
      for (CommitMessage message : messages) {
        CommitMessageImpl impl = (CommitMessageImpl) message;
        files += impl.newFilesIncrement().newFiles().size();
        files += impl.compactIncrement().compactAfter().size();
      }
      return files;
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
  public TieringRound tierOnce(TablePath path) {
    Opened opened = open(path);
    Optional<PreparedRound> prepared = prepare(path, opened);
    if (prepared.isEmpty()) {
      return new TieringRound(
          path,
          TieringRound.Outcome.UP_TO_DATE,
          0,
          0,
          -1,
          PaimonStartOffsets.resolve(
              path, opened.entry().uuid().toString(), opened.table(), offsetsStore, false));
    }
    PreparedRound round = prepared.get();
    try {
      hook.beforeCommit(path, List.of());
    } catch (RuntimeException e) {
      abortQuietly(round);
      throw e;
    }
    return commit(round);
  }

  private record Opened(Table entry, FileStoreTable table, boolean primaryKey) {}

  private Opened open(TablePath path) {
    Table entry = lake.loadTable(path);
    TableMetadata metadata = ((HasTableOperations) entry).operations().current();
    if (LakeFormat.of(metadata.properties()) != LakeFormat.PAIMON) {
      throw new TieringException(
          "Table " + path + " does not tier into Paimon (" + LakeFormat.PROPERTY + ")");
    }
    boolean primaryKey =
        TableKind.fromValue(metadata.properties().get(LakestreamProperties.KIND))
                .orElseThrow(
                    () -> new TieringException("Table " + path + " is not a streaming table"))
            == TableKind.PRIMARY_KEY;
    FileStoreTable table = PaimonTables.open(path.name(), metadata, primaryKey);
    restoreIcebergMetadata(path, table, commitUser(entry));
    entries.sync(path, table, primaryKey);
    return new Opened(entry, table, primaryKey);
  }

  /**
   * Has Paimon write the Iceberg metadata of the table's newest snapshot when it is missing: Paimon
   * writes it after its commit (a commit callback), so a process that died in between left a
   * snapshot that Iceberg readers, and the catalog entry ({@link PaimonCatalogEntry#sync}), do not
   * see until the next commit; a table that is caught up has no next commit. A failure is logged
   * and the round goes on: the entry then stays at the snapshot before (union reads take the rest
   * from the log, and log retention keeps it), and the next commit's callback, finding no metadata
   * of the snapshot before it, writes its metadata afresh.
   */
  private static void restoreIcebergMetadata(
      TablePath path, FileStoreTable table, String commitUser) {
    SnapshotManager snapshots = table.snapshotManager();
    Long latest = snapshots.latestSnapshotIdFromFileSystem();
    if (latest == null) {
      return;
    }
    try {
      if (table.fileIO().exists(PaimonCatalogEntry.icebergMetadata(table, latest))) {
        return;
      }
    } catch (IOException e) {
      throw new TieringException("Cannot check the Iceberg metadata of " + path + ": " + e, e);
    }
    Snapshot snapshot = snapshots.snapshot(latest);
    if (!commitUser.equals(snapshot.commitUser())) {
      return;
    }
    LOG.info(
        "Paimon snapshot {} of {} has no Iceberg metadata (a process died after committing it, or"
            + " Paimon could not write it); writing it",
        latest,
        path);
    try {
      writeIcebergMetadata(path, table, commitUser, snapshot, null);
    } catch (RuntimeException e) {
      LOG.warn(
          "Iceberg readers of {} do not see Paimon snapshot {} yet; the round goes on",
          path,
          latest,
          e);
    }
  }

  /**
   * Has Paimon's Iceberg callback write the metadata of a snapshot this commit user committed.
   * Committing again a committable of the snapshot's identifier commits nothing (the identifier is
   * taken) but runs the callback for that identifier's newest snapshot.
   *
   * <p>The callback normally writes the metadata on top of the previous snapshot's, adding a
   * manifest of the snapshot's new files. Paimon 1.4.2 cannot write that manifest when, for some
   * partition field, every new file lies in a partition whose value is null (the manifest's
   * partition summary then has no bounds and the callback fails with a NullPointerException), so a
   * round that tiered only rows of such a partition would leave its snapshot invisible to Iceberg
   * readers, however often it was retried. Then the previous snapshot's metadata file is hidden for
   * a second call, which makes the callback write the metadata afresh over all of the table's
   * files; that works unless every file of the table lies in such a partition.
   *
   * @param failed how the callback failed in the commit that made the snapshot, which is not run on
   *     top of the previous metadata again; null when it is to be tried first
   * @throws TieringException (or Paimon's exception) when the metadata still is not written
   */
  private static void writeIcebergMetadata(
      TablePath path,
      FileStoreTable table,
      String commitUser,
      Snapshot snapshot,
      RuntimeException failed) {
    org.apache.paimon.fs.Path metadata = PaimonCatalogEntry.icebergMetadata(table, snapshot.id());
    org.apache.paimon.fs.Path before = PaimonCatalogEntry.icebergMetadata(table, snapshot.id() - 1);
    org.apache.paimon.fs.Path hidden =
        new org.apache.paimon.fs.Path(before.getParent(), before.getName() + ".hidden");
    org.apache.paimon.fs.FileIO io = table.fileIO();
    RuntimeException incremental = failed;
    if (incremental == null) {
      try {
        runIcebergCallback(path, table, commitUser, snapshot);
      } catch (RuntimeException e) {
        incremental = e;
      }
    }
    try {
      if (io.exists(metadata)) {
        return;
      }
      if (!io.exists(before)) {
        throw notWritten(path, snapshot, incremental);
      }
      LOG.warn(
          "Paimon could not add snapshot {} of {} to the Iceberg metadata of the snapshot before"
              + " ({}); writing it afresh over all of the table's files",
          snapshot.id(),
          path,
          incremental == null ? "no error" : incremental.toString());
      if (!io.rename(before, hidden)) {
        throw new TieringException("Cannot move " + before + " aside", incremental);
      }
      try {
        runIcebergCallback(path, table, commitUser, snapshot);
      } finally {
        if (io.exists(hidden) && !io.exists(before)) {
          io.rename(hidden, before);
        }
      }
      if (!io.exists(metadata)) {
        throw notWritten(path, snapshot, incremental);
      }
    } catch (IOException e) {
      throw new TieringException(
          "Cannot write the Iceberg metadata of Paimon snapshot " + snapshot.id() + " of " + path,
          e);
    }
  }

  private static TieringException notWritten(TablePath path, Snapshot snapshot, Exception cause) {
    return new TieringException(
        "Paimon did not write the Iceberg metadata of snapshot " + snapshot.id() + " of " + path,
        cause);
  }

  private static void runIcebergCallback(
      TablePath path, FileStoreTable table, String commitUser, Snapshot snapshot) {
    try (TableCommitImpl commit =
        (TableCommitImpl) table.newStreamWriteBuilder().withCommitUser(commitUser).newCommit()) {
      commit.filterAndCommitMultiple(List.of(new ManifestCommittable(snapshot.commitIdentifier())));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException(
          "Cannot write the Iceberg metadata of Paimon snapshot " + snapshot.id() + " of " + path,
          e);
    }
  }

  /**
   * The buckets of a primary-key table that hold files below the highest level, i.e. rows Iceberg
   * readers do not see. A round compacts every bucket it writes in the commit of its rows, so there
   * are none unless a process died between the commit's append snapshot and its compaction
   * snapshot: then the newest snapshot is an append with rows.
   */
  private static Set<Bucket> uncompactedBuckets(FileStoreTable table) {
    Snapshot latest = table.snapshotManager().latestSnapshot();
    if (latest == null
        || latest.commitKind() == Snapshot.CommitKind.COMPACT
        || latest.deltaRecordCount() == 0) {
      return Set.of();
    }
    int maxLevel = table.coreOptions().numLevels() - 1;
    Set<Bucket> buckets = new LinkedHashSet<>();
    for (ManifestEntry entry : table.store().newScan().withSnapshot(latest).plan().files()) {
      if (entry.file().level() < maxLevel) {
        buckets.add(new Bucket(entry.partition().copy(), entry.bucket()));
      }
    }
    return buckets;
  }

  private record Bucket(BinaryRow partition, int bucket) {}

  /**
   * Reads the table's new log range and writes it into Paimon data files, committing nothing.
   *
   * @return empty when the table is caught up
   */
  public Optional<PreparedRound> prepare(TablePath path) {
    return prepare(path, open(path));
  }

  private Optional<PreparedRound> prepare(TablePath path, Opened opened) {
    FileStoreTable table = opened.table();
    String uuid = opened.entry().uuid().toString();
    TieredOffsets from = PaimonStartOffsets.resolve(path, uuid, table, offsetsStore, true);
    String commitUser = commitUser(opened.entry());
    long identifier =
        table
                .snapshotManager()
                .latestSnapshotOfUser(commitUser)
                .map(Snapshot::commitIdentifier)
                .orElse(0L)
            + 1;
    io.lakestream.client.Table stream = connection.table(path);
    Map<String, Map<Integer, Long>> next = new TreeMap<>();
    List<LogRange> ranges = LogRanges.since(path, stream, from, next);
    // Compactions a crash lost are done again, also when there are no new rows.
    Set<Bucket> uncompacted = opened.primaryKey() ? uncompactedBuckets(table) : Set.of();
    if (ranges.isEmpty() && uncompacted.isEmpty()) {
      return Optional.empty();
    }
    if (!uncompacted.isEmpty()) {
      LOG.info(
          "Compacting {} buckets of {} whose compaction a crash lost: {}",
          uncompacted.size(),
          path,
          uncompacted);
    }

    org.apache.iceberg.Schema schema = opened.entry().schema();
    LakeRecords records = new LakeRecords(schema);
    PaimonRows rows = new PaimonRows(schema);
    StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(commitUser);
    Map<TableBucket, Long> reached = new HashMap<>();
    List<CommitMessage> messages;
    long[] read = {0};
    try (StreamTableWrite write = builder.newWrite()) {
      if (opened.primaryKey()) {
        PrimaryKeyChanges changes = new PrimaryKeyChanges(records);
        LogRangeReader.read(
            path,
            stream,
            ranges,
            readTimeout,
            maxRowsPerRound,
            reached,
            (range, batch, first, end) -> changes.add(range.partition(), batch, first, end));
        Set<Bucket> touched = new LinkedHashSet<>(uncompacted);
        for (List<PrimaryKeyChanges.KeyChange> partition : changes.keyChanges().values()) {
          for (PrimaryKeyChanges.KeyChange change : partition) {
            GenericRow row =
                change.finalRow() != null
                    ? rows.row(change.finalRow(), RowKind.INSERT)
                    : rows.row(change.anyRow(), RowKind.DELETE);
            write.write(row);
            touched.add(new Bucket(write.getPartition(row).copy(), write.getBucket(row)));
          }
        }
        for (Bucket bucket : touched) {
          write.compact(bucket.partition(), bucket.bucket(), true);
        }
        read[0] = changes.changes();
      } else {
        LogRangeReader.read(
            path,
            stream,
            ranges,
            readTimeout,
            maxRowsPerRound,
            reached,
            (range, batch, first, end) -> {
              FieldVector[] vectors = records.vectorsOf(batch.root());
              for (int row = first; row < end; row++) {
                Record record = records.record(vectors, row);
                try {
                  write.write(rows.row(record, RowKind.INSERT));
                } catch (RuntimeException | IOException e) {
                  throw e;
                } catch (Exception e) {
                  throw new IOException("Cannot write a row of " + path + " to Paimon", e);
                }
              }
              read[0] += end - first;
            });
      }
      messages = write.prepareCommit(true, identifier);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException("Cannot write the Paimon files of " + path + ": " + e, e);
    }
    // A round cut short by its row limit commits the offsets it reached.
    reached.forEach(
        (bucket, offset) -> {
          Map<Integer, Long> buckets = next.get(bucket.partition());
          if (offset > 0) {
            buckets.put(bucket.bucket(), offset);
          } else {
            buckets.remove(bucket.bucket());
          }
        });
    return Optional.of(
        new PreparedRound(
            path,
            table,
            uuid,
            commitUser,
            identifier,
            from,
            TieredOffsets.of(next),
            messages,
            read[0]));
  }

  /**
   * Commits a prepared round, on the condition that the Paimon table still holds the offsets the
   * round started from and that no commit of its identifier exists; then points the catalog entry
   * at the new state. Calling it again for the same round commits nothing.
   *
   * @return {@link TieringRound.Outcome#COMMITTED}, or {@link TieringRound.Outcome#LOST_RACE} when
   *     the condition did not hold (another round, or this one before, committed first)
   * @throws RuntimeException from Paimon or the catalog; the commit may or may not have happened,
   *     which the next round finds out from the table's offsets
   */
  public TieringRound commit(PreparedRound round) {
    TablePath path = round.path();
    FileStoreTable table = round.table();
    SnapshotManager snapshots = table.snapshotManager();
    TieredOffsets current =
        PaimonStartOffsets.resolve(path, round.tableUuid(), table, offsetsStore, false);
    if (!current.equals(round.from()) || identifierTaken(round)) {
      LOG.info(
          "Another round committed {} first (offsets {} instead of {})",
          path,
          current,
          round.from());
      if (!identifierTaken(round)) {
        abortQuietly(round);
      }
      entries.sync(path, table, isPrimaryKey(table));
      return new TieringRound(path, TieringRound.Outcome.LOST_RACE, 0, 0, -1, current);
    }
    ManifestCommittable committable = new ManifestCommittable(round.identifier());
    round.messages().forEach(committable::addFileCommittable);
    committable.addProperty(TieredOffsets.SUMMARY_KEY, round.to().toJson());
    LOG.debug(
        "Committing {} Paimon files of {} up to {} (identifier {})",
        round.files(),
        path,
        round.to(),
        round.identifier());
    int committed;
    try (TableCommitImpl commit =
        (TableCommitImpl)
            table.newStreamWriteBuilder().withCommitUser(round.commitUser()).newCommit()) {
      // A round whose changes cancel out (a key inserted and deleted) still records its offsets.
      commit.ignoreEmptyCommit(false);
      committed = commit.filterAndCommitMultiple(List.of(committable));
    } catch (RuntimeException e) {
      Optional<Snapshot> snapshot = committedSnapshot(round);
      if (snapshot.isEmpty()) {
        throw e;
      }
      // Paimon committed the round and then failed in its Iceberg callback.
      LOG.warn(
          "Paimon committed snapshot {} of {} but did not write its Iceberg metadata",
          snapshot.get().id(),
          path,
          e);
      writeIcebergMetadata(path, table, round.commitUser(), snapshot.get(), e);
      committed = 1;
    } catch (Exception e) {
      throw new TieringException("Cannot close the Paimon commit of " + path + ": " + e, e);
    }
    if (committed == 0) {
      LOG.info("Identifier {} of {} was committed before", round.identifier(), path);
      entries.sync(path, table, isPrimaryKey(table));
      return new TieringRound(
          path,
          TieringRound.Outcome.LOST_RACE,
          0,
          0,
          -1,
          PaimonStartOffsets.resolve(path, round.tableUuid(), table, offsetsStore, false));
    }
    Long snapshotId = snapshots.latestSnapshotIdFromFileSystem();
    // The round's own last snapshot (a foreign commit may have come right after it).
    committedSnapshot(round)
        .ifPresent(
            snapshot ->
                PaimonStartOffsets.recordCommit(
                    path, round.tableUuid(), table, snapshot.id(), round.to(), offsetsStore));
    entries.sync(path, table, isPrimaryKey(table));
    LOG.debug("Tiered {} rows of {} into Paimon: {}", round.rows(), path, round.to());
    return new TieringRound(
        path,
        TieringRound.Outcome.COMMITTED,
        round.rows(),
        round.files(),
        snapshotId == null ? -1 : snapshotId,
        round.to());
  }

  /** Deletes the files of a round that is certainly not committed. */
  public void abort(PreparedRound round) {
    if (identifierTaken(round)) {
      throw new IllegalStateException(
          "Identifier " + round.identifier() + " of " + round.path() + " is committed");
    }
    try (TableCommitImpl commit =
        (TableCommitImpl)
            round.table().newStreamWriteBuilder().withCommitUser(round.commitUser()).newCommit()) {
      commit.abort(round.messages());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException("Cannot abort a Paimon round of " + round.path(), e);
    }
  }

  private void abortQuietly(PreparedRound round) {
    try {
      abort(round);
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete the files of a failed round of {}", round.path(), e);
    }
  }

  private static boolean identifierTaken(PreparedRound round) {
    SnapshotManager snapshots = round.table().snapshotManager();
    return snapshots
        .latestSnapshotOfUser(round.commitUser(), snapshots.latestSnapshotIdFromFileSystem(), null)
        .map(snapshot -> snapshot.commitIdentifier() >= round.identifier())
        .orElse(false);
  }

  /** The newest snapshot of the round's commit user and identifier, if Paimon committed one. */
  private static Optional<Snapshot> committedSnapshot(PreparedRound round) {
    SnapshotManager snapshots = round.table().snapshotManager();
    Long latest = snapshots.latestSnapshotIdFromFileSystem();
    if (latest == null) {
      return Optional.empty();
    }
    return snapshots
        .latestSnapshotOfUser(round.commitUser(), latest, null)
        .filter(snapshot -> snapshot.commitIdentifier() == round.identifier());
  }

  private static boolean isPrimaryKey(FileStoreTable table) {
    return !table.primaryKeys().isEmpty();
  }

  /** The fixed Paimon commit user of a table's rounds. */
  public static String commitUser(Table entry) {
    return "lakestream-tiering-" + entry.uuid();
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

  /** The ranges of log records not in the lake yet, and the offsets the lake reaches with them. */
  static final class LogRanges {
    private LogRanges() {}

    /**
     * Per partition and bucket, {@code [tiered offset, high watermark)} (from the log's start when
     * retention deleted the tiered offset); fills {@code next} with every bucket's offset after the
     * range.
     */
    static List<LogRange> since(
        TablePath path,
        io.lakestream.client.Table stream,
        TieredOffsets from,
        Map<String, Map<Integer, Long>> next) {
      return LogRangePlanner.plan(
          path, stream, from, LogRangePlanner.WhenGone.CONTINUE_FROM_LOG_START, next);
    }
  }
}
