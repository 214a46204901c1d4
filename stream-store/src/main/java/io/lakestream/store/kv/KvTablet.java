package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The state of one bucket of a primary-key table: the rows by key in RocksDB, materialised from the
 * bucket's changelog.
 *
 * <p><b>Write path.</b> The changelog in the log is the write-ahead log; RocksDB's own WAL is off.
 * A write goes:
 *
 * <ol>
 *   <li>{@link #prepare} merges the mutations with the current state (durable state overlaid with
 *       earlier prepared changes) through the table's {@link MergeEngine}, returns the exact
 *       changelog and buffers the resulting rows at the log offsets the caller says the changelog
 *       will take;
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
  static {
    RocksDB.loadLibrary();
  }

  private static final byte[] APPLIED_OFFSET_KEY = new byte[0];

  /** The smallest key a row can have: any key longer than {@link #APPLIED_OFFSET_KEY}. */
  private static final byte[] FIRST_ROW_KEY = new byte[1];

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

  private final KvMemory memory;
  private final boolean ownsMemory;
  private final BloomFilter bloomFilter;
  private final Options options;
  private final WriteOptions writeOptions;
  private final RocksDB db;

  private final ReentrantLock writeLock = new ReentrantLock();
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final Set<KvScan> scans = ConcurrentHashMap.newKeySet();
  private final PreWriteBuffer buffer = new PreWriteBuffer();
  private final RowCache.Rows cached;
  private volatile long appliedOffset;
  private volatile boolean closed;
  private long nextOffset;
  private long bytesSinceCheckpoint;
  private long lastCheckpointMillis;

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
    this.ownsMemory = sharedMemory == null;
    this.memory = ownsMemory ? new KvMemory(config) : sharedMemory;
    this.bloomFilter = new BloomFilter(10, false);
    this.options =
        new Options()
            .setCreateIfMissing(true)
            .setTableFormatConfig(
                new BlockBasedTableConfig()
                    .setBlockCache(memory.blockCache())
                    .setFilterPolicy(bloomFilter)
                    .setWholeKeyFiltering(true)
                    .setCacheIndexAndFilterBlocks(true)
                    .setPinL0FilterAndIndexBlocksInCache(true))
            .setWriteBufferSize(config.writeBufferBytes())
            .setWriteBufferManager(memory.writeBuffers())
            .setMaxWriteBufferNumber(3)
            .setCompressionType(CompressionType.LZ4_COMPRESSION)
            .setAvoidFlushDuringShutdown(true)
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
            .setKeepLogFileNum(2);
    this.writeOptions = new WriteOptions().setDisableWAL(true);
    RocksDB opened;
    try {
      opened = RocksDB.open(options, dbDirectory.toString());
    } catch (RocksDBException e) {
      releaseOptions();
      throw new IOException("Cannot open the KV store in " + dbDirectory, e);
    }
    this.db = opened;
    boolean empty;
    try (RocksIterator iterator = db.newIterator()) {
      this.appliedOffset = readOffset(db.get(APPLIED_OFFSET_KEY));
      iterator.seek(FIRST_ROW_KEY);
      empty = !iterator.isValid();
      iterator.status();
    } catch (RocksDBException e) {
      close();
      throw new IOException("Cannot read the applied offset in " + dbDirectory, e);
    }
    this.cached = rowCache.newRows(empty);
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
      List<Mutation> canonical = new ArrayList<>(mutations.size());
      List<byte[]> mutationKeys = new ArrayList<>(mutations.size());
      for (int i = 0; i < mutations.size(); i++) {
        Mutation mutation = canonical(i, mutations.get(i));
        canonical.add(mutation);
        mutationKeys.add(keys.encodeRow(mutation.row()));
      }
      return prepareLocked(baseOffset, mutationKeys, canonical, null);
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
      return prepareLocked(baseOffset, encodedKeys, null, values);
    } finally {
      writeLock.unlock();
    }
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
   * The core of {@link #prepare} (canonical mutations, values null) and {@link #prepareEncoded}
   * (mutations null); under the write lock.
   */
  private List<KvChange> prepareLocked(
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
    nextOffset = baseOffset + changes.size();
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
   * other on first use. Only the tablet's write path uses one, under the write lock.
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
      List<byte[]> values = multiGet(new ArrayList<>(unbuffered.values()));
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
        batch.put(APPLIED_OFFSET_KEY, encodeOffset(logEndOffset));
        db.write(writeOptions, batch);
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
        batch.put(APPLIED_OFFSET_KEY, encodeOffset(end));
        db.write(writeOptions, batch);
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
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return db.getLongProperty("rocksdb.cur-size-active-mem-table");
    } catch (RocksDBException e) {
      throw new IOException("Cannot read the memtable size", e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * The durable row of a key, or null.
   *
   * @param keyValues the primary-key values in primary-key (schema) order
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public Object[] lookup(Object[] keyValues) throws IOException {
    byte[] key = keys.encodeKey(keyValues);
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      byte[] value = cachedOrStored(new BytesKey(key));
      return value == null ? null : rows.decode(value);
    } catch (RocksDBException e) {
      throw new IOException("Cannot look up a key", e);
    } finally {
      lifecycle.readLock().unlock();
    }
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
    if (closed) {
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
    return closed ? null : result;
  }

  /**
   * A key's durable row from the row cache, else from RocksDB; for reads outside the write lock,
   * which leave the cache alone (a value read here could be overtaken by a change before it was
   * cached).
   */
  private byte[] cachedOrStored(BytesKey key) throws RocksDBException {
    byte[] value = cached.get(key);
    if (value != null || cached.complete()) {
      return value;
    }
    return db.get(key.bytes());
  }

  /**
   * The durable rows whose bucket-key columns have these values, in key order.
   *
   * @param bucketKeyValues the bucket-key values in bucket-key order
   * @throws IllegalArgumentException for a wrong count, a null or a value of the wrong type
   */
  public List<Object[]> prefixLookup(Object[] bucketKeyValues) throws IOException {
    byte[] prefix = keys.encodeBucketKeyPrefix(bucketKeyValues);
    lifecycle.readLock().lock();
    try (RocksIterator iterator = openIterator()) {
      List<Object[]> result = new ArrayList<>();
      for (iterator.seek(prefix); iterator.isValid(); iterator.next()) {
        byte[] key = iterator.key();
        if (key.length < prefix.length
            || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
          break;
        }
        result.add(rows.decode(iterator.value()));
      }
      return result;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private RocksIterator openIterator() {
    ensureOpen();
    return db.newIterator();
  }

  /**
   * Every durable row as of now, with the log offset that state is consistent to, from a RocksDB
   * snapshot. The caller must close the scan.
   */
  public KvScan snapshotScan() throws IOException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      Snapshot snapshot = db.getSnapshot();
      ReadOptions readOptions = new ReadOptions().setSnapshot(snapshot);
      long offset;
      try {
        offset = readOffset(db.get(readOptions, APPLIED_OFFSET_KEY));
      } catch (RocksDBException e) {
        readOptions.close();
        db.releaseSnapshot(snapshot);
        throw new IOException("Cannot read the applied offset", e);
      }
      KvScan scan =
          new KvScan(this, db, snapshot, readOptions, db.newIterator(readOptions), rows, offset);
      scans.add(scan);
      return scan;
    } finally {
      lifecycle.readLock().unlock();
    }
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
      ensureOpen();
      long offset = appliedOffset;
      Path target = KvCheckpoints.path(checkpoints, offset);
      if (!KvCheckpoints.isComplete(target)) {
        KvCheckpoints.deleteRecursively(target);
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
            Checkpoint checkpoint = Checkpoint.create(db)) {
          db.flush(flush);
          checkpoint.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
          throw new IOException("Cannot write a checkpoint to " + target, e);
        }
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

  private List<byte[]> multiGet(List<byte[]> encoded) throws IOException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return db.multiGetAsList(encoded);
    } catch (RocksDBException e) {
      throw new IOException("Cannot look up " + encoded.size() + " keys", e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("KV tablet is closed: " + directory);
    }
  }

  private static byte[] encodeOffset(long offset) {
    return ByteBuffer.allocate(Long.BYTES).putLong(offset).array();
  }

  private static long readOffset(byte[] value) {
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }

  /** Closes open scans and releases every native handle; prepared changes are dropped. */
  @Override
  public void close() {
    writeLock.lock();
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (cached != null) {
        cached.clear();
      }
      for (KvScan scan : List.copyOf(scans)) {
        scan.close();
      }
      if (db != null) {
        db.close();
      }
      releaseOptions();
      OPEN_DIRECTORIES.remove(directory);
    } finally {
      lifecycle.writeLock().unlock();
      writeLock.unlock();
    }
  }

  private void releaseOptions() {
    writeOptions.close();
    options.close();
    bloomFilter.close();
    if (ownsMemory) {
      memory.close();
    }
  }
}
