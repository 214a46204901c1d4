package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The state of one bucket of a primary-key table: the rows by key in RocksDB (its {@link KvStore}),
 * materialised from the bucket's changelog.
 *
 * <p><b>Write path.</b> The changelog in the log is the write-ahead log; RocksDB's own WAL is off.
 * A write goes:
 *
 * <ol>
 *   <li>{@link #prepare} merges the mutations with the current state (durable state overlaid with
 *       earlier prepared changes) through the table's {@link MergeEngine} (the {@link
 *       ChangelogPreparer} does this step), returns the exact changelog and buffers the resulting
 *       rows at the log offsets the caller says the changelog will take;
 *   <li>the caller appends the changelog to the log;
 *   <li>once the log is durable up to some offset, {@link #markDurable} moves the buffered changes
 *       below it into RocksDB in one atomic write; if the append failed, {@link #abort} discards
 *       the changes from its base offset on.
 * </ol>
 *
 * Lookups and scans read durable state only (RocksDB, and the {@link RowCache} of rows RocksDB
 * holds), so they see exactly the changes whose changelog is durable. The write path reads the row
 * before each change from the buffered changes, else the row cache, else RocksDB; a tablet whose
 * cache is complete never reads RocksDB there.
 *
 * <p><b>Offsets.</b> The <em>applied offset</em> is the log offset up to which the changelog is in
 * RocksDB; it is stored in RocksDB atomically with the rows (under the empty key, which no row key
 * encodes to), so a checkpoint and a snapshot scan know exactly which offset they are consistent
 * to.
 *
 * <p><b>Recovery.</b> The live database in {@code <dir>/db} is scratch: {@link #open} rebuilds it
 * from the newest complete checkpoint in {@code <dir>/checkpoints/<offset>} (or empty), and the
 * caller replays the changelog from {@link #appliedOffset()} with {@link #replay}. {@link
 * #checkpoint()} writes a checkpoint at the applied offset and keeps the newest two; {@link
 * #shouldCheckpoint()} says when one is due by {@link KvConfig#checkpointInterval()} and {@link
 * KvConfig#checkpointBytes()}.
 *
 * <p><b>Threads.</b> Writes ({@code prepare}, {@code markDurable}, {@code abort}, {@code replay},
 * {@code checkpoint}) are meant to come from one thread at a time per tablet, the bucket's write
 * path; a lock serialises them regardless. Reads run concurrently with writes and each other.
 * {@link #close()} waits for running calls and releases every native handle.
 */
public final class KvTablet implements AutoCloseable {
  /** Directories of the tablets open in this process: opening one rebuilds its database. */
  private static final Set<Path> OPEN_DIRECTORIES = ConcurrentHashMap.newKeySet();

  private static final int KEPT_CHECKPOINTS = 2;

  private final Path directory;
  private final Path checkpoints;
  private final KvSchema schema;
  private final KeyCodec keys;
  private final RowCodec rows;
  private final MergeEngine engine;
  private final KvConfig config;
  private final Clock clock;

  private final KvStore store;

  private final ReentrantLock writeLock = new ReentrantLock();
  private final Set<KvScan> scans = ConcurrentHashMap.newKeySet();
  private final PreWriteBuffer buffer = new PreWriteBuffer();
  private final RowCache.Rows cached;
  private final ChangelogPreparer preparer;
  private volatile long appliedOffset;
  private long nextOffset;
  private long bytesSinceCheckpoint;
  private long lastCheckpointMillis;
  private final KvTabletStatistics statistics = new KvTabletStatistics();

  private KvTablet(
      Path directory,
      KvSchema schema,
      MergeEngine engine,
      KvConfig config,
      Clock clock,
      Path dbDirectory,
      KvMemory sharedMemory,
      RowCache rowCache)
      throws IOException {
    this.directory = directory;
    this.checkpoints = directory.resolve("checkpoints");
    this.schema = schema;
    this.keys = new KeyCodec(schema);
    this.rows = new RowCodec(schema);
    this.engine = engine;
    this.config = config;
    this.clock = clock;
    this.store = new KvStore(directory, dbDirectory, config, sharedMemory);
    this.appliedOffset = store.appliedOffsetAtOpen();
    this.cached = rowCache.newRows(store.emptyAtOpen());
    this.preparer =
        new ChangelogPreparer(schema, keys, rows, engine, buffer, cached, this::multiGet);
    this.nextOffset = appliedOffset;
    this.lastCheckpointMillis = clock.millis();
  }

  /**
   * Opens a tablet in a directory: restores the newest complete checkpoint (ignoring and deleting
   * incomplete ones), or starts empty. The caller then replays the changelog from {@link
   * #appliedOffset()}.
   *
   * @throws IllegalStateException if a tablet of this process has the directory open
   */
  public static KvTablet open(
      Path directory, KvSchema schema, MergeEngine engine, KvConfig config, Clock clock)
      throws IOException {
    return open(
        directory, schema, engine, config, clock, null, new RowCache(config.rowCacheBytes()));
  }

  /**
   * Opens a tablet as {@link #open(Path, KvSchema, MergeEngine, KvConfig, Clock)} does, reading
   * through a block cache, counting its memtables with theirs ({@link KvMemory}) and keeping rows
   * in a row cache that other tablets share; the caller keeps the memory open while the tablet is.
   * With null memory the tablet has its own.
   */
  public static KvTablet open(
      Path directory,
      KvSchema schema,
      MergeEngine engine,
      KvConfig config,
      Clock clock,
      KvMemory sharedMemory,
      RowCache rowCache)
      throws IOException {
    requireNonNull(directory, "directory is null");
    requireNonNull(schema, "schema is null");
    requireNonNull(engine, "engine is null");
    requireNonNull(config, "config is null");
    requireNonNull(clock, "clock is null");
    requireNonNull(rowCache, "rowCache is null");
    Path absolute = directory.toAbsolutePath().normalize();
    if (!OPEN_DIRECTORIES.add(absolute)) {
      throw new IllegalStateException("A KV tablet is already open in " + absolute);
    }
    try {
      Path checkpoints = absolute.resolve("checkpoints");
      Path dbDirectory = absolute.resolve("db");
      Files.createDirectories(checkpoints);
      KvCheckpoints.deleteRecursively(dbDirectory);
      Optional<Path> checkpoint = KvCheckpoints.newestComplete(checkpoints);
      if (checkpoint.isPresent()) {
        KvCheckpoints.restore(checkpoint.get(), dbDirectory);
      }
      return new KvTablet(
          absolute, schema, engine, config, clock, dbDirectory, sharedMemory, rowCache);
    } catch (IOException | RuntimeException e) {
      OPEN_DIRECTORIES.remove(absolute);
      throw e;
    }
  }

  public KvSchema schema() {
    return schema;
  }

  /** The codec of this tablet's keys. */
  public KeyCodec keyCodec() {
    return keys;
  }

  /** The codec of this tablet's stored rows, under its current schema. */
  public RowCodec rowCodec() {
    return rows;
  }

  /** The log offset up to which the changelog is applied to the durable state. */
  public long appliedOffset() {
    return appliedOffset;
  }

  /**
   * Merges mutations with the current state and returns their changelog; buffers the resulting
   * state, invisible to reads until {@link #markDurable}.
   *
   * <p>Mutations apply in order, a later one of a key seeing the earlier one's result, and all see
   * the changes of earlier prepares not yet durable. Per mutation the changelog is {@code +I} for a
   * new key, {@code -U} (old row) then {@code +U} (new row) for a changed row, {@code -D} (old row)
   * for a removed one, and nothing when the row does not change (a delete of a missing key, an
   * upsert the merge engine ignores, a write producing an identical row). Record {@code i} of the
   * result takes log offset {@code baseOffset + i}.
   *
   * <p>Atomic: if any mutation is refused the call throws and nothing is buffered.
   *
   * @param baseOffset the log offset the first changelog record will take; not below the end of
   *     what was prepared before (or the applied offset)
   * @throws InvalidMutationException (or its {@link DeleteNotSupportedException}) naming the
   *     mutation and the reason: wrong arity or value types, a null key column, a partial update
   *     without the key columns or with an unknown column, or a write the merge engine refuses
   * @throws IllegalArgumentException if {@code baseOffset} is below the prepared end
   */
  public List<KvChange> prepare(long baseOffset, List<Mutation> mutations) throws IOException {
    requireNonNull(mutations, "mutations is null");
    writeLock.lock();
    try {
      checkPrepareOffset(baseOffset);
      return prepared(baseOffset, preparer.prepare(baseOffset, mutations));
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Whether every whole-row upsert and delete replaces the key's row regardless of the row before
   * (the last-row engine), so that {@link #prepareEncoded} can take them.
   */
  public boolean replacesWholeRows() {
    return engine instanceof LastRowMergeEngine;
  }

  /**
   * {@link #prepare} for whole-row upserts and deletes given already encoded, on a tablet whose
   * engine {@link #replacesWholeRows()}: the same changelog, state and atomicity, without going
   * through Java values. The caller has validated the rows as {@link #prepare} would (key columns
   * non-null, values of the columns' types).
   *
   * @param encodedKeys per mutation its key, as {@link KeyCodec#encodeRow} makes it
   * @param values per mutation the {@link RowCodec} value of the row under the current schema, or
   *     null for a delete
   * @throws IllegalStateException if the engine is not last-row
   */
  public List<KvChange> prepareEncoded(long baseOffset, List<byte[]> encodedKeys, byte[][] values)
      throws IOException {
    requireNonNull(encodedKeys, "encodedKeys is null");
    requireNonNull(values, "values is null");
    if (!replacesWholeRows()) {
      throw new IllegalStateException("Encoded writes need the last-row merge engine");
    }
    if (encodedKeys.size() != values.length) {
      throw new IllegalArgumentException(
          encodedKeys.size() + " keys came with " + values.length + " values");
    }
    for (byte[] value : values) {
      if (value != null && !rows.isCurrent(value)) {
        throw new IllegalArgumentException("A value is not of the current schema");
      }
    }
    writeLock.lock();
    try {
      checkPrepareOffset(baseOffset);
      return prepared(baseOffset, preparer.prepareEncoded(baseOffset, encodedKeys, values));
    } finally {
      writeLock.unlock();
    }
  }

  private List<KvChange> prepared(long baseOffset, List<KvChange> changes) {
    nextOffset = baseOffset + changes.size();
    return changes;
  }

  private void checkPrepareOffset(long baseOffset) {
    ensureOpen();
    if (baseOffset < nextOffset) {
      throw new IllegalArgumentException(
          "Cannot prepare changes at offset "
              + baseOffset
              + ": offsets below "
              + nextOffset
              + " are already prepared or durable");
    }
  }

  /**
   * Moves the buffered changes below an offset into RocksDB, in one atomic write, and makes them
   * visible to reads; the applied offset becomes {@code logEndOffset}. Call it when the log is
   * durable up to {@code logEndOffset}; every changelog record below it must have come from this
   * tablet's {@link #prepare}. Idempotent: an offset at or below the applied offset does nothing.
   */
  public void markDurable(long logEndOffset) throws IOException {
    writeLock.lock();
    try {
      ensureOpen();
      if (logEndOffset <= appliedOffset) {
        return;
      }
      List<PreWriteBuffer.Entry> applied = buffer.below(logEndOffset);
      byte[][] changedKeys = new byte[applied.size()][];
      byte[][] changedValues = new byte[applied.size()][];
      for (int i = 0; i < changedKeys.length; i++) {
        changedKeys[i] = applied.get(i).key;
        changedValues[i] = applied.get(i).value;
      }
      int[] kept = KeyOrder.lastChangePerKey(changedKeys);
      long bytes = 0;
      // In key order, each record's memtable insert starts where the previous one ended.
      try (WriteBatch batch = new WriteBatch()) {
        for (int position : kept) {
          byte[] value = changedValues[position];
          if (value == null) {
            batch.delete(changedKeys[position]);
            bytes += changedKeys[position].length;
          } else {
            batch.put(changedKeys[position], value);
            bytes += changedKeys[position].length + value.length;
          }
        }
        store.write(batch, logEndOffset);
      } catch (RocksDBException e) {
        throw new IOException("Cannot apply changes below offset " + logEndOffset, e);
      }
      for (int position : kept) {
        PreWriteBuffer.Entry entry = applied.get(position);
        cached.apply(entry.wrappedKey, entry.value);
      }
      buffer.removeBelow(logEndOffset);
      appliedOffset = logEndOffset;
      nextOffset = Math.max(nextOffset, logEndOffset);
      bytesSinceCheckpoint += bytes;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Discards the prepared changes at and above an offset, because appending their changelog to the
   * log failed; later prepares start from the state before them. Nothing happens to durable state.
   *
   * @throws IllegalStateException if the offset is below the applied offset (already durable)
   */
  public void abort(long baseOffset) {
    writeLock.lock();
    try {
      ensureOpen();
      if (baseOffset < appliedOffset) {
        throw new IllegalStateException(
            "Cannot abort changes from offset "
                + baseOffset
                + ": the changelog is durable up to "
                + appliedOffset);
      }
      buffer.truncateFrom(baseOffset);
      nextOffset = Math.min(nextOffset, baseOffset);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Applies one changelog record read back from the log after {@link #open}: {@code +I} and {@code
   * +U} put the row, {@code -D} removes its key, {@code -U} changes nothing. A record below the
   * applied offset is already in the state and is skipped, so replaying from any earlier offset is
   * safe.
   *
   * @param row the full row in current schema column order
   * @return whether the record was applied (false: below the applied offset)
   * @throws IllegalStateException if prepared changes are pending
   * @throws IllegalArgumentException if the row does not fit the schema
   */
  public boolean replay(long offset, ChangeType type, Object[] row) throws IOException {
    requireNonNull(type, "type is null");
    return replay(offset, List.of(type), List.<Object[]>of(row)) > 0;
  }

  /**
   * Replays consecutive changelog records from {@code baseOffset} in one atomic write, as {@link
   * #replay(long, ChangeType, Object[])} does each; records below the applied offset are skipped.
   *
   * @return how many records were applied
   */
  public int replay(long baseOffset, List<ChangeType> types, List<Object[]> changedRows)
      throws IOException {
    requireNonNull(types, "types is null");
    requireNonNull(changedRows, "changedRows is null");
    if (types.size() != changedRows.size()) {
      throw new IllegalArgumentException(
          types.size() + " change types for " + changedRows.size() + " rows");
    }
    writeLock.lock();
    try {
      ensureOpen();
      if (!buffer.isEmpty()) {
        throw new IllegalStateException("Cannot replay the changelog while changes are prepared");
      }
      int first = (int) Math.max(0, Math.min(types.size(), appliedOffset - baseOffset));
      if (first == types.size()) {
        return 0;
      }
      long bytes = 0;
      Map<BytesKey, byte[]> changed = new LinkedHashMap<>();
      try (WriteBatch batch = new WriteBatch()) {
        for (int i = first; i < types.size(); i++) {
          Object[] canonical = schema.canonicalRow(changedRows.get(i));
          byte[] key = keys.encodeRow(canonical);
          switch (types.get(i)) {
            case INSERT, UPDATE_AFTER -> {
              byte[] value = rows.encode(canonical);
              batch.put(key, value);
              changed.put(new BytesKey(key), value);
              bytes += key.length + value.length;
            }
            case DELETE -> {
              batch.delete(key);
              changed.put(new BytesKey(key), null);
              bytes += key.length;
            }
            case UPDATE_BEFORE -> {}
          }
        }
        long end = baseOffset + types.size();
        store.write(batch, end);
        changed.forEach(cached::apply);
        appliedOffset = end;
        nextOffset = Math.max(nextOffset, appliedOffset);
        bytesSinceCheckpoint += bytes;
      } catch (RocksDBException e) {
        throw new IOException("Cannot replay the changes from offset " + baseOffset, e);
      }
      return types.size() - first;
    } finally {
      writeLock.unlock();
    }
  }

  /** Bytes held by the memtable RocksDB writes into now (not those being flushed). */
  long activeMemtableBytes() throws IOException {
    return store.activeMemtableBytes();
  }

  /**
   * The durable row of a key, or null.
   *
   * @param keyValues the primary-key values in primary-key (schema) order
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public Object[] lookup(Object[] keyValues) throws IOException {
    byte[] key = keys.encodeKey(keyValues);
    store.ensureOpen();
    byte[] value = cachedOrStored(new BytesKey(key));
    return value == null ? null : rows.decode(value);
  }

  /**
   * The durable rows of several keys, in their order, null where a key has none; one RocksDB
   * multi-get.
   *
   * @throws IllegalArgumentException for a key that does not fit the primary key
   */
  public List<Object[]> lookupAll(List<Object[]> keyValues) throws IOException {
    List<byte[]> values = lookupValues(keyValues);
    List<Object[]> result = new ArrayList<>(values.size());
    for (byte[] value : values) {
      result.add(value == null ? null : rows.decode(value));
    }
    return result;
  }

  /**
   * As {@link #lookupAll}, the rows as stored: {@link RowCodec} values (of the schema each was
   * written under), null where a key has none.
   */
  public List<byte[]> lookupValues(List<Object[]> keyValues) throws IOException {
    List<byte[]> result = new ArrayList<>(keyValues.size());
    List<byte[]> uncached = new ArrayList<>();
    List<Integer> uncachedAt = new ArrayList<>();
    for (Object[] each : keyValues) {
      byte[] key = keys.encodeKey(each);
      byte[] value = cached.get(new BytesKey(key));
      if (value == null && !cached.complete()) {
        uncached.add(key);
        uncachedAt.add(result.size());
      }
      result.add(value);
    }
    if (!uncached.isEmpty()) {
      List<byte[]> stored = multiGet(uncached);
      for (int i = 0; i < stored.size(); i++) {
        result.set(uncachedAt.get(i), stored.get(i));
      }
    }
    return result;
  }

  /**
   * As {@link #lookupValues}, from the row cache alone: null unless the cache knows every key's row
   * or its absence (it holds the row, or it is complete), so that the answer never waits for
   * RocksDB.
   *
   * @throws IllegalArgumentException for a key that does not fit the primary key
   */
  public List<byte[]> lookupValuesInMemory(List<Object[]> keyValues) {
    if (store.isClosed()) {
      return null;
    }
    List<byte[]> result = new ArrayList<>(keyValues.size());
    for (Object[] each : keyValues) {
      byte[] value = cached.get(new BytesKey(keys.encodeKey(each)));
      if (value == null && !cached.complete()) {
        return null;
      }
      result.add(value);
    }
    return store.isClosed() ? null : result;
  }

  /**
   * A key's durable row from the row cache, else from RocksDB; for reads outside the write lock,
   * which leave the cache alone (a value read here could be overtaken by a change before it was
   * cached).
   */
  private byte[] cachedOrStored(BytesKey key) throws IOException {
    byte[] value = cached.get(key);
    if (value != null || cached.complete()) {
      return value;
    }
    return store.get(key.bytes());
  }

  /**
   * The durable rows whose bucket-key columns have these values, in key order.
   *
   * @param bucketKeyValues the bucket-key values in bucket-key order
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public List<Object[]> prefixLookup(Object[] bucketKeyValues) throws IOException {
    byte[] prefix = keys.encodeBucketKeyPrefix(bucketKeyValues);
    List<Object[]> result = new ArrayList<>();
    for (byte[] value : store.valuesWithPrefix(prefix)) {
      result.add(rows.decode(value));
    }
    return result;
  }

  /**
   * Every durable row as of now, with the log offset that state is consistent to, from a RocksDB
   * snapshot. The caller must close the scan.
   */
  public KvScan snapshotScan() throws IOException {
    return store.snapshotScan(this, rows, scans::add);
  }

  void forget(KvScan scan) {
    scans.remove(scan);
  }

  /**
   * Writes a checkpoint of the durable state to {@code checkpoints/<appliedOffset>} and deletes all
   * but the newest two. The state is flushed first, so the checkpoint holds exactly the changelog
   * below the applied offset. A checkpoint that already exists for the offset is kept.
   *
   * @return the log offset the checkpoint is consistent to
   */
  public long checkpoint() throws IOException {
    writeLock.lock();
    try {
      store.ensureOpen();
      long offset = appliedOffset;
      Path target = KvCheckpoints.path(checkpoints, offset);
      if (!KvCheckpoints.isComplete(target)) {
        KvCheckpoints.deleteRecursively(target);
        store.checkpoint(target);
        KvCheckpoints.markComplete(target);
        KvCheckpoints.retainNewest(checkpoints, KEPT_CHECKPOINTS);
      }
      lastCheckpointMillis = clock.millis();
      bytesSinceCheckpoint = 0;
      return offset;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Whether a checkpoint is due: {@link KvConfig#checkpointBytes()} written since the last one, or
   * anything written and {@link KvConfig#checkpointInterval()} passed.
   */
  public boolean shouldCheckpoint() {
    writeLock.lock();
    try {
      return bytesSinceCheckpoint >= config.checkpointBytes()
          || bytesSinceCheckpoint > 0
              && clock.millis() - lastCheckpointMillis >= config.checkpointInterval().toMillis();
    } finally {
      writeLock.unlock();
    }
  }

  /** What the tablet has served since it opened, for metrics; callers record into it. */
  public KvTabletStatistics statistics() {
    return statistics;
  }

  private List<byte[]> multiGet(List<byte[]> encoded) throws IOException {
    return store.multiGet(encoded);
  }

  private void ensureOpen() {
    store.ensureOpen();
  }

  /** Closes open scans and releases every native handle; prepared changes are dropped. */
  @Override
  public void close() {
    writeLock.lock();
    try {
      boolean closedNow =
          store.close(
              () -> {
                cached.clear();
                for (KvScan scan : List.copyOf(scans)) {
                  scan.close();
                }
              });
      if (closedNow) {
        OPEN_DIRECTORIES.remove(directory);
      }
    } finally {
      writeLock.unlock();
    }
  }
}
