package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.io.FileIO;

/**
 * Checks, before a table commit writes anything, that the snapshots it adds name only files in the
 * table's own location, so that a principal who may write one table cannot make another table's
 * files part of it (and read them through it, or have them deleted with it). Every commit path runs
 * it: single-table commits, creates (with a staged snapshot), registers and the tables of a
 * multi-table transaction.
 *
 * <p>For every snapshot the commit adds ({@link TableFiles#addedSnapshots}; every snapshot of a
 * created or registered table), its manifest list and every manifest that its parent snapshot did
 * not list are read, and the manifest list, those manifests and the file of every live entry of
 * them (added or existing; data and delete files) must lie in the table's own locations ({@link
 * TableFiles#ownLocations}) and not in another table's location inside them (which only tables
 * placed before the location rules can have). A manifest that the parent listed was checked when
 * the parent was committed. A manifest's {@code added_snapshot_id} is not trusted: the client
 * writes it, and a crafted manifest list may carry another table's manifests under any id.
 *
 * <p>A violation is a {@link ForbiddenException} (403) naming the file, the table committed to and
 * the table whose location holds the file, if any. At most {@value #MAX_MANIFESTS} manifests are
 * read for one commit; a commit that would need more is refused.
 *
 * <p>Cost: one read of the manifest list per added snapshot (the parent's list is usually in
 * memory, read by the check of the commit that added it) and one read of the path column of each
 * new manifest, typically one or two small files per commit. Thread safe.
 */
final class TableFileConfinement {
  static final int MAX_MANIFESTS = 10_000;

  private final TablePlacement placement;
  private final FileIO io;

  TableFileConfinement(TablePlacement placement, FileIO io) {
    this.placement = requireNonNull(placement, "placement is null");
    this.io = requireNonNull(io, "io is null");
  }

  /**
   * @param base the table's current metadata, or null when the commit creates or registers it
   * @param updated the metadata the commit would make current
   * @throws ForbiddenException if an added snapshot names a file outside the table's own locations
   */
  void check(TableIdentifier identifier, TableMetadata base, TableMetadata updated) {
    List<Snapshot> added = TableFiles.addedSnapshots(base, updated);
    if (added.isEmpty()) {
      return;
    }
    List<String> own = TableFiles.ownLocations(updated);
    List<String> nested = placement.locationsNestedIn(identifier, own);
    Map<Integer, PartitionSpec> specs = updated.specsById();
    Set<String> checked = new HashSet<>();
    for (Snapshot snapshot : added) {
      String manifestList = snapshot.manifestListLocation();
      if (manifestList != null) {
        require(
            identifier,
            updated.location(),
            own,
            nested,
            manifestList,
            "manifest list of snapshot",
            snapshot);
      }
      Set<String> inherited = Set.of();
      Snapshot parent = snapshot.parentId() == null ? null : updated.snapshot(snapshot.parentId());
      if (parent != null) {
        inherited = TableFiles.manifestPaths(parent, io);
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        if (inherited.contains(manifest.path()) || !checked.add(manifest.path())) {
          continue;
        }
        if (checked.size() > MAX_MANIFESTS) {
          throw new ForbiddenException(
              "Cannot commit %s: its new snapshots list more than %d manifests to check",
              identifier, MAX_MANIFESTS);
        }
        require(
            identifier,
            updated.location(),
            own,
            nested,
            manifest.path(),
            "manifest of snapshot",
            snapshot);
        String kind = manifest.content() == ManifestContent.DELETES ? "delete file" : "data file";
        TableFiles.liveFilePaths(
            manifest,
            io,
            specs,
            path ->
                require(
                    identifier,
                    updated.location(),
                    own,
                    nested,
                    path,
                    kind + " of snapshot",
                    snapshot));
      }
    }
  }

  private void require(
      TableIdentifier identifier,
      String location,
      List<String> own,
      List<String> nested,
      String path,
      String what,
      Snapshot snapshot) {
    String canonical = TableFiles.canonicalOrNull(path);
    if (TableFiles.liesIn(canonical, own) && !TableFiles.liesIn(canonical, nested)) {
      return;
    }
    TableIdentifier holder = TableFiles.holder(canonical, identifier, placement.tableLocations());
    throw new ForbiddenException(
        "Cannot commit %s: %s %d, '%s', lies outside the table's location '%s'%s; a table may"
            + " only name files in its own location",
        identifier,
        what,
        snapshot.snapshotId(),
        path,
        location,
        holder == null ? "" : ", in the location of table " + holder);
  }
}
