package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files of a dropped table, when the drop asked for a purge: its data and delete files,
 * manifests, manifest lists, statistics and metadata files, as far as they lie in the table's own
 * locations ({@link TableFiles#ownLocations}) and in no other table's location. A file the metadata
 * names anywhere else (metadata crafted to name another table's files, or committed before the
 * commit-time checks) is left where it is, and the purge logs how many such files it left with a
 * few of their paths.
 *
 * <p>Best effort, as Iceberg's own purge: a file that cannot be read or deleted is logged and
 * skipped. Not atomic: the table is already dropped when its files go. Thread safe.
 */
final class TablePurge {
  private static final Logger LOG = LoggerFactory.getLogger(TablePurge.class);
  private static final int LOGGED_PATHS = 5;

  private final FileIO io;

  TablePurge(FileIO io) {
    this.io = requireNonNull(io, "io is null");
  }

  /**
   * @param others the canonical locations of every other table of the warehouse, whose files are
   *     never deleted even if they lie in this table's locations
   */
  void purge(
      TableIdentifier identifier,
      TableMetadata metadata,
      Map<TableIdentifier, List<String>> others) {
    List<String> own = TableFiles.ownLocations(metadata);
    List<String> foreign = new ArrayList<>();
    for (Map.Entry<TableIdentifier, List<String>> other : others.entrySet()) {
      if (!other.getKey().equals(identifier)) {
        for (String location : other.getValue()) {
          if (!own.contains(location)) {
            foreign.add(location);
          }
        }
      }
    }
    Set<String> files = named(identifier, metadata);
    List<String> deletable = new ArrayList<>();
    List<String> left = new ArrayList<>();
    for (String file : files) {
      String canonical = TableFiles.canonicalOrNull(file);
      if (TableFiles.liesIn(canonical, own) && !TableFiles.liesIn(canonical, foreign)) {
        deletable.add(file);
      } else {
        left.add(file);
      }
    }
    if (!left.isEmpty()) {
      LOG.warn(
          "Purge of dropped table {} left {} files outside its location {}, e.g. {}",
          identifier,
          left.size(),
          metadata.location(),
          left.subList(0, Math.min(LOGGED_PATHS, left.size())));
    }
    delete(identifier, deletable);
  }

  /** Every file the metadata names: content files first, the metadata file last. */
  private Set<String> named(TableIdentifier identifier, TableMetadata metadata) {
    Set<String> contents = new LinkedHashSet<>();
    Set<String> manifests = new LinkedHashSet<>();
    Set<String> lists = new LinkedHashSet<>();
    Set<String> seen = new java.util.HashSet<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        lists.add(snapshot.manifestListLocation());
      }
      List<ManifestFile> listed;
      try {
        listed = snapshot.allManifests(io);
      } catch (RuntimeException e) {
        LOG.warn(
            "Purge of dropped table {} cannot read manifest list {}: {}",
            identifier,
            snapshot.manifestListLocation(),
            e.toString());
        continue;
      }
      for (ManifestFile manifest : listed) {
        if (!seen.add(manifest.path())) {
          continue;
        }
        manifests.add(manifest.path());
        try {
          TableFiles.liveFilePaths(manifest, io, metadata.specsById(), contents::add);
        } catch (RuntimeException e) {
          LOG.warn(
              "Purge of dropped table {} cannot read manifest {}: {}",
              identifier,
              manifest.path(),
              e.toString());
        }
      }
    }
    Set<String> files = new LinkedHashSet<>(contents);
    files.addAll(manifests);
    files.addAll(lists);
    for (StatisticsFile statistics : metadata.statisticsFiles()) {
      files.add(statistics.path());
    }
    for (PartitionStatisticsFile statistics : metadata.partitionStatisticsFiles()) {
      files.add(statistics.path());
    }
    for (TableMetadata.MetadataLogEntry previous : metadata.previousFiles()) {
      files.add(previous.file());
    }
    if (metadata.metadataFileLocation() != null) {
      files.add(metadata.metadataFileLocation());
    }
    return files;
  }

  private void delete(TableIdentifier identifier, List<String> files) {
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(files);
      } catch (BulkDeletionFailureException e) {
        LOG.warn(
            "Purge of dropped table {} could not delete {} of its files",
            identifier,
            e.numberFailedObjects());
      }
      return;
    }
    int failed = 0;
    for (String file : files) {
      try {
        io.deleteFile(file);
      } catch (RuntimeException e) {
        failed++;
      }
    }
    if (failed > 0) {
      LOG.warn("Purge of dropped table {} could not delete {} of its files", identifier, failed);
    }
  }
}
