package io.lakestream.tiering;

import io.lakestream.client.TablePath;
import io.lakestream.lake.CommittedOffsetsReader;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a round of an Iceberg table starts, from the table's committed state and the catalog's
 * {@link TieredOffsetsStore}:
 *
 * <ol>
 *   <li>the offsets of the table's {@link TieredOffsets#tieredSnapshot} (its ancestry, else the tag
 *       {@value TieredOffsets#TAG}) when it has them; the store's record is brought up to them if
 *       it differs (reconciling a process that died between its commit and its store write);
 *   <li>else the store's record, when the table's current snapshot is not older than the recorded
 *       one (a table rolled back past it does not hold what the record says);
 *   <li>else nothing, from the start of every log, but only when the table shows no sign of having
 *       been tiered: when its current snapshot holds files that tiering wrote, starting from 0
 *       would tier every row a second time, so the round fails with a {@link TieringException}
 *       saying so, and keeps failing until someone restores the offsets.
 * </ol>
 */
final class StartOffsets {
  private static final Logger LOG = LoggerFactory.getLogger(StartOffsets.class);

  private StartOffsets() {}

  /**
   * @param reconcile whether to write the table's offsets to the store when it lags behind (a round
   *     does; a status read does not)
   * @throws TieringException when the table was tiered before and neither it nor the store holds
   *     its offsets
   * @throws IllegalArgumentException when the table's offsets summary is not valid
   */
  static CommittedOffsetsReader.Start resolve(
      TablePath path,
      TableMetadata metadata,
      FileIO io,
      TieredOffsetsStore store,
      boolean reconcile) {
    Optional<Snapshot> tiered = TieredOffsets.tieredSnapshot(metadata);
    if (tiered.isPresent()) {
      TieredOffsets offsets = TieredOffsets.of(tiered.get());
      if (reconcile) {
        store.reconcile(
            metadata.uuid(),
            new TieredOffsetsStore.Entry(
                path, tiered.get().snapshotId(), tiered.get().sequenceNumber(), offsets));
      }
      return CommittedOffsetsReader.Start.inLake(offsets);
    }
    Optional<TieredOffsetsStore.Entry> entry = store.load(metadata.uuid());
    Snapshot current = metadata.currentSnapshot();
    if (entry.isPresent()) {
      TieredOffsetsStore.Entry recorded = entry.get();
      if (current == null || current.sequenceNumber() < recorded.sequenceNumber()) {
        throw new TieringException(
            "Table "
                + path
                + " was tiered up to snapshot "
                + recorded.snapshotId()
                + " (offsets "
                + recorded.offsets()
                + " in the catalog's record), but its current state "
                + (current == null ? "has no snapshot" : "is older than that snapshot")
                + " and holds no "
                + TieredOffsets.SUMMARY_KEY
                + ": it was rolled back or replaced. Tiering refuses to guess where to go on;"
                + " restore the offsets (the tag "
                + TieredOffsets.TAG
                + ") to resume");
      }
      LOG.debug(
          "Table {} has lost its {} (expired snapshots and no tag {}); starting from the catalog's"
              + " record of snapshot {}: {}",
          path,
          TieredOffsets.SUMMARY_KEY,
          TieredOffsets.TAG,
          recorded.snapshotId(),
          recorded.offsets());
      return new CommittedOffsetsReader.Start(recorded.offsets(), TieredOffsets.NONE);
    }
    if (current != null && holdsTieringFiles(current, io)) {
      throw new TieringException(
          "Table "
              + path
              + " holds data files that tiering wrote, but no "
              + TieredOffsets.SUMMARY_KEY
              + " any more: the snapshot that recorded them was expired, the tag "
              + TieredOffsets.TAG
              + " is gone and the catalog has no record of its offsets. Tiering refuses to start"
              + " again from offset 0, which would tier every row a second time");
    }
    return new CommittedOffsetsReader.Start(TieredOffsets.NONE, TieredOffsets.NONE);
  }

  /** Whether a snapshot's live data files include one tiering wrote (by its name). */
  private static boolean holdsTieringFiles(Snapshot snapshot, FileIO io) {
    for (ManifestFile manifest : snapshot.allManifests(io)) {
      if (manifest.content() != ManifestContent.DATA) {
        continue;
      }
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io)) {
        for (DataFile file : reader) {
          if (LakeFiles.isTieringFile(file.location())) {
            return true;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    return false;
  }
}
