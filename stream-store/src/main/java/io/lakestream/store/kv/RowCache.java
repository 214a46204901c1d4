package io.lakestream.store.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;

/**
 * Durable rows of primary-key buckets kept on the heap, within one byte budget shared by the
 * buckets of a node. RocksDB stays the state of record; the cache spares the write path the RocksDB
 * read of each key's row before the change (which the changelog's {@code -U} and {@code -D} need)
 * and lets lookups answer from memory.
 *
 * <p>Each bucket has a {@link Rows} view holding its rows exactly as RocksDB stores them. A bucket
 * that opened with an empty store and never gave a row up is <em>complete</em>: its view then holds
 * every row, so a key it lacks has no row and RocksDB need not be asked.
 *
 * <p><b>Layout.</b> A view is log-structured, so that a million rows are about a thousand large
 * arrays to the garbage collector rather than millions of small objects it would copy at every
 * young collection: entries ({@code key length, value length, key, value}) are appended to the
 * view's head chunk, and an open-addressing index maps a key's hash to its entry's chunk and
 * offset. A changed or removed row leaves its old entry as garbage in its chunk. When the budget is
 * exceeded, the view that is adding rows reclaims its own chunks, emptiest first: a chunk whose
 * live entries fit in the head has them moved there; otherwise its rows are given up (evicted) and
 * the view stops being complete. The budget can be overrun by the head chunk and index of each
 * view, which cannot give those up while it is in use.
 *
 * <p>Only rows that are durable belong here: a bucket adds and removes rows when it applies durable
 * changes to RocksDB, and when it reads RocksDB under its write lock; never from reads that could
 * race with such changes. A budget of zero turns the cache off.
 */
public final class RowCache {
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final int ENTRY_HEADER = 2 * Integer.BYTES;
  private static final int MAX_CHUNK_BYTES = 256 << 10;
  private static final int MIN_CHUNK_BYTES = 64;

  /** A view's first chunk; each next one is twice the last, up to the largest chunk. */
  private static final int FIRST_CHUNK_BYTES = 4 << 10;

  private static final int INITIAL_SLOTS = 1 << 10;

  /** Bytes an index slot costs. */
  private static final int SLOT_BYTES = Long.BYTES;

  /**
   * An index slot is one long: the entry's address ({@code 1 + (chunk << OFFSET_BITS | offset)},
   * never 0, which marks an empty slot) in its low {@link #ADDRESS_BITS} bits and the low {@link
   * #TAG_BITS} bits of the key's hash above. A probe compares those bits (keys of other home slots
   * differ in them) before it reads an entry, and costs one cache miss where a separate array of
   * hashes cost two; growing an index of up to 2^22 slots takes each entry's home from them without
   * reading its key.
   */
  private static final int OFFSET_BITS = 20;

  private static final int ADDRESS_BITS = 42;
  private static final long ADDRESS_MASK = (1L << ADDRESS_BITS) - 1;
  private static final int TAG_BITS = Long.SIZE - ADDRESS_BITS;
  private static final int MAX_CHUNKS = 1 << (ADDRESS_BITS - OFFSET_BITS - 1);

  private final long capacityBytes;
  private final int chunkBytes;
  private final AtomicLong usedBytes = new AtomicLong();

