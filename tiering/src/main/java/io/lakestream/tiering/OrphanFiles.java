package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.LocationUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the data files that tiering wrote into a table but never committed: the files of a round
 * whose process died (or lost its storage) between writing them and committing. A round that fails
 * in a live process deletes its own files; only a dead process leaves files behind, and nothing
 * else ever removes them. They are never read (no snapshot references them), they only take space.
 *
 * <p><b>What is deleted.</b> Only files that this table's tiering recorded before writing them. A
 * sweep of one table deletes a file when all of these hold:
 *
 * <ul>
 *   <li>a record of this table's tiering ({@link TieringWrites}: kept under the table's own
 *       location, keyed by the table's UUID) names its operation id, and that record is at least
 *       {@link TieringConfig#orphanFileAge()} old. Every file a writer of tiering names carries the
 *       random operation id of its writer ({@code 00000-3-tiering-<uuid>-00001.parquet}, also
 *       embedded in a longer name: the temporary sibling a file IO writes before moving a file into
 *       place), and the writer records that id before it writes anything. Files written by anyone
 *       else (Spark, Flink, a user, the tiering of another table) are never touched, whatever their
 *       names;
 *   <li>it lies under the table's data location ({@code write.data.path}, else {@code <table
 *       location>/data}), and that data location lies under the table's location (a table whose
 *       data location lies elsewhere is not swept);
 *   <li>no snapshot still in the table's metadata references it, as a data file or a delete file of
 *       any of its manifests (snapshots of every branch and tag, and older snapshots the current
 *       one no longer holds, count);
 *   <li>it was last modified at least {@link TieringConfig#orphanFileAge()} ago.
 * </ul>
 *
 * <p>No other table references such a file: tiering writes it under this table's own location, and
 * the catalog lets no table's location be, lie in or contain another's. A record is deleted once
 * every file it names is referenced or deleted.
 *
 * <p><b>Why the age.</b> An uncommitted file is not necessarily an abandoned one: a round in
 * another process (two servers sharing a catalog, or a tiering job) may have written it and be
 * about to commit it. A sweep lists the files first and reads the table's snapshots after, so a
 * commit that lands before the listing ends is seen; one that lands later is protected only by the
 * age. The age must therefore exceed the longest time from a round's first write to its commit
 * (bounded by {@code tiering.read-timeout} plus the commit); the default, one hour, leaves a wide
 * margin. After a {@code CommitStateUnknownException} a round keeps its files; if the commit did
 * not happen they are orphans and a sweep deletes them, if it did they are referenced and kept.
 *
 * <p>Listing needs a file IO with prefix operations ({@link SupportsPrefixOperations}: Hadoop's,
 * S3's, and the server's local one); with another the sweep deletes nothing and says so. Metadata
 * files of an abandoned commit (manifests, manifest lists, metadata JSON) are not tiering's own
 * names and are left to Iceberg's {@code DeleteOrphanFiles}. Files of rounds that ran before
 * tiering recorded its writes are never swept.
 *
 * <p>Thread safe; sweeps of different tables may run concurrently. A sweep that fails part way has
 * deleted only orphans.
 */
public final class OrphanFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);

  /** The {@code OutputFileFactory} name of a tiering file: partition, task, operation id, count. */
  private static final Pattern TIERING_FILE_NAME =
      Pattern.compile(
          "\\d{5}-\\d+-tiering-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\\d{5}");

  /**
   * What one sweep of one table found and did.
   *
   * @param listingSupported false when the table's file IO cannot list files; nothing was deleted
   * @param tieringFiles files under the data location named by a record old enough to sweep
   * @param referenced of those, the ones a snapshot references (kept)
   * @param tooYoung of the unreferenced ones, those younger than the orphan age (kept)
   * @param deleted the locations deleted
   * @param unrecorded files with tiering's names under the data location that no record of this
   *     table names (kept: this table's tiering did not write them, or wrote them before it
   *     recorded its writes, or their record is too young)
   */
  public record Sweep(
      TablePath table,
      boolean listingSupported,
      int tieringFiles,
      int referenced,
      int tooYoung,
      List<String> deleted,
      int unrecorded) {
    public Sweep {
      requireNonNull(table, "table is null");
      deleted = List.copyOf(deleted);
    }

    static Sweep unsupported(TablePath table) {
      return new Sweep(table, false, 0, 0, 0, List.of(), 0);
    }

    static Sweep nothing(TablePath table) {
      return new Sweep(table, true, 0, 0, 0, List.of(), 0);
    }
  }

  private final LakeCatalog lake;
  private final Duration minimumAge;
  private final Clock clock;

  /**
   * @param minimumAge how long ago an unreferenced tiering file and its record must have been last
   *     modified to be deleted
   */
  public OrphanFiles(LakeCatalog lake, Duration minimumAge, Clock clock) {
    this.lake = requireNonNull(lake, "lake is null");
    this.minimumAge = requireNonNull(minimumAge, "minimumAge is null");
    this.clock = requireNonNull(clock, "clock is null");
    if (minimumAge.isNegative()) {
      throw new IllegalArgumentException("minimumAge is negative: " + minimumAge);
    }
  }

  /**
   * Sweeps one table: lists the records of its tiering's writes, then its data location, then reads
   * every snapshot's manifests, then deletes the old unreferenced files that old records name, and
   * the records that name no file left to decide on.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when the table is gone
   * @throws RuntimeException from the catalog or the file system; only orphans were deleted
   */
  public Sweep sweep(TablePath path) {
    Table table = lake.loadTable(path);
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations prefixes)) {
      return Sweep.unsupported(path);
    }
    String dataLocation = dataLocation(table);
    if (!lies(normalize(dataLocation), normalize(table.location()))) {
      LOG.warn(
          "Not sweeping {} for orphaned tiering files: its data location {} lies outside its"
              + " location {}",
          path,
          dataLocation,
          table.location());
      return Sweep.nothing(path);
    }
    Instant cutoff = clock.instant().minus(minimumAge);
    Map<String, TieringWrites.Recorded> due = new HashMap<>();
    List<FileInfo> files = new ArrayList<>();
    int unrecorded = 0;
    try {
      for (TieringWrites.Recorded record : TieringWrites.list(table, prefixes)) {
        if (!Instant.ofEpochMilli(record.createdAtMillis()).isAfter(cutoff)) {
          due.put(record.operationId(), record);
        }
      }
      if (due.isEmpty()) {
        return Sweep.nothing(path);
      }
      // The slash keeps an object store's prefix listing out of siblings such as "data2/".
      for (FileInfo file : prefixes.listPrefix(dataLocation + "/")) {
        if (!isTieringFile(file.location())) {
          continue;
        }
        if (due.containsKey(TieringWrites.operationId(file.location()))) {
          files.add(file);
        } else {
          unrecorded++;
        }
      }
    } catch (UnsupportedOperationException e) {
      return Sweep.unsupported(path);
    }

    Set<String> unfinished = new HashSet<>();
    int kept = 0;
    int young = 0;
    List<String> deleted = new ArrayList<>();
    if (!files.isEmpty()) {
      // After the listing: a commit that made a listed file part of the table is seen.
      table.refresh();
      Set<String> referenced = referencedFiles(table);
      for (FileInfo file : files) {
        if (referenced.contains(normalize(file.location()))) {
          kept++;
        } else if (Instant.ofEpochMilli(file.createdAtMillis()).isAfter(cutoff)) {
          young++;
          unfinished.add(TieringWrites.operationId(file.location()));
        } else {
          io.deleteFile(file.location());
          deleted.add(file.location());
        }
      }
    }
    for (TieringWrites.Recorded record : due.values()) {
      if (!unfinished.contains(record.operationId())) {
        io.deleteFile(record.location());
      }
    }
    if (!deleted.isEmpty()) {
      LOG.info(
          "Deleted {} data files of {} that its tiering recorded, wrote and never committed (older"
              + " than {})",
          deleted.size(),
          path,
          minimumAge);
    }
    return new Sweep(path, true, files.size(), kept, young, deleted, unrecorded);
  }

  /** Whether {@code inner} is {@code outer} or lies below it; both normalized. */
  private static boolean lies(String inner, String outer) {
    String base = outer.endsWith("/") ? outer.substring(0, outer.length() - 1) : outer;
    return inner.equals(base) || inner.startsWith(base + "/");
  }

  /** Whether a file name is one tiering gives its data files (or a temporary sibling of one). */
  public static boolean isTieringFile(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return TIERING_FILE_NAME.matcher(name).find();
  }

  /** Where a table's data files go: {@code write.data.path}, else {@code <location>/data}. */
  public static String dataLocation(Table table) {
    String configured = table.properties().get(TableProperties.WRITE_DATA_LOCATION);
    if (configured != null) {
      return LocationUtil.stripTrailingSlash(configured);
    }
    return LocationUtil.stripTrailingSlash(table.location()) + "/data";
  }

  /** Every data and delete file of every snapshot in the table's metadata, normalized. */
  private static Set<String> referencedFiles(Table table) {
    Set<String> manifests = new HashSet<>();
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (!manifests.add(manifest.path())) {
          continue; // manifests are immutable: each is read once
        }
        try (CloseableIterable<? extends ContentFile<?>> entries =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (ContentFile<?> file : entries) {
            files.add(normalize(file.location()));
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
    }
    return files;
  }

  /** {@code file:///a}, {@code file:/a} and {@code /a} name the same local file. */
  private static String normalize(String location) {
    String path = location.startsWith("file:") ? location.substring(5) : location;
    if (path.startsWith("/")) {
      int start = 0;
      while (start + 1 < path.length() && path.charAt(start + 1) == '/') {
        start++;
      }
      return path.substring(start);
    }
    return location;
  }
}
