package io.lakestream.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * The files a table's metadata names, and whether they lie in the table's own location: what the
 * commit-time check ({@link TableFileConfinement}) and purge ({@link TablePurge}) both need.
 *
 * <p>A table's own locations are its {@code location} and the paths of its {@linkplain
 * TablePlacement#PATH_PROPERTIES path properties} (which the location rules keep inside it), in
 * canonical form ({@link TableLocations#canonical}). A file lies in them when its canonical path
 * is, or lies below, one of them; a path that cannot be read as a location (another scheme) lies
 * nowhere. Static helpers only.
 */
final class TableFiles {
  /** The manifest field read for a file's path: the only one either check needs. */
  private static final List<String> FILE_PATH = List.of("file_path");

  private TableFiles() {}

  /** The canonical locations that are the table's own; see the class comment. */
  static List<String> ownLocations(TableMetadata metadata) {
    return TablePlacement.occupied(metadata);
  }

  /**
   * The canonical form of {@code path}, or null when it names no location the catalog understands.
   */
  static String canonicalOrNull(String path) {
    if (path == null) {
      return null;
    }
    try {
      return TableLocations.canonical(path);
    } catch (BadRequestException e) {
      return null;
    }
  }

  /** Whether the canonical {@code path} lies in one of the canonical {@code locations}. */
  static boolean liesIn(String path, List<String> locations) {
    if (path == null) {
      return false;
    }
    for (String location : locations) {
      if (TableLocations.contains(location, path)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The table of the warehouse other than {@code table} whose location holds the canonical {@code
   * path}, for messages; null when none does.
   */
  static TableIdentifier holder(
      String path, TableIdentifier table, Map<TableIdentifier, List<String>> tables) {
    if (path == null) {
      return null;
    }
    for (Map.Entry<TableIdentifier, List<String>> other : tables.entrySet()) {
      if (!other.getKey().equals(table) && liesIn(path, other.getValue())) {
        return other.getKey();
      }
    }
    return null;
  }

  /**
   * Calls {@code paths} with the path of every live entry (added or existing) of a data or delete
   * manifest, reading only the path column.
   */
  static void liveFilePaths(
      ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs, Consumer<String> paths) {
    try (ManifestReader<? extends ContentFile<?>> reader = open(manifest, io, specs);
        CloseableIterable<? extends ContentFile<?>> files = reader) {
      for (ContentFile<?> file : files) {
        paths.accept(file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ManifestReader<? extends ContentFile<?>> open(
      ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs) {
    if (manifest.content() == ManifestContent.DELETES) {
      return ManifestFiles.readDeleteManifest(manifest, io, specs).select(FILE_PATH);
    }
    return ManifestFiles.read(manifest, io, specs).select(FILE_PATH);
  }

  /**
   * The snapshots of {@code updated} that {@code base} did not hold: every snapshot when {@code
   * base} is null, and a snapshot whose id {@code base} held with another manifest list (removed
   * and added again in one commit).
   */
  static List<Snapshot> addedSnapshots(TableMetadata base, TableMetadata updated) {
    List<Snapshot> added = new ArrayList<>();
    for (Snapshot snapshot : updated.snapshots()) {
      Snapshot before = base == null ? null : base.snapshot(snapshot.snapshotId());
      if (before == null
          || snapshot.manifestListLocation() == null
          || !Objects.equals(before.manifestListLocation(), snapshot.manifestListLocation())
          || !Objects.equals(before.parentId(), snapshot.parentId())) {
        added.add(snapshot);
      }
    }
    return added;
  }

  /** The paths of the manifests a snapshot lists. */
  static Set<String> manifestPaths(Snapshot snapshot, FileIO io) {
    Set<String> paths = new HashSet<>();
    for (ManifestFile manifest : snapshot.allManifests(io)) {
      paths.add(manifest.path());
    }
    return paths;
  }
}
