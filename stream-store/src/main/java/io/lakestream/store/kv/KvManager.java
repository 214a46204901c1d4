package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KV tablets of one server node, by table id, partition and bucket, under {@code
 * <root>/<tableId>/<bucket>} (or {@code <root>/<tableId>/partitions/<encoded partition>/<bucket>}),
 * laid out as the log's tablets are. A tablet opens on first use through an opener that restores
 * its newest checkpoint and replays the changelog after it, so a tablet handed out is always caught
 * up with the durable log. Thread safe.
 */
public final class KvManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvManager.class);

  private record Key(String tableId, String partition, int bucket) {}

  /** Opens a tablet in a directory and replays the log into it. */
  public interface Opener {
    KvTablet open(Path directory) throws IOException;
  }

  private final Path root;
  private final KvConfig config;
  private final Clock clock;
  private final Map<Key, KvTablet> tablets = new ConcurrentHashMap<>();
  private KvMemory memory; // created with the first tablet: RocksDB loads only when needed
  private final RowCache rowCache;

  public KvManager(Path root, KvConfig config, Clock clock) throws IOException {
    this.root = Files.createDirectories(requireNonNull(root, "root is null"));
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.rowCache = new RowCache(rowCacheBytes(config, Runtime.getRuntime().maxMemory()));
  }

  /**
   * The row cache budget: the configured one, at most a quarter of the heap, so that a small heap
   * is not filled with cached rows.
   */
  static long rowCacheBytes(KvConfig config, long maxHeapBytes) {
    long limit = maxHeapBytes / 4;
    if (config.rowCacheBytes() > limit) {
      LOG.info(
          "The KV row cache gets {} bytes, a quarter of the heap, instead of the {} configured",
          limit,
          config.rowCacheBytes());
      return limit;
    }
    return config.rowCacheBytes();
  }

  /**
   * The row cache every tablet of this node keeps its durable rows in: {@link
   * KvConfig#rowCacheBytes()} in all, at most a quarter of the heap.
   */
  public RowCache rowCache() {
    return rowCache;
  }

  /**
   * The RocksDB memory every tablet of this node shares: one block cache ({@link
   * KvConfig#blockCacheBytes()} in all) with their memtables charged to it; open while this manager
   * is.
   */
  public synchronized KvMemory memory() {
    if (memory == null) {
      memory = new KvMemory(config);
    }
    return memory;
  }

  /**
   * Bytes the shared RocksDB block cache holds now, the tablets' memtables included (they are
   * charged to it); zero while no tablet has opened. A native call, cheap enough for every scrape.
   */
  public synchronized long blockCacheUsageBytes() {
    return memory == null ? 0 : memory.blockCache().getUsage();
  }

  /** Sees one open tablet. */
  @FunctionalInterface
  public interface TabletVisitor {
    void visit(String tableId, String partition, int bucket, KvTablet tablet);
  }

  /**
   * Shows every tablet open now to {@code visitor} (for metrics), without locking: a tablet opened
   * or closed meanwhile may or may not be seen.
   */
  public void forEachTablet(TabletVisitor visitor) {
    tablets.forEach(
        (key, tablet) -> visitor.visit(key.tableId(), key.partition(), key.bucket(), tablet));
  }

  public KvConfig config() {
    return config;
  }

  public Clock clock() {
    return clock;
  }

  /** The tablet of a bucket if it is open, else null (never opens one). */
  public KvTablet openTablet(String tableId, String partition, int bucket) {
    return tablets.get(new Key(tableId, partition, bucket));
  }

  /** The tablet of a bucket, opened through {@code opener} on first use. */
  public KvTablet tablet(String tableId, String partition, int bucket, Opener opener) {
    Key key = new Key(tableId, partition, bucket);
    KvTablet open = tablets.get(key);
    if (open != null) {
      return open;
    }
    return tablets.computeIfAbsent(
        key,
        (Function<Key, KvTablet>)
            k -> {
              try {
                return opener.open(directory(k));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }

  private Path directory(Key key) {
    Path table = root.resolve(key.tableId());
    Path parent =
        key.partition().isEmpty()
            ? table
            : table
                .resolve("partitions")
                .resolve(URLEncoder.encode(key.partition(), StandardCharsets.UTF_8));
    return parent.resolve(Integer.toString(key.bucket()));
  }

  /**
   * The log offset below which a bucket's changelog may be deleted: the offset of its newest
   * checkpoint, since a restart replays the changelog from there (0 when it has none), or {@link
   * Long#MAX_VALUE} when the table has no state here (it is not a primary-key table).
   */
  public long retentionFloor(String tableId, String partition, int bucket) throws IOException {
    if (!Files.isDirectory(root.resolve(tableId))) {
      return Long.MAX_VALUE;
    }
    long newest =
        KvCheckpoints.newestCompleteOffset(
            directory(new Key(tableId, partition, bucket)).resolve("checkpoints"));
    return Math.max(0, newest);
  }

  /**
   * Checkpoints every open tablet that {@link KvTablet#shouldCheckpoint() is due}.
   *
   * @return how many checkpoints were written
   */
  public int checkpointDue() throws IOException {
    int written = 0;
    for (KvTablet tablet : tablets.values()) {
      if (tablet.shouldCheckpoint()) {
        tablet.checkpoint();
        written++;
      }
    }
    return written;
  }

  /** Closes and deletes every tablet of a table. */
  public void dropTable(String tableId) throws IOException {
    for (Key key : tablets.keySet()) {
      if (key.tableId().equals(tableId)) {
        KvTablet tablet = tablets.remove(key);
        if (tablet != null) {
          tablet.close();
        }
      }
    }
    deleteRecursively(root.resolve(tableId));
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

  /** Closes and deletes the tablets of a partition whose log retention removed. */
  public void dropPartition(String tableId, String partition) throws IOException {
    for (Key key : tablets.keySet()) {
      if (key.tableId().equals(tableId) && key.partition().equals(partition)) {
        KvTablet tablet = tablets.remove(key);
        if (tablet != null) {
          tablet.close();
        }
      }
    }
    deleteRecursively(directory(new Key(tableId, partition, 0)).getParent());
  }

  @Override
  public void close() {
    tablets.values().forEach(KvTablet::close);
    tablets.clear();
    synchronized (this) {
      if (memory != null) {
        memory.close();
        memory = null;
      }
    }
  }
}
