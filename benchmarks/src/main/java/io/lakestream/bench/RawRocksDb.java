package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.lakestream.store.kv.KvConfig;
import io.lakestream.store.kv.KvMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The baseline of the keyed-state benchmark: RocksDB through its JNI binding in the benchmark JVM,
 * opened with the options a Lakestream KV tablet uses ({@code KvTablet}: the default sizes of
 * {@code KvConfig.defaults()}, a block cache holding index and filter blocks with the memtables
 * charged to it ({@code KvMemory}), 10-bit whole-key bloom filter, LZ4, 64 MiB memtables, three of
 * them, WAL off). Keys are 8 bytes big-endian with the sign bit flipped, as Lakestream encodes a
 * BIGINT key; values are the row serialised plainly (fixed-width numbers, strings as a 2-byte
 * length and UTF-8 bytes). Writes go in one {@link WriteBatch} per call, as the tablet applies a
 * request's changes. Gets are thread safe; puts come from one thread.
 */
final class RawRocksDb implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private final Path directory;
  private final KvMemory memory;
  private final BloomFilter bloomFilter;
  private final Options options;
  private final WriteOptions writeOptions;
  private final RocksDB db;

  private RawRocksDb(Path directory, long writeBufferBytes) throws IOException {
    this.directory = requireNonNull(directory, "directory is null");
    this.memory = new KvMemory(KvConfig.defaults());
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
            .setWriteBufferSize(writeBufferBytes)
            .setWriteBufferManager(memory.writeBuffers())
            .setMaxWriteBufferNumber(3)
            .setCompressionType(CompressionType.LZ4_COMPRESSION)
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
            .setKeepLogFileNum(2);
    this.writeOptions = new WriteOptions().setDisableWAL(true);
    try {
      this.db = RocksDB.open(options, directory.toString());
    } catch (RocksDBException e) {
      releaseOptions();
      throw new IOException("Cannot open the baseline RocksDB in " + directory, e);
    }
  }

  static RawRocksDb open(Path directory) throws IOException {
    return new RawRocksDb(directory, KvConfig.defaults().writeBufferBytes());
  }

  /** As {@link #open(Path)}, but with memtables of another size. */
  static RawRocksDb open(Path directory, long writeBufferBytes) throws IOException {
    return new RawRocksDb(directory, writeBufferBytes);
  }

  Path directory() {
    return directory;
  }

  /** Key and serialised row of each row, put in one write batch; returns the bytes written. */
  long putAll(Object[][] rows, int from, int to) throws IOException {
    long bytes = 0;
    try (WriteBatch batch = new WriteBatch()) {
      for (int i = from; i < to; i++) {
        byte[] key = key((Long) rows[i][0]);
        byte[] value = serialize(rows[i]);
        batch.put(key, value);
        bytes += key.length + value.length;
      }
      db.write(writeOptions, batch);
    } catch (RocksDBException e) {
      throw new IOException("Baseline RocksDB write failed", e);
    }
    return bytes;
  }

  /** The stored value's length, or -1 when the key is absent. */
  int get(long id) throws IOException {
    try {
      byte[] value = db.get(key(id));
      return value == null ? -1 : value.length;
    } catch (RocksDBException e) {
      throw new IOException("Baseline RocksDB get failed", e);
    }
  }

  /** Flushes the memtables, so that the directory holds every row. */
  void flush() throws IOException {
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    } catch (RocksDBException e) {
      throw new IOException("Baseline RocksDB flush failed", e);
    }
  }

  static byte[] key(long id) {
    return ByteBuffer.allocate(Long.BYTES).putLong(id ^ Long.MIN_VALUE).array();
  }

  static byte[] serialize(Object[] row) {
    int size = 0;
    byte[][] strings = new byte[row.length][];
    for (int i = 0; i < row.length; i++) {
      size +=
          switch (row[i]) {
            case Long l -> Long.BYTES;
            case Double d -> Double.BYTES;
            case Integer n -> Integer.BYTES;
            case String s -> {
              strings[i] = s.getBytes(UTF_8);
              yield Short.BYTES + strings[i].length;
            }
            default -> throw new IllegalArgumentException("Unexpected value " + row[i]);
          };
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    for (int i = 0; i < row.length; i++) {
      switch (row[i]) {
        case Long l -> buffer.putLong(l);
        case Double d -> buffer.putDouble(d);
        case Integer n -> buffer.putInt(n);
        default -> buffer.putShort((short) strings[i].length).put(strings[i]);
      }
    }
    return buffer.array();
  }

  @Override
  public void close() {
    db.close();
    releaseOptions();
  }

  private void releaseOptions() {
    writeOptions.close();
    options.close();
    bloomFilter.close();
    memory.close();
  }
}
