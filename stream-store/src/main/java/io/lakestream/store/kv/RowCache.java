package io.lakestream.store.kv;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Durable rows of primary-key buckets kept on the heap, within one byte budget shared by the
 * buckets of a node. RocksDB stays the state of record; the cache spares the write path the RocksDB
 * read of each key's row before the change (which the changelog's {@code -U} and {@code -D} need)
 * and lets lookups answer from memory.
 *
 * <p>Each bucket has a {@link Rows} view holding its rows exactly as RocksDB stores them. A bucket
 * that opened with an empty store and never gave a row up to the budget is <em>complete</em>: its
 * view then holds every row, so a key it lacks has no row and RocksDB need not be asked. When the
 * budget is exceeded, the bucket that is adding rows gives up some of its own (in hash order, an
 * approximation of random eviction) and stops being complete.
 *
 * <p>Only rows that are durable belong here: a bucket adds and removes rows when it applies durable
 * changes to RocksDB, and when it reads RocksDB under its write lock; never from reads that could
 * race with such changes. A budget of zero turns the cache off.
 */
public final class RowCache {
  /**
   * Heap bytes an entry costs beyond its key and value arrays: the map node, the key wrapper and
   * two array headers, with slack for the table.
   */
  static final int ENTRY_OVERHEAD = 112;

  private final long capacityBytes;
  private final AtomicLong usedBytes = new AtomicLong();

  /**
   * @param capacityBytes the budget of all buckets' rows together, keys, values and {@link
   *     #ENTRY_OVERHEAD} counted; zero for no cache
   */
  public RowCache(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("Row cache capacity is negative: " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes the buckets' rows take now, as counted against the budget. */
  public long usedBytes() {
    return usedBytes.get();
  }

  /**
   * A view for one bucket.
   *
   * @param storeEmpty whether the bucket's store held no row when it opened, so that the view
   *     starts complete
   */
  Rows newRows(boolean storeEmpty) {
    return new Rows(storeEmpty && capacityBytes > 0);
  }

  /**
   * One bucket's cached rows. Reads are thread safe; changes come from the bucket's writer, under
   * its write lock.
   */
  final class Rows {
    private final Map<BytesKey, byte[]> rows = new ConcurrentHashMap<>();
    private volatile boolean complete;
    private Iterator<BytesKey> evictionCursor;
    private long ownBytes;

    private Rows(boolean complete) {
      this.complete = complete;
    }

    /**
     * The stored row of a key, or null when the cache does not hold one; {@link #complete()}, read
     * after this, tells whether that null means the key has no row.
     */
    byte[] get(BytesKey key) {
      return rows.get(key);
    }

    /** Whether every row of the bucket is held, so that a key missing here has none. */
    boolean complete() {
      return complete;
    }

    /** Holds the durable row of a key. */
    void put(BytesKey key, byte[] value) {
      if (capacityBytes == 0) {
        return;
      }
      byte[] previous = rows.put(key, value);
      long delta =
          previous == null
              ? key.bytes().length + value.length + ENTRY_OVERHEAD
              : value.length - previous.length;
      ownBytes += delta;
      if (usedBytes.addAndGet(delta) > capacityBytes) {
        evictFor(key);
      }
    }

    /** Records that a key has no durable row any more. */
    void remove(BytesKey key) {
      byte[] previous = rows.remove(key);
      if (previous != null) {
        release(key, previous);
      }
    }

    /** Gives every row up, as when the bucket closes. */
    void clear() {
      complete = false;
      usedBytes.addAndGet(-ownBytes);
      ownBytes = 0;
      rows.clear();
      evictionCursor = null;
    }

    /**
     * Gives up this bucket's rows other than {@code kept}, the one just added, until the cache is a
     * sixteenth below its budget (so that eviction runs in rounds, not at every put), or this
     * bucket has no other left.
     */
    private void evictFor(BytesKey kept) {
      // Cleared before any row goes, so a reader that misses an evicted row sees it (see get).
      complete = false;
      long target = capacityBytes - capacityBytes / 16;
      while (usedBytes.get() > target && rows.size() > 1) {
        if (evictionCursor == null || !evictionCursor.hasNext()) {
          evictionCursor = rows.keySet().iterator();
        }
        BytesKey key = evictionCursor.next();
        if (key.equals(kept)) {
          continue;
        }
        byte[] value = rows.remove(key);
        if (value != null) {
          release(key, value);
        }
      }
    }

    private void release(BytesKey key, byte[] value) {
      long size = key.bytes().length + value.length + ENTRY_OVERHEAD;
      ownBytes -= size;
      usedBytes.addAndGet(-size);
    }

    int size() {
      return rows.size();
    }
  }
}
