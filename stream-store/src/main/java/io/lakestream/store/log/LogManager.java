package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The log tablets of one server node, by table id and bucket, under {@code
 * <root>/<tableId>/<bucket>}. Tablets open (and recover) on first use. Thread safe.
 */
public final class LogManager implements AutoCloseable {
  private record Key(String tableId, int bucket) {}

  private final Path root;
  private final LogConfig config;
  private final Clock clock;
  private final Map<Key, LogTablet> tablets = new ConcurrentHashMap<>();

  public LogManager(Path root, LogConfig config, Clock clock) throws IOException {
    this.root = Files.createDirectories(requireNonNull(root, "root is null"));
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** The tablet of a bucket, opened (and recovered) on first use. */
  public LogTablet tablet(String tableId, int bucket) {
    if (!tableId.matches("[A-Za-z0-9-]{1,64}")) {
      throw new IllegalArgumentException("Invalid table id: " + tableId);
    }
    return tablets.computeIfAbsent(
        new Key(tableId, bucket),
        key -> {
          try {
            return LogTablet.open(
                root.resolve(tableId).resolve(Integer.toString(bucket)), config, clock);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** Closes and deletes every tablet of a table. */
  public void dropTable(String tableId) throws IOException {
    for (Key key : tablets.keySet()) {
      if (key.tableId().equals(tableId)) {
        LogTablet tablet = tablets.remove(key);
        if (tablet != null) {
          tablet.close();
        }
      }
    }
    Path directory = root.resolve(tableId);
    if (Files.exists(directory)) {
      try (Stream<Path> files = Files.walk(directory)) {
        for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  /**
   * Applies retention to every open tablet; nothing tiers yet, so no floor holds segments back.
   *
   * @return how many segments were deleted
   */
  public int enforceRetention() throws IOException {
    int deleted = 0;
    for (LogTablet tablet : tablets.values()) {
      deleted += tablet.enforceRetention(Long.MAX_VALUE);
    }
    return deleted;
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
