package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The snapshot scans that are open between pages, by an unguessable positive id. A scan is closed
 * when its last page is read, or by {@link #closeIdle} after {@link #IDLE_MILLIS} without a page. A
 * scan id is valid only with the bucket it was opened on. Thread safe; pages of one scan are read
 * one at a time.
 */
public final class KvSnapshotScans {
  /** How long a scan stays open without a page being read. */
  public static final long IDLE_MILLIS = 60_000;

  private record OpenScan(String tabletKey, KvScan scan, AtomicLong lastUsed) {}

  /**
   * One page of a scan.
   *
   * @param offset the log offset the scan's snapshot is consistent to
   * @param done whether this was the last page (the scan is closed)
   */
  public record Page(long scanId, long offset, List<Object[]> rows, boolean done) {
    public Page {
      rows = Collections.unmodifiableList(rows);
    }
  }

  private final Map<Long, OpenScan> scans = new ConcurrentHashMap<>();
  private final SecureRandom scanIds = new SecureRandom();

  /** Keeps {@code scan} open under a new id for the bucket named by {@code tabletKey}. */
  public long register(String tabletKey, KvScan scan) {
    OpenScan open =
        new OpenScan(
            requireNonNull(tabletKey, "tabletKey is null"),
            requireNonNull(scan, "scan is null"),
            new AtomicLong());
    long scanId;
    do {
      scanId = scanIds.nextLong() & Long.MAX_VALUE;
    } while (scanId == 0 || scans.putIfAbsent(scanId, open) != null);
    return scanId;
  }

  /**
   * The next page of at most {@code maxRows} rows of an open scan; the last page closes it.
   *
   * @return null if no scan of that id is open on that bucket
   * @throws IllegalStateException if the scan was closed under the reader (its tablet closed); the
   *     scan is forgotten
   */
  public Page next(long scanId, String tabletKey, int maxRows) {
    OpenScan open = scans.get(scanId);
    if (open == null || !open.tabletKey().equals(tabletKey)) {
      return null;
    }
    open.lastUsed().set(System.currentTimeMillis());
    List<Object[]> rows = new ArrayList<>();
    boolean done;
    synchronized (open) {
      try {
        while (rows.size() < maxRows && open.scan().hasNext()) {
          rows.add(open.scan().next());
        }
        done = !open.scan().hasNext();
      } catch (IllegalStateException e) {
        scans.remove(scanId);
        throw e;
      }
    }
    if (done) {
      scans.remove(scanId);
      open.scan().close();
    }
    return new Page(scanId, open.scan().offset(), rows, done);
  }

  /** Closes and forgets the scans not read for {@link #IDLE_MILLIS}. */
  public void closeIdle() {
    long now = System.currentTimeMillis();
    scans
        .entrySet()
        .removeIf(
            entry -> {
              if (now - entry.getValue().lastUsed().get() < IDLE_MILLIS) {
                return false;
              }
              entry.getValue().scan().close();
              return true;
            });
  }
}