  /**
   * @param capacityBytes the budget of all buckets' rows together, chunks and indexes counted; zero
   *     for no cache
   */
  public RowCache(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("Row cache capacity is negative: " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    this.chunkBytes =
        (int) Math.max(MIN_CHUNK_BYTES, Math.min(MAX_CHUNK_BYTES, capacityBytes / 16));
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes the buckets' chunks and indexes take now, as counted against the budget. */
  public long usedBytes() {
    return usedBytes.get();
  }

  /**
   * The size of the largest chunk, and so of the largest entry held: a sixteenth of the budget, at
   * most 256 KiB. A view's chunks grow to it from 4 KiB, so that a bucket with few rows takes
   * little of the budget.
   */
  int chunkBytes() {
    return chunkBytes;
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
   * One bucket's cached rows. Reads are thread safe and mostly lock-free; changes come from the
   * bucket's writer, under its write lock, and exclude reads only while each runs.
   */
  final class Rows {
    private final StampedLock lock = new StampedLock();
    private volatile boolean complete;

    // Index: linear probing over tagged addresses (see ADDRESS_BITS), 0 when empty.
    private long[] slots = new long[0];
    private int size;

    // Chunks by id; a freed id is reused.
    private byte[][] chunks = new byte[4][];
    private int[] chunkFill = new int[4];
    private int[] chunkLive = new int[4];
    private int head = -1;
    private int nextChunkBytes = Math.min(FIRST_CHUNK_BYTES, chunkBytes);
    private long ownBytes;

    private Rows(boolean complete) {
      this.complete = complete;
    }

    /**
     * A copy of the stored row of a key, or null when the cache does not hold one; {@link
     * #complete()}, read after this, tells whether that null means the key has no row.
     */
    byte[] get(BytesKey key) {
      long stamp = lock.tryOptimisticRead();
      if (stamp != 0) {
        try {
          byte[] value = find(key);
          if (lock.validate(stamp)) {
            return value;
          }
        } catch (RuntimeException e) {
          // A change ran during the read and left it a torn view; read again under the lock.
        }
      }
      stamp = lock.readLock();
      try {
        return find(key);
      } finally {
        lock.unlockRead(stamp);
      }
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
      byte[] keyBytes = key.bytes();
      int entryBytes = ENTRY_HEADER + keyBytes.length + value.length;
      long stamp = lock.writeLock();
      try {
        if (entryBytes > chunkBytes) {
          // Too large to hold: the row is not here, so the view no longer has every row.
          complete = false;
          removeLocked(key);
          return;
        }
        makeRoom(entryBytes);
        int slot = slotOf(key);
        long address = append(keyBytes, value);
        if (slots[slot] != 0) {
          release(slots[slot]);
        } else {
          size++;
        }
        slots[slot] = tag(key.hashCode()) | address;
        if (size * 10L > slots.length * 7L) {
          resize(slots.length * 2);
        }
      } finally {
        lock.unlockWrite(stamp);
      }
    }

    /** Holds a key's durable row, or records that it has none when {@code value} is null. */
    void apply(BytesKey key, byte[] value) {
      if (value == null) {
        remove(key);
      } else {
        put(key, value);
      }
    }

    /** Records that a key has no durable row any more. */
    void remove(BytesKey key) {
      if (capacityBytes == 0) {
        return;
      }
      long stamp = lock.writeLock();
      try {
        removeLocked(key);
      } finally {
        lock.unlockWrite(stamp);
      }
    }

    /** Gives every row up, as when the bucket closes. */
    void clear() {
      long stamp = lock.writeLock();
      try {
        complete = false;
        usedBytes.addAndGet(-ownBytes);
        ownBytes = 0;
        slots = new long[0];
        size = 0;
        chunks = new byte[4][];
        chunkFill = new int[4];
        chunkLive = new int[4];
        head = -1;
        nextChunkBytes = Math.min(FIRST_CHUNK_BYTES, chunkBytes);
      } finally {
        lock.unlockWrite(stamp);
      }
    }

    int size() {
      return size;
    }

    private byte[] find(BytesKey key) {
      long[] table = slots;
      byte[][] stored = chunks;
      if (table.length == 0) {
        return null;
      }
      int mask = table.length - 1;
      int hash = key.hashCode();
      long tag = tag(hash);
      byte[] keyBytes = key.bytes();
      for (int i = hash & mask, probes = 0; probes < table.length; i = (i + 1) & mask, probes++) {
        long slot = table[i];
        if (slot == 0) {
          return null;
        }
        if ((slot & ~ADDRESS_MASK) == tag && keyAt(stored, slot, keyBytes)) {
          byte[] chunk = stored[chunkOf(slot)];
          int offset = offsetOf(slot);
          int start = offset + ENTRY_HEADER + (int) INT.get(chunk, offset);
          int valueLength = (int) INT.get(chunk, offset + Integer.BYTES);
          return Arrays.copyOfRange(chunk, start, start + valueLength);
        }
      }
      return null;
    }

    /** The slot holding the key, or the empty slot where it would go; the index is not empty. */
    private int slotOf(BytesKey key) {
      if (slots.length == 0) {
        resize(INITIAL_SLOTS);
      }
      int mask = slots.length - 1;
      int hash = key.hashCode();
      long tag = tag(hash);
      byte[] keyBytes = key.bytes();
      int i = hash & mask;
      while (slots[i] != 0) {
        if ((slots[i] & ~ADDRESS_MASK) == tag && keyAt(chunks, slots[i], keyBytes)) {
          return i;
        }
        i = (i + 1) & mask;
      }
      return i;
    }

    /**
     * The home position, in an index of {@code mask + 1} slots, of the entry a slot points at: from
     * the slot's tag while the index has at most 2^22 slots, else from the entry's key.
     */
    private int homeOf(long slot, int mask) {
      if (mask < 1 << TAG_BITS) {
        return (int) (slot >>> ADDRESS_BITS) & mask;
      }
      return hashAt(slot) & mask;
    }

    /** The hash of the key of the entry a slot points at. */
    private int hashAt(long slot) {
      byte[] chunk = chunks[chunkOf(slot)];
      int offset = offsetOf(slot);
      return BytesKey.hash(chunk, offset + ENTRY_HEADER, (int) INT.get(chunk, offset));
    }

    /** Whether the entry a slot points at, in these chunks, has this key. */
    private static boolean keyAt(byte[][] stored, long slot, byte[] keyBytes) {
      byte[] chunk = stored[chunkOf(slot)];
      int offset = offsetOf(slot);
      int start = offset + ENTRY_HEADER;
      int keyLength = (int) INT.get(chunk, offset);
      return Arrays.equals(chunk, start, start + keyLength, keyBytes, 0, keyBytes.length);
    }

    private void removeLocked(BytesKey key) {
      if (size == 0) {
        return;
      }
      int slot = slotOf(key);
      if (slots[slot] != 0) {
        release(slots[slot]);
        deleteSlot(slot);
      }
    }

    /** Empties a slot, moving later entries of its probe run back so lookups still find them. */
    private void deleteSlot(int emptied) {
      int mask = slots.length - 1;
      int hole = emptied;
      for (int i = (hole + 1) & mask; slots[i] != 0; i = (i + 1) & mask) {
        int home = homeOf(slots[i], mask);
        // The entry may move into the hole if its home is not cyclically within (hole, i].
        boolean homeAfterHole = hole <= i ? home > hole && home <= i : home > hole || home <= i;
        if (!homeAfterHole) {
          slots[hole] = slots[i];
          hole = i;
        }
      }
      slots[hole] = 0;
      size--;
    }

    private void resize(int capacity) {
      long[] oldSlots = slots;
      slots = new long[capacity];
      charge((long) (capacity - oldSlots.length) * SLOT_BYTES);
      int mask = capacity - 1;
      for (long slot : oldSlots) {
        if (slot != 0) {
          int j = homeOf(slot, mask);
          while (slots[j] != 0) {
            j = (j + 1) & mask;
          }
          slots[j] = slot;
        }
      }
    }

    /** Appends an entry to the head chunk, which has room for it; returns its slot value. */
    private long append(byte[] keyBytes, byte[] value) {
      byte[] chunk = chunks[head];
      int offset = chunkFill[head];
      INT.set(chunk, offset, keyBytes.length);
      INT.set(chunk, offset + Integer.BYTES, value.length);
      System.arraycopy(keyBytes, 0, chunk, offset + ENTRY_HEADER, keyBytes.length);
      System.arraycopy(value, 0, chunk, offset + ENTRY_HEADER + keyBytes.length, value.length);
      int entryBytes = ENTRY_HEADER + keyBytes.length + value.length;
      chunkFill[head] += entryBytes;
      chunkLive[head] += entryBytes;
      return address(head, offset);
    }

    /** Marks an entry garbage in its chunk. */
    private void release(long slot) {
      chunkLive[chunkOf(slot)] -= entryBytes(chunks[chunkOf(slot)], offsetOf(slot));
    }

    /**
     * Makes the head chunk able to take an entry: starts a new head when the current one is full,
     * compacts this view's garbage when it outgrows its live rows, and then, while the cache is
     * over its budget, reclaims this view's other chunks.
     */
    private void makeRoom(int entryBytes) {
      if (head >= 0 && chunkFill[head] + entryBytes <= chunks[head].length) {
        return;
      }
      head = newChunk(entryBytes);
      compactGarbage(entryBytes);
      while (usedBytes.get() > capacityBytes) {
        int victim = emptiestChunk();
        if (victim < 0) {
          return;
        }
        if (chunkLive[victim] + entryBytes <= chunks[head].length - chunkFill[head]) {
          moveLiveEntries(victim);
        } else {
          evictChunk(victim);
        }
        freeChunk(victim);
      }
    }

    /**
     * Moves the live entries of this view's emptiest chunks into the head while the view's garbage
     * (changed and removed rows still in its chunks) is more than its live rows and more than a
     * chunk: only a view's own writer reclaims its chunks, so a view that changes a few rows often
     * would otherwise keep its garbage until the shared budget runs out, and then make the views
     * adding rows give up live ones. Stops when the next chunk's entries do not fit in the head.
     */
    private void compactGarbage(int entryBytes) {
      while (true) {
        long held = 0;
        long live = 0;
        for (int id = 0; id < chunks.length; id++) {
          if (id != head && chunks[id] != null) {
            held += chunks[id].length;
            live += chunkLive[id];
          }
        }
        if (held - live <= Math.max(live, chunkBytes)) {
          return;
        }
        int victim = emptiestChunk();
        if (victim < 0 || chunkLive[victim] + entryBytes > chunks[head].length - chunkFill[head]) {
          return;
        }
        moveLiveEntries(victim);
        freeChunk(victim);
      }
    }

    private int emptiestChunk() {
      int emptiest = -1;
      for (int id = 0; id < chunks.length; id++) {
        if (id != head
            && chunks[id] != null
            && (emptiest < 0 || chunkLive[id] < chunkLive[emptiest])) {
          emptiest = id;
        }
      }
      return emptiest;
    }

    private void moveLiveEntries(int victim) {
      byte[] chunk = chunks[victim];
      for (int offset = 0; offset < chunkFill[victim]; offset += entryBytes(chunk, offset)) {
        int slot = slotPointingAt(victim, offset);
        if (slot >= 0) {
          int keyLength = (int) INT.get(chunk, offset);
          int valueLength = (int) INT.get(chunk, offset + Integer.BYTES);
          int start = offset + ENTRY_HEADER;
          slots[slot] =
              (slots[slot] & ~ADDRESS_MASK)
                  | append(
                      Arrays.copyOfRange(chunk, start, start + keyLength),
                      Arrays.copyOfRange(
                          chunk, start + keyLength, start + keyLength + valueLength));
        }
      }
    }

    private void evictChunk(int victim) {
      // Cleared before any row goes, so a reader that misses an evicted row sees it (see get).
      complete = false;
      byte[] chunk = chunks[victim];
      for (int offset = 0; offset < chunkFill[victim]; offset += entryBytes(chunk, offset)) {
        int slot = slotPointingAt(victim, offset);
        if (slot >= 0) {
          deleteSlot(slot);
        }
      }
    }

    /** The index slot whose entry is at this chunk and offset, or -1 if the entry is garbage. */
    private int slotPointingAt(int chunkId, int offset) {
      byte[] chunk = chunks[chunkId];
      int keyLength = (int) INT.get(chunk, offset);
      int hash = BytesKey.hash(chunk, offset + ENTRY_HEADER, keyLength);
      long address = address(chunkId, offset);
      int mask = slots.length - 1;
      for (int i = hash & mask; slots[i] != 0; i = (i + 1) & mask) {
        if ((slots[i] & ADDRESS_MASK) == address) {
          return i;
        }
      }
      return -1;
    }

    /** A new chunk of the next size, or larger if the entry needs it. */
    private int newChunk(int entryBytes) {
      int size = Math.max(entryBytes, nextChunkBytes);
      nextChunkBytes = Math.min(chunkBytes, nextChunkBytes * 2);
      int id = 0;
      while (id < chunks.length && chunks[id] != null) {
        id++;
      }
      if (id == MAX_CHUNKS) {
        throw new IllegalStateException(
            "A row cache view cannot hold more than " + MAX_CHUNKS + " chunks");
      }
      if (id == chunks.length) {
        int grown = Math.min(MAX_CHUNKS, id * 2);
        chunks = Arrays.copyOf(chunks, grown);
        chunkFill = Arrays.copyOf(chunkFill, grown);
        chunkLive = Arrays.copyOf(chunkLive, grown);
      }
      chunks[id] = new byte[size];
      chunkFill[id] = 0;
      chunkLive[id] = 0;
      charge(size);
      return id;
    }

    private void freeChunk(int id) {
      charge(-chunks[id].length);
      chunks[id] = null;
      chunkFill[id] = 0;
      chunkLive[id] = 0;
    }

    private void charge(long bytes) {
      ownBytes += bytes;
      usedBytes.addAndGet(bytes);
    }
  }

  private static int entryBytes(byte[] chunk, int offset) {
    return ENTRY_HEADER
        + (int) INT.get(chunk, offset)
        + (int) INT.get(chunk, offset + Integer.BYTES);
  }

  private static long address(int chunk, int offset) {
    return 1 + (((long) chunk << OFFSET_BITS) | offset);
  }

  private static int chunkOf(long slot) {
    return (int) (((slot & ADDRESS_MASK) - 1) >>> OFFSET_BITS);
  }

  private static int offsetOf(long slot) {
    return (int) ((slot & ADDRESS_MASK) - 1) & ((1 << OFFSET_BITS) - 1);
  }

  /** A key hash's tag in a slot: its low {@link #TAG_BITS} bits. */
  private static long tag(int hash) {
    return (long) (hash & ((1 << TAG_BITS) - 1)) << ADDRESS_BITS;
  }
}
