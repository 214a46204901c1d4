package io.lakestream.lake.paimon;

import io.lakestream.client.TablePath;
import io.lakestream.lake.TieringException;
import java.io.IOException;
import java.util.List;
import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg metadata Paimon writes of its snapshots (its commit callback), through which Iceberg
 * readers and the catalog entry ({@link PaimonCatalogEntry}) see a Paimon table: written again when
 * a process died before Paimon wrote it, and written afresh when Paimon cannot add a snapshot to
 * the metadata before it.
 */
final class PaimonIcebergMetadata {
  // Logs as the tierer, whose logger operators (and the crash tests) turn up.
  private static final Logger LOG = LoggerFactory.getLogger(PaimonTableTiering.class);

  private PaimonIcebergMetadata() {}

  /**
   * Has Paimon write the Iceberg metadata of the table's newest snapshot when it is missing: Paimon
   * writes it after its commit (a commit callback), so a process that died in between left a
   * snapshot that Iceberg readers, and the catalog entry ({@link PaimonCatalogEntry#sync}), do not
   * see until the next commit; a table that is caught up has no next commit. A failure is logged
   * and the round goes on: the entry then stays at the snapshot before (union reads take the rest
   * from the log, and log retention keeps it), and the next commit's callback, finding no metadata
   * of the snapshot before it, writes its metadata afresh.
   */
  static void restore(TablePath path, FileStoreTable table, String commitUser) {
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
      write(path, table, commitUser, snapshot, null);
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
  static void write(
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
}
