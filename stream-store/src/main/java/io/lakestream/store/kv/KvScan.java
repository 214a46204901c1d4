package io.lakestream.store.kv;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/**
 * Every live row of a tablet as of one RocksDB snapshot, in key order, with the log offset that
 * state is consistent to: the rows are exactly the fold of the changelog below {@link #offset()}.
 * Writes made after the scan started are not seen.
 *
 * <p>Holds native resources until closed (closing the tablet closes its open scans). Not for use by
 * several threads at once.
 */
public final class KvScan implements Iterator<Object[]>, AutoCloseable {
  private final KvTablet tablet;
  private final RocksDB db;
  private final Snapshot snapshot;
  private final ReadOptions readOptions;
  private final RocksIterator iterator;
  private final RowCodec rows;
  private final long offset;
  private boolean closed;

  KvScan(
      KvTablet tablet,
      RocksDB db,
      Snapshot snapshot,
      ReadOptions readOptions,
      RocksIterator iterator,
      RowCodec rows,
      long offset) {
    this.tablet = tablet;
    this.db = db;
    this.snapshot = snapshot;
    this.readOptions = readOptions;
    this.iterator = iterator;
    this.rows = rows;
    this.offset = offset;
    iterator.seekToFirst();
    skipMetadata();
  }

  /** The log offset the rows are consistent to: changes below it are in, none at or above it. */
  public long offset() {
    return offset;
  }

  @Override
  public synchronized boolean hasNext() {
    ensureOpen();
    return iterator.isValid();
  }

  @Override
  public synchronized Object[] next() {
    ensureOpen();
    if (!iterator.isValid()) {
      throw new NoSuchElementException();
    }
    Object[] row = rows.decode(iterator.value());
    iterator.next();
    return row;
  }

  private void skipMetadata() {
    while (iterator.isValid() && iterator.key().length == 0) {
      iterator.next();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("Scan is closed");
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    iterator.close();
    db.releaseSnapshot(snapshot);
    readOptions.close();
    tablet.forget(this);
  }
}
