package io.lakestream.store.kv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
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
 * The RocksDB database of one {@link KvTablet} and its native handles: opened with RocksDB's WAL
 * off (the bucket's changelog is the write-ahead log), reading through the node's block cache and
 * counting memtables with the node's write-buffer manager ({@link KvMemory}). The tablet's applied
 * offset is stored under the empty key, which no row key encodes to, in the same atomic write as
 * the rows it covers.
 *
 * <p>Reads hold a shared lifecycle lock and {@link #close} takes it exclusively, so closing waits
 * for running reads and no read touches a closed database. Writes come from the tablet's write
 * path, which excludes {@link #close} with its own lock. Thread safe.
 */
final class KvStore implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private static final byte[] APPLIED_OFFSET_KEY = new byte[0];

  /** The smallest key a row can have: any key longer than {@link #APPLIED_OFFSET_KEY}. */
  private static final byte[] FIRST_ROW_KEY = new byte[1];

  private final Path tabletDirectory;
  private final KvMemory memory;
  private final boolean ownsMemory;
  private final BloomFilter bloomFilter;
  private final Options options;
  private final WriteOptions writeOptions;
  private final RocksDB db;
  private final long appliedOffsetAtOpen;
  private final boolean emptyAtOpen;
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private volatile boolean closed;

  /**
   * Opens (creating if missing) the database in {@code dbDirectory}.
   *
   * @param tabletDirectory the tablet's directory, named in messages
   * @param sharedMemory the node's block cache and write-buffer manager; null for the store's own
   * @throws IOException if the database cannot be opened or its applied offset read
   */
  KvStore(Path tabletDirectory, Path dbDirectory, KvConfig config, KvMemory sharedMemory)
      throws IOException {
    this.tabletDirectory = tabletDirectory;
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
    try (RocksIterator iterator = db.newIterator()) {
      this.appliedOffsetAtOpen = readOffset(db.get(APPLIED_OFFSET_KEY));
      iterator.seek(FIRST_ROW_KEY);
      this.emptyAtOpen = !iterator.isValid();
      iterator.status();
    } catch (RocksDBException e) {
      close(() -> {});
      throw new IOException("Cannot read the applied offset in " + dbDirectory, e);
    }
  }

  /** The applied offset the database held when it was opened. */
  long appliedOffsetAtOpen() {
    return appliedOffsetAtOpen;
  }

  /** Whether the database held no row when it was opened. */
  boolean emptyAtOpen() {
    return emptyAtOpen;
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * @throws IllegalStateException once the store is closed
   */
  void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("KV tablet is closed: " + tabletDirectory);
    }
  }

  /**
   * Writes {@code batch} and the applied offset it takes the state to, in one atomic write. For the
   * tablet's write path, which excludes {@link #close}.
   */
  void write(WriteBatch batch, long appliedOffset) throws RocksDBException {
    batch.put(APPLIED_OFFSET_KEY, encodeOffset(appliedOffset));
    db.write(writeOptions, batch);
  }

  /** A key's stored value, or null. */
  byte[] get(byte[] key) throws IOException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return db.get(key);
    } catch (RocksDBException e) {
      throw new IOException("Cannot look up a key", e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** The stored values of keys, in their order, null where a key has none; one multi-get. */
  List<byte[]> multiGet(List<byte[]> keys) throws IOException {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return db.multiGetAsList(keys);
    } catch (RocksDBException e) {
      throw new IOException("Cannot look up " + keys.size() + " keys", e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** The stored values of the keys starting with {@code prefix}, in key order. */
  List<byte[]> valuesWithPrefix(byte[] prefix) {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      try (RocksIterator iterator = db.newIterator()) {
        List<byte[]> result = new ArrayList<>();
        for (iterator.seek(prefix); iterator.isValid(); iterator.next()) {
          byte[] key = iterator.key();
          if (key.length < prefix.length
              || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
            break;
          }
          result.add(iterator.value());
        }
        return result;
      }
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * A scan of every stored row as of now, from a RocksDB snapshot, handed to {@code opened} before
   * the lifecycle lock is released (so that a close that follows sees it).
   */
  KvScan snapshotScan(KvTablet tablet, RowCodec rows, Consumer<KvScan> opened) throws IOException {
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
          new KvScan(tablet, db, snapshot, readOptions, db.newIterator(readOptions), rows, offset);
      opened.accept(scan);
      return scan;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** Flushes the memtables and writes a RocksDB checkpoint of the database to {@code target}. */
  void checkpoint(Path target) throws IOException {
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
        Checkpoint checkpoint = Checkpoint.create(db)) {
      db.flush(flush);
      checkpoint.createCheckpoint(target.toString());
    } catch (RocksDBException e) {
      throw new IOException("Cannot write a checkpoint to " + target, e);
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

  @Override
  public void close() {
    close(() -> {});
  }

  /**
   * Closes the database once running reads are done, after {@code first} (run under the lifecycle
   * lock, for what must be released before the database, such as open scans).
   *
   * @return whether this call closed the store (false: it was closed already)
   */
  boolean close(Runnable first) {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      first.run();
      db.close();
      releaseOptions();
      return true;
    } finally {
      lifecycle.writeLock().unlock();
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

  private static byte[] encodeOffset(long offset) {
    return ByteBuffer.allocate(Long.BYTES).putLong(offset).array();
  }

  private static long readOffset(byte[] value) {
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }
}
