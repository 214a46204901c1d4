package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The log tablets of one server node, by table id, partition and bucket. Tablets open (and recover)
 * on first use. Thread safe.
 *
 * <p>On disk, a bucket of an unpartitioned table is {@code <root>/<tableId>/<bucket>}, and a bucket
 * of a partition {@code <root>/<tableId>/partitions/<encoded partition>/<bucket>}, where the
 * partition's name is URL-encoded once more so that it is one file name. A partition exists once
 * its directory does: the first write to it creates it, and {@link #enforceRetention()} removes it
 * whole once every row in it is past retention.
 */
public final class LogManager implements AutoCloseable {
  /** The partition of an unpartitioned table. */
  public static final String UNPARTITIONED = "";

  private static final String PARTITIONS_DIRECTORY = "partitions";
  private static final int MAX_FILE_NAME_BYTES = 255;

  private record Key(String tableId, String partition, int bucket) {}

  private final Path root;
  private final LogConfig config;
  private final Clock clock;
  private final Map<Key, LogTablet> tablets = new ConcurrentHashMap<>();
  // Held while a partition's tablets open or while a partition is removed, so neither sees half
  // of the other.
  private final Object partitionLifecycle = new Object();
  private volatile java.util.function.BiConsumer<String, String> partitionExpired =
      (tableId, partition) -> {};

  public LogManager(Path root, LogConfig config, Clock clock) throws IOException {
    this.root = Files.createDirectories(requireNonNull(root, "root is null"));
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** The offset below which retention may delete a bucket's log. */
  @FunctionalInterface
  public interface RetentionFloor {
    long floor(String tableId, String partition, int bucket) throws IOException;
  }

  private volatile RetentionFloor retentionFloor = (tableId, partition, bucket) -> Long.MAX_VALUE;

  /** How long a table keeps its log: the server's {@code log.retention} unless the table says. */
  @FunctionalInterface
  public interface RetentionTime {
    /**
     * The retention time of a table.
     *
     * @param tableId the table's id
     * @return how long its rows are kept
     */
    Duration of(String tableId);
  }

  private volatile RetentionTime retentionTime;

  /**
   * Sets what holds retention back per bucket (the state checkpoint of a primary-key table, and
   * later the tiered offset); by default nothing does.
   */
  public void retentionFloor(RetentionFloor floor) {
    this.retentionFloor = requireNonNull(floor, "floor is null");
  }

  /**
   * Sets each table's retention time (a table property may override the server's {@code
   * log.retention}); the server's for every table until called.
   */
  public void retentionTime(RetentionTime time) {
    this.retentionTime = requireNonNull(time, "time is null");
  }

  /**
   * Sets what to do after retention removed a partition (table id, partition name), such as
   * dropping state derived from its log; called with no lock held.
   */
  public void onPartitionExpired(java.util.function.BiConsumer<String, String> listener) {
    this.partitionExpired = requireNonNull(listener, "listener is null");
  }

  /** The tablet of a bucket of an unpartitioned table, opened (and recovered) on first use. */
  public LogTablet tablet(String tableId, int bucket) {
    return tablet(tableId, UNPARTITIONED, bucket);
  }

  /**
   * The tablet of a bucket of a partition, opened (and recovered) on first use; the partition is
   * created if it does not exist yet.
   *
   * @throws IllegalArgumentException for an invalid table id or a partition name too long to store
   */
  public LogTablet tablet(String tableId, String partition, int bucket) {
    Key key = key(tableId, partition, bucket);
    LogTablet open = tablets.get(key);
    if (open != null) {
      return open;
    }
    if (partition.isEmpty()) {
      return tablets.computeIfAbsent(key, this::open);
    }
    synchronized (partitionLifecycle) {
      return tablets.computeIfAbsent(key, this::open);
    }
  }

  /**
   * The tablet of a bucket of an existing partition, for readers, which must not create partitions;
   * empty when the partition does not exist. Every bucket of an unpartitioned table exists.
   */
  public Optional<LogTablet> existingTablet(String tableId, String partition, int bucket) {
    Key key = key(tableId, partition, bucket);
    LogTablet open = tablets.get(key);
    if (open != null || partition.isEmpty()) {
      return Optional.of(open != null ? open : tablet(tableId, partition, bucket));
    }
    synchronized (partitionLifecycle) {
      if (!Files.isDirectory(partitionDirectory(tableId, partition))) {
        return Optional.empty();
      }
      return Optional.of(tablets.computeIfAbsent(key, this::open));
    }
  }

  private static Key key(String tableId, String partition, int bucket) {
    if (!tableId.matches("[A-Za-z0-9-]{1,64}")) {
      throw new IllegalArgumentException("Invalid table id: " + tableId);
    }
    requireNonNull(partition, "partition is null");
    if (directoryName(partition).getBytes(StandardCharsets.UTF_8).length > MAX_FILE_NAME_BYTES) {
      throw new IllegalArgumentException(
          "Partition name is too long to store (at most "
              + MAX_FILE_NAME_BYTES
              + " bytes once encoded): "
              + partition);
    }
    return new Key(tableId, partition, bucket);
  }

  private LogTablet open(Key key) {
    Path directory =
        key.partition().isEmpty()
            ? root.resolve(key.tableId())
            : partitionDirectory(key.tableId(), key.partition());
    try {
      return LogTablet.open(directory.resolve(Integer.toString(key.bucket())), config, clock);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path partitionDirectory(String tableId, String partition) {
    return root.resolve(tableId).resolve(PARTITIONS_DIRECTORY).resolve(directoryName(partition));
  }

  private static String directoryName(String partition) {
    return URLEncoder.encode(partition, StandardCharsets.UTF_8);
  }

  /** The partitions a table has on this node, sorted by name. */
  public List<String> partitions(String tableId) throws IOException {
    key(tableId, UNPARTITIONED, 0);
    TreeSet<String> names = new TreeSet<>();
    synchronized (partitionLifecycle) {
      Path directory = root.resolve(tableId).resolve(PARTITIONS_DIRECTORY);
      if (Files.isDirectory(directory)) {
        try (Stream<Path> entries = Files.list(directory)) {
          entries.forEach(
              entry ->
                  names.add(
                      URLDecoder.decode(entry.getFileName().toString(), StandardCharsets.UTF_8)));
        }
      }
    }
    return List.copyOf(names);
  }

  /** Closes and deletes every tablet of a table, in every partition. */
  public void dropTable(String tableId) throws IOException {
    synchronized (partitionLifecycle) {
      closeTablets(key -> key.tableId().equals(tableId));
      deleteRecursively(root.resolve(tableId));
    }
  }

  private void closeTablets(java.util.function.Predicate<Key> which) throws IOException {
    for (Key key : tablets.keySet()) {
      if (which.test(key)) {
        LogTablet tablet = tablets.remove(key);
        if (tablet != null) {
          tablet.close();
        }
      }
    }
  }

  private static void deleteRecursively(Path directory) throws IOException {
    if (Files.exists(directory)) {
      try (Stream<Path> files = Files.walk(directory)) {
        for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  /**
   * Applies retention: deletes expired segments of every open tablet that lie below its {@link
   * #retentionFloor floor}, and removes whole every partition whose newest row is older than the
   * retention time.
   *
   * @return how many segments and partitions were deleted
   */
  public int enforceRetention() throws IOException {
    int deleted = expirePartitions();
    for (Map.Entry<Key, LogTablet> entry : tablets.entrySet()) {
      Key key = entry.getKey();
      deleted +=
          entry
              .getValue()
              .enforceRetention(
                  retentionFloor.floor(key.tableId(), key.partition(), key.bucket()),
                  retentionOf(key.tableId()).toMillis());
    }
    return deleted;
  }

  private Duration retentionOf(String tableId) {
    RetentionTime time = retentionTime;
    return time == null ? config.retention() : time.of(tableId);
  }

  private int expirePartitions() throws IOException {
    List<Path> tables = new ArrayList<>();
    try (Stream<Path> entries = Files.list(root)) {
      entries
          .filter(entry -> Files.isDirectory(entry.resolve(PARTITIONS_DIRECTORY)))
          .forEach(tables::add);
    }
    int expired = 0;
    for (Path table : tables) {
      String tableId = table.getFileName().toString();
      long oldestKept = clock.millis() - retentionOf(tableId).toMillis();
      for (String partition : partitions(tableId)) {
        boolean removed;
        synchronized (partitionLifecycle) {
          removed = closeIfIdle(tableId, partition, oldestKept);
          if (removed) {
            deleteRecursively(partitionDirectory(tableId, partition));
            expired++;
          }
        }
        if (removed) {
          partitionExpired.accept(tableId, partition);
        }
      }
    }
    return expired;
  }

  /**
   * Closes every bucket tablet of a partition if none holds a batch committed at or after {@code
   * oldestKept}; when one does, the tablets closed so far reopen on their next use.
   */
  private boolean closeIfIdle(String tableId, String partition, long oldestKept)
      throws IOException {
    Path directory = partitionDirectory(tableId, partition);
    List<Path> buckets;
    try (Stream<Path> entries = Files.list(directory)) {
      buckets = entries.toList();
    }
    boolean idle = true;
    for (Path bucket : buckets) {
      int index;
      try {
        index = Integer.parseInt(bucket.getFileName().toString());
      } catch (NumberFormatException e) {
        continue;
      }
      LogTablet tablet = tablets.computeIfAbsent(key(tableId, partition, index), this::open);
      // A partition goes only once nothing of it is held back (untiered rows, say).
      if (retentionFloor.floor(tableId, partition, index) < tablet.logEndOffset()
          || !tablet.closeIfIdleSince(oldestKept)) {
        idle = false;
        break;
      }
    }
    tablets
        .entrySet()
        .removeIf(
            entry ->
                entry.getKey().tableId().equals(tableId)
                    && entry.getKey().partition().equals(partition)
                    && entry.getValue().isClosed());
    return idle;
  }

  /** Sees one open tablet. */
  @FunctionalInterface
  public interface TabletVisitor {
    void visit(String tableId, String partition, int bucket, LogTablet tablet);
  }

  /**
   * Shows every tablet open now to {@code visitor} (for metrics), without locking: a tablet opened
   * or closed meanwhile may or may not be seen.
   */
  public void forEachTablet(TabletVisitor visitor) {
    tablets.forEach(
        (key, tablet) -> visitor.visit(key.tableId(), key.partition(), key.bucket(), tablet));
  }

  public LogConfig config() {
    return config;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (LogTablet tablet : tablets.values()) {
      try {
        tablet.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    tablets.clear();
    if (first != null) {
      throw first;
    }
  }
}
