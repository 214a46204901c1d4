package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The merge step of a {@link KvTablet}'s write path: turns mutations into the changelog they cause
 * against the bucket's current state (the changes prepared before and not yet durable, over the row
 * cache, over RocksDB) and buffers the resulting rows in the tablet's {@link PreWriteBuffer}. The
 * tablet calls it under its write lock and keeps the offsets; not thread safe on its own.
 */
final class ChangelogPreparer {
  /** Reads the stored values of keys from RocksDB, in their order, null where a key has none. */
  @FunctionalInterface
  interface StoredValues {
    List<byte[]> get(List<byte[]> keys) throws IOException;
  }

  private final KvSchema schema;
  private final KeyCodec keys;
  private final RowCodec rows;
  private final MergeEngine engine;
  private final PreWriteBuffer buffer;
  private final RowCache.Rows cached;
  private final StoredValues stored;

  ChangelogPreparer(
      KvSchema schema,
      KeyCodec keys,
      RowCodec rows,
      MergeEngine engine,
      PreWriteBuffer buffer,
      RowCache.Rows cached,
      StoredValues stored) {
    this.schema = requireNonNull(schema, "schema is null");
    this.keys = requireNonNull(keys, "keys is null");
    this.rows = requireNonNull(rows, "rows is null");
    this.engine = requireNonNull(engine, "engine is null");
    this.buffer = requireNonNull(buffer, "buffer is null");
    this.cached = requireNonNull(cached, "cached is null");
    this.stored = requireNonNull(stored, "stored is null");
  }

  /**
   * {@link KvTablet#prepare}: the changelog of mutations, record {@code i} at {@code baseOffset +
   * i}, their rows buffered; nothing is buffered if a mutation is refused.
   *
   * @throws InvalidMutationException naming the refused mutation
   */
  List<KvChange> prepare(long baseOffset, List<Mutation> mutations) throws IOException {
    List<Mutation> canonical = new ArrayList<>(mutations.size());
    List<byte[]> mutationKeys = new ArrayList<>(mutations.size());
    for (int i = 0; i < mutations.size(); i++) {
      Mutation mutation = canonical(i, mutations.get(i));
      canonical.add(mutation);
      mutationKeys.add(keys.encodeRow(mutation.row()));
    }
    return prepare(baseOffset, mutationKeys, canonical, null);
  }

  /** {@link KvTablet#prepareEncoded}, whose arguments the tablet has checked. */
  List<KvChange> prepareEncoded(long baseOffset, List<byte[]> encodedKeys, byte[][] values)
      throws IOException {
    return prepare(baseOffset, encodedKeys, null, values);
  }

  /**
   * The core of {@link #prepare} (canonical mutations, values null) and {@link #prepareEncoded}
   * (mutations null).
   */
  private List<KvChange> prepare(
      long baseOffset, List<byte[]> mutationKeys, List<Mutation> canonical, byte[][] values)
      throws IOException {
    BytesKey[] wrappedKeys = new BytesKey[mutationKeys.size()];
    for (int i = 0; i < wrappedKeys.length; i++) {
      wrappedKeys[i] = new BytesKey(mutationKeys.get(i));
    }
    // With a complete cache, every key's row is the buffer's or the cache's; else those of the
    // keys in neither are read first, in one multi-get.
    Map<BytesKey, Current> read = cached.complete() ? null : readUncached(wrappedKeys);
    List<KvChange> changes = new ArrayList<>();
    // Each change goes into the buffer at once, so that a later mutation of its key sees it; if a
    // mutation is refused, the changes of this call are taken out again.
    try {
      for (int i = 0; i < mutationKeys.size(); i++) {
        BytesKey key = wrappedKeys[i];
        Current before = currentRow(key, read);
        Object[] after;
        byte[] afterValue;
        boolean unchanged;
        Mutation mutation = canonical == null ? null : canonical.get(i);
        if (mutation == null || replacesWholeRow(mutation)) {
          // The row before matters only for the changelog: compare encodings, decode nothing.
          if (mutation == null) {
            after = null;
            afterValue = values[i];
          } else {
            after = mutation.kind() == Mutation.Kind.DELETE ? null : mutation.row();
            afterValue = after == null ? null : rows.encode(after);
          }
          unchanged =
              before == null
                  ? afterValue == null
                  : afterValue != null && Arrays.equals(before.value(rows), afterValue);
        } else {
          Object[] beforeRow = before == null ? null : before.row(rows);
          after =
              mutation.kind() == Mutation.Kind.DELETE
                  ? engine.delete(beforeRow, mutation)
                  : engine.upsert(beforeRow, mutation);
          unchanged =
              beforeRow == null
                  ? after == null
                  : after != null && Arrays.deepEquals(beforeRow, after);
          afterValue = unchanged || after == null ? null : rows.encode(after);
        }
        if (unchanged) {
          continue;
        }
        if (before == null) {
          changes.add(new KvChange(ChangeType.INSERT, after, afterValue, rows));
        } else if (afterValue == null) {
          changes.add(new KvChange(ChangeType.DELETE, before.row, before.value(rows), rows));
        } else {
          changes.add(new KvChange(ChangeType.UPDATE_BEFORE, before.row, before.value(rows), rows));
          changes.add(new KvChange(ChangeType.UPDATE_AFTER, after, afterValue, rows));
        }
        buffer.add(
            new PreWriteBuffer.Entry(baseOffset + changes.size() - 1, key, after, afterValue));
      }
    } catch (RuntimeException e) {
      buffer.truncateFrom(baseOffset);
      throw e;
    }
    return changes;
  }

