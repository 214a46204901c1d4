package io.lakestream.flight.scan;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The local Parquet files of Iceberg snapshots, remembered per table and snapshot: a snapshot's
 * files never change, and a tiered log table gains one snapshot per tiering round, so a query
 * planned against the newest snapshot reads the manifests of that round only (its parent's files
 * plus the files the append added) instead of every manifest of the table.
 *
 * <p>A snapshot whose files DuckDB cannot read as they are (a delete file, a format other than
 * Parquet, a location off the local file system) is remembered as such: {@link #files} answers
 * empty for it. A primary-key table's snapshots are listed by {@link #keyed}, with the equality
 * deletes its tiering rounds wrote.
 *
 * <p>Thread safe. Holds at most {@code capacity} snapshots, the least recently used leaving first.
 */
public final class SnapshotFiles {
  private final int capacity;
  private final Map<Key, Optional<List<String>>> snapshots;
  private final Map<Key, Optional<LakeFiles>> keyedSnapshots;

  private record Key(String tableUuid, long snapshotId) {}

  /** A local Parquet file and the data sequence number that orders it against the others. */
  record SequencedFile(String path, long sequence) {
    SequencedFile located(java.util.function.UnaryOperator<String> located) {
      return new SequencedFile(located.apply(path), sequence);
    }
  }

  /**
   * The files a view reads of a snapshot: data files and, for a primary-key table, equality delete
   * files on its key. A delete removes the rows of its keys from data files of lower sequence
   * numbers (Iceberg's rule); the sequence numbers of a snapshot without deletes are not used.
   */
  public record LakeFiles(List<SequencedFile> data, List<SequencedFile> deletes) {
    static final LakeFiles NONE = new LakeFiles(List.of(), List.of());

    public LakeFiles {
      data = List.copyOf(data);
      deletes = List.copyOf(deletes);
    }

    /** Data files without deletes. */
    static LakeFiles of(List<String> data) {
      return new LakeFiles(
          data.stream().map(path -> new SequencedFile(path, 0)).toList(), List.of());
    }

    /** The same files, each under the path {@code located} gives it. */
    LakeFiles map(java.util.function.UnaryOperator<String> located) {
      return new LakeFiles(
          data.stream().map(file -> file.located(located)).toList(),
          deletes.stream().map(file -> file.located(located)).toList());
    }

    List<String> dataPaths() {
      return data.stream().map(SequencedFile::path).toList();
    }

    /** Every file the view reads: the data files, then the delete files. */
    public List<String> paths() {
      List<String> paths = new ArrayList<>(dataPaths());
      deletes.forEach(delete -> paths.add(delete.path()));
      return paths;
    }
  }

  public SnapshotFiles(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.snapshots = new LinkedHashMap<>(16, 0.75f, true);
    this.keyedSnapshots = new LinkedHashMap<>(16, 0.75f, true);
  }

  /**
   * The data files of a primary-key table's snapshot and the equality deletes that apply to them,
   * each with its data sequence number; empty when DuckDB cannot read them as they are (a position
   * delete or deletion vector, an equality delete on other columns than the table's identifier
   * fields, a format other than Parquet, a location off the local file system).
   */
  Optional<LakeFiles> keyed(Table table, Snapshot snapshot) {
    requireNonNull(table, "table is null");
    requireNonNull(snapshot, "snapshot is null");
    Key key = new Key(table.uuid().toString(), snapshot.snapshotId());
    synchronized (this) {
      Optional<LakeFiles> known = keyedSnapshots.get(key);
      if (known != null) {
        return known;
      }
    }
    Optional<LakeFiles> files = plannedKeyed(table, snapshot);
    synchronized (this) {
      keyedSnapshots.put(key, files);
      while (keyedSnapshots.size() > capacity) {
        keyedSnapshots.remove(keyedSnapshots.keySet().iterator().next());
      }
    }
    return files;
  }

  private static Optional<LakeFiles> plannedKeyed(Table table, Snapshot snapshot) {
    Set<Integer> identifiers = table.schema().identifierFieldIds();
    Map<String, SequencedFile> data = new LinkedHashMap<>();
    Map<String, SequencedFile> deletes = new LinkedHashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        Optional<SequencedFile> file = sequenced(task.file());
        if (file.isEmpty()) {
          return Optional.empty();
        }
        data.putIfAbsent(file.get().path(), file.get());
        for (DeleteFile delete : task.deletes()) {
          Optional<SequencedFile> deleteFile = sequenced(delete);
          if (delete.content() != FileContent.EQUALITY_DELETES
              || delete.equalityFieldIds() == null
              || !Set.copyOf(delete.equalityFieldIds()).equals(identifiers)
              || deleteFile.isEmpty()) {
            return Optional.empty();
          }
          deletes.putIfAbsent(deleteFile.get().path(), deleteFile.get());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
    }
    return Optional.of(new LakeFiles(List.copyOf(data.values()), List.copyOf(deletes.values())));
  }

  /** A local Parquet file with its data sequence number, or empty when DuckDB cannot use it. */
  private static Optional<SequencedFile> sequenced(ContentFile<?> file) {
    Long sequence = file.dataSequenceNumber();
    if (file.format() != FileFormat.PARQUET || sequence == null) {
      return Optional.empty();
    }
    return LakeViews.localPath(file.location()).map(path -> new SequencedFile(path, sequence));
  }

  /**
   * The local paths of the data files of {@code snapshot} of {@code table}, in manifest order, or
   * empty when DuckDB cannot read the snapshot's files as they are.
   */
  Optional<List<String>> files(Table table, Snapshot snapshot) {
    requireNonNull(table, "table is null");
    requireNonNull(snapshot, "snapshot is null");
    String uuid = table.uuid().toString();
    Key key = new Key(uuid, snapshot.snapshotId());
    Optional<List<String>> known = cached(key);
    if (known != null) {
      return known;
    }
    Optional<List<String>> files = appendedToParent(table, snapshot, uuid);
    if (files == null) {
      files = planned(table, snapshot);
    }
    remember(key, files);
    return files;
  }

  /**
   * An append's files as its parent's (when remembered and readable) followed by the ones it adds,
   * or null when the snapshot is not such an append.
   */
  private Optional<List<String>> appendedToParent(Table table, Snapshot snapshot, String uuid) {
    Long parentId = snapshot.parentId();
    if (parentId == null || !DataOperations.APPEND.equals(snapshot.operation())) {
      return null;
    }
    Optional<List<String>> parent = cached(new Key(uuid, parentId));
    if (parent == null || parent.isEmpty()) {
      return null;
    }
    Set<String> files = new LinkedHashSet<>(parent.get());
    // Read with the table's specs (Snapshot.addedDataFiles would read each manifest's spec from
    // its file metadata, which Iceberg deprecates with a warning per manifest).
    SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(snapshot).build();
    for (DataFile added : changes.addedDataFiles()) {
      Optional<String> local = readable(added);
      if (local.isEmpty()) {
        return Optional.empty();
      }
      files.add(local.get());
    }
    if (changes.addedDeleteFiles().iterator().hasNext()) {
      return Optional.empty();
    }
    return Optional.of(List.copyOf(files));
  }

  private static Optional<List<String>> planned(Table table, Snapshot snapshot) {
    Set<String> files = new LinkedHashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        Optional<String> local = readable(task.file());
        if (!task.deletes().isEmpty() || local.isEmpty()) {
          return Optional.empty();
        }
        files.add(local.get());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
    }
    return Optional.of(List.copyOf(files));
  }

  /** The local path of a Parquet data file, or empty when DuckDB cannot read it in place. */
  private static Optional<String> readable(DataFile file) {
    if (file.format() != FileFormat.PARQUET) {
      return Optional.empty();
    }
    return LakeViews.localPath(file.location());
  }

  private synchronized Optional<List<String>> cached(Key key) {
    return snapshots.get(key);
  }

  private synchronized void remember(Key key, Optional<List<String>> files) {
    snapshots.put(key, files);
    while (snapshots.size() > capacity) {
      snapshots.remove(snapshots.keySet().iterator().next());
    }
  }
}
