package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * The native memory of KV tablets that share it: a RocksDB block cache of {@link
 * KvConfig#blockCacheBytes()} and a write buffer manager that charges the tablets' memtables to
 * that cache, at most half of it. A tablet flushes its memtable early when the memtables of all
 * tablets together reach that half, so that many buckets written at once stay within the cache's
 * size instead of each holding up to three memtables of {@link KvConfig#writeBufferBytes()}.
 *
 * <p>Close it after every tablet that uses it.
 */
public final class KvMemory implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private final LRUCache blockCache;
  private final WriteBufferManager writeBuffers;
  private final long memtableBudgetBytes;

  public KvMemory(KvConfig config) {
    requireNonNull(config, "config is null");
    this.blockCache = new LRUCache(config.blockCacheBytes());
    this.memtableBudgetBytes = config.blockCacheBytes() / 2;
    this.writeBuffers = new WriteBufferManager(memtableBudgetBytes, blockCache);
  }

  /** The block cache the tablets read through. */
  public Cache blockCache() {
    return blockCache;
  }

  /** The manager every sharing tablet's options name, so that their memtables count together. */
  public WriteBufferManager writeBuffers() {
    return writeBuffers;
  }

  /** Memtable bytes of all sharing tablets together at which one is flushed early. */
  public long memtableBudgetBytes() {
    return memtableBudgetBytes;
  }

  @Override
  public void close() {
    writeBuffers.close();
    blockCache.close();
  }
}