  private Mutation canonical(int index, Mutation mutation) {
    requireNonNull(mutation, "mutation is null");
    Object[] row;
    try {
      row = schema.canonicalRow(mutation.row());
    } catch (IllegalArgumentException e) {
      throw new InvalidMutationException("Mutation " + index + " refused: " + e.getMessage(), e);
    }
    if (!mutation.isPartial()) {
      return new Mutation(mutation.kind(), row, null);
    }
    int[] targets = Arrays.stream(mutation.targetColumns()).sorted().distinct().toArray();
    for (int target : targets) {
      if (target < 0 || target >= schema.columnCount()) {
        throw new InvalidMutationException(
            "Mutation "
                + index
                + " refused: a partial update names unknown column position "
                + target
                + "; the schema has "
                + schema.columnCount()
                + " columns");
      }
    }
    for (int key : schema.primaryKey()) {
      if (Arrays.binarySearch(targets, key) < 0) {
        throw new InvalidMutationException(
            "Mutation "
                + index
                + " refused: a partial update must write primary-key column '"
                + schema.column(key).name()
                + "'");
      }
    }
    return new Mutation(mutation.kind(), row, targets);
  }

  /**
   * Whether a mutation's result is independent of the key's row before: a whole-row upsert or a
   * delete under the last-row engine.
   */
  private boolean replacesWholeRow(Mutation mutation) {
    return engine instanceof LastRowMergeEngine
        && (mutation.kind() == Mutation.Kind.DELETE || !mutation.isPartial());
  }

  /**
   * A key's current row, known as values, as its stored value, or both; each is derived from the
   * other on first use. Only the write path uses one, under the tablet's write lock.
   */
  private static final class Current {
    private Object[] row;
    private byte[] value;

    Current(Object[] row, byte[] value) {
      this.row = row;
      this.value = value;
    }

    Object[] row(RowCodec codec) {
      if (row == null) {
        row = codec.decode(value);
      }
      return row;
    }

    /** The value under the current schema (re-encoded if it was stored under an older one). */
    byte[] value(RowCodec codec) {
      if (value == null || !codec.isCurrent(value)) {
        value = codec.encode(row(codec));
      }
      return value;
    }
  }

  /** In the rows {@link #readUncached} read: the key has no row. */
  private static final Current NO_ROW = new Current(null, null);

  /**
   * A key's current row, or null for none: its buffered state, else the one read from RocksDB for
   * this call ({@code read}, null when the cache is complete), else the row cache's.
   */
  private Current currentRow(BytesKey key, Map<BytesKey, Current> read) {
    PreWriteBuffer.Entry entry = buffer.get(key);
    if (entry != null) {
      return entry.value == null ? null : new Current(entry.row, entry.value);
    }
    if (read != null) {
      Current current = read.get(key);
      if (current != null) {
        return current == NO_ROW ? null : current;
      }
    }
    byte[] value = cached.get(key);
    if (value == null && !cached.complete()) {
      throw new IllegalStateException("The row before a change was neither cached nor read");
    }
    return value == null ? null : new Current(null, value);
  }

  /**
   * The rows of the keys not buffered (NO_ROW for none): from the row cache, else read from RocksDB
   * in one multi-get (and then cached).
   */
  private Map<BytesKey, Current> readUncached(BytesKey[] mutationKeys) throws IOException {
    Map<BytesKey, Current> read = HashMap.newHashMap(mutationKeys.length);
    Map<BytesKey, byte[]> unbuffered = LinkedHashMap.newLinkedHashMap(mutationKeys.length);
    for (BytesKey wrapped : mutationKeys) {
      if (read.containsKey(wrapped)
          || unbuffered.containsKey(wrapped)
          || buffer.get(wrapped) != null) {
        continue;
      }
      byte[] value = cached.get(wrapped);
      if (value != null) {
        read.put(wrapped, new Current(null, value));
      } else {
        unbuffered.put(wrapped, wrapped.bytes());
      }
    }
    if (!unbuffered.isEmpty()) {
      List<byte[]> values = stored.get(new ArrayList<>(unbuffered.values()));
      int i = 0;
      for (BytesKey key : unbuffered.keySet()) {
        byte[] value = values.get(i++);
        if (value != null) {
          // Read under the write lock, so no durable change of the key can race with it.
          cached.put(key, value);
        }
        read.put(key, value == null ? NO_ROW : new Current(null, value));
      }
    }
    return read;
  }
}
