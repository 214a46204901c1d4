package io.lakestream.store.kv;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes a tablet has prepared but whose changelog is not durable in the log yet: per mutation
 * that changed a key, the key's row after it, at the offset of the mutation's last changelog
 * record. Later prepares read through it (so they see earlier prepared changes); lookups never do.
 * Not thread-safe: the tablet's write lock guards it.
 */
final class PreWriteBuffer {
  /** A key's state after one mutation. */
  static final class Entry {
    final long offset;
    final BytesKey wrappedKey;
    final byte[] key;
    final Object[] row;
    final byte[] value;
    private Entry previous;
    private boolean durable;

    /**
     * @param row the row after the mutation, null if it deleted the key or is known encoded only
     * @param value the encoded row (current schema), null if and only if it deleted the key
     */
    Entry(long offset, BytesKey key, Object[] row, byte[] value) {
      this.offset = offset;
      this.wrappedKey = key;
      this.key = key.bytes();
      this.row = row;
      this.value = value;
    }
  }

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private final Map<BytesKey, Entry> latest = new HashMap<>();

  /** The newest buffered state of a key, or null if the buffer holds none. */
  Entry get(BytesKey key) {
    return latest.get(key);
  }

  /** Adds an entry; offsets must increase. */
  void add(Entry entry) {
    entry.previous = latest.put(entry.wrappedKey, entry);
    entries.addLast(entry);
  }

  /** The entries below an offset, oldest first, still buffered. */
  List<Entry> below(long endOffset) {
    List<Entry> result = new ArrayList<>();
    for (Entry entry : entries) {
      if (entry.offset >= endOffset) {
        break;
      }
      result.add(entry);
    }
    return result;
  }

  /** Drops the entries below an offset once they are in the store. */
  void removeBelow(long endOffset) {
    while (!entries.isEmpty() && entries.peekFirst().offset < endOffset) {
      Entry entry = entries.pollFirst();
      entry.durable = true;
      entry.previous = null;
      latest.remove(entry.wrappedKey, entry);
    }
  }

  /** Discards the entries at or above an offset, restoring each key's earlier buffered state. */
  void truncateFrom(long offset) {
    while (!entries.isEmpty() && entries.peekLast().offset >= offset) {
      Entry entry = entries.pollLast();
      BytesKey key = entry.wrappedKey;
      if (entry.previous != null && !entry.previous.durable) {
        latest.put(key, entry.previous);
      } else {
        latest.remove(key);
      }
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  int size() {
    return entries.size();
  }
}
