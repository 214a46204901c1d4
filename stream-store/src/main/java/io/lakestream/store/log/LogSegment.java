package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.batch.LogBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One file of a bucket's log: batches back to back, named by the base offset of its first batch
 * ({@code 00000000000000001234.log}).
 *
 * <p>A sparse offset index (one entry per {@code indexIntervalBytes} of batches) and a time index
 * (the largest commit timestamp seen at each index entry) are kept in memory and rebuilt when the
 * segment is opened, by scanning batch headers; the scan also checks every batch's CRC and, when
 * asked to recover, truncates the file at the first batch that is torn or corrupt. Nothing before
 * that batch is lost, and a batch is only acknowledged after it is flushed, so truncation never
 * drops an acknowledged batch.
 *
 * <p>Not thread safe: its {@link LogTablet} serialises appends, and readers use {@link #slice}
 * results, which read the file through positional reads that do not disturb appends.
 */
public final class LogSegment implements AutoCloseable {
  private static final int INITIAL_INDEX_CAPACITY = 64;

  private final Path file;
  private final long baseOffset;
  private final FileChannel channel;
  private final int indexIntervalBytes;
  private final long createdMillis;
  private long size;
  private long nextOffset;
  private long maxTimestamp = -1;
  private int bytesSinceIndexEntry;
  private long[] indexOffsets = new long[INITIAL_INDEX_CAPACITY];
  private long[] indexPositions = new long[INITIAL_INDEX_CAPACITY];
  private long[] indexTimestamps = new long[INITIAL_INDEX_CAPACITY];
  private int indexEntries;

  private LogSegment(
      Path file, long baseOffset, FileChannel channel, int indexIntervalBytes, long createdMillis) {
    this.file = requireNonNull(file, "file is null");
    this.baseOffset = baseOffset;
    this.channel = requireNonNull(channel, "channel is null");
    this.indexIntervalBytes = indexIntervalBytes;
    this.createdMillis = createdMillis;
    this.nextOffset = baseOffset;
  }

  static Path fileName(Path directory, long baseOffset) {
    return directory.resolve(String.format("%020d.log", baseOffset));
  }

  /** Creates a new, empty segment. */
  static LogSegment create(Path directory, long baseOffset, int indexIntervalBytes, long nowMillis)
      throws IOException {
    Path file = fileName(directory, baseOffset);
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new LogSegment(file, baseOffset, channel, indexIntervalBytes, nowMillis);
  }

  /**
   * Opens an existing segment and rebuilds its indexes.
   *
   * @param recover truncate at the first invalid batch; otherwise an invalid batch is an error
   * @param visitor sees every valid batch's header, in order (the tablet rebuilds writer state)
   */
  static LogSegment open(Path file, int indexIntervalBytes, boolean recover, BatchVisitor visitor)
      throws IOException {
    String name = file.getFileName().toString();
    long baseOffset = Long.parseLong(name.substring(0, name.length() - ".log".length()));
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    LogSegment segment =
        new LogSegment(
            file,
            baseOffset,
            channel,
            indexIntervalBytes,
            Files.getLastModifiedTime(file).toMillis());
    segment.scan(recover, visitor);
    return segment;
  }

  /** Sees batch headers during recovery. */
  interface BatchVisitor {
    void visit(LogBatch header);
  }

  private void scan(boolean recover, BatchVisitor visitor) throws IOException {
    long fileSize = channel.size();
    long position = 0;
    ByteBuffer prefix = ByteBuffer.allocate(LogBatch.LOG_OVERHEAD).order(ByteOrder.BIG_ENDIAN);
    while (position + LogBatch.HEADER_SIZE <= fileSize) {
      prefix.clear();
      readFully(prefix, position);
      int length = prefix.getInt(LogBatch.LENGTH);
      long batchSize = LogBatch.LOG_OVERHEAD + (long) length;
      if (length < LogBatch.HEADER_SIZE - LogBatch.LOG_OVERHEAD
          || position + batchSize > fileSize) {
        break;
      }
      ByteBuffer whole = ByteBuffer.allocate((int) batchSize);
      readFully(whole, position);
      whole.flip();
      LogBatch batch = LogBatch.wrap(whole);
      if (!batch.isValid()
          || (position == 0 && batch.baseOffset() != baseOffset)
          || (position > 0 && batch.baseOffset() != nextOffset)) {
        break;
      }
      track(batch, position);
      visitor.visit(batch);
      position += batchSize;
    }
    size = position;
    if (position < fileSize) {
      if (!recover) {
        throw new IOException(
            "Corrupt batch at position "
                + position
                + " of "
                + file
                + " (file size "
                + fileSize
                + ")");
      }
      channel.truncate(position);
      channel.force(true);
    }
  }

  private void readFully(ByteBuffer buffer, long position) throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, at);
      if (read < 0) {
        throw new IOException("Unexpected end of " + file + " at " + at);
      }
      at += read;
    }
  }

  /**
   * Appends a batch whose offsets and timestamp are already assigned.
   *
   * @return the batch's position in the file
   */
  long append(LogBatch batch) throws IOException {
    long position = size;
    ByteBuffer buffer = batch.buffer();
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
    track(batch, position);
    size = at;
    return position;
  }

  private void track(LogBatch batch, long position) {
    if (indexEntries == 0 || bytesSinceIndexEntry >= indexIntervalBytes) {
      if (indexEntries == indexOffsets.length) {
        indexOffsets = Arrays.copyOf(indexOffsets, indexEntries * 2);
        indexPositions = Arrays.copyOf(indexPositions, indexEntries * 2);
        indexTimestamps = Arrays.copyOf(indexTimestamps, indexEntries * 2);
      }
      indexOffsets[indexEntries] = batch.baseOffset();
      indexPositions[indexEntries] = position;
      indexTimestamps[indexEntries] = Math.max(maxTimestamp, batch.commitTimestamp());
      indexEntries++;
      bytesSinceIndexEntry = 0;
    }
    bytesSinceIndexEntry += batch.sizeInBytes();
    maxTimestamp = Math.max(maxTimestamp, batch.commitTimestamp());
    nextOffset = batch.nextOffset();
  }

  /** Forces appended batches to disk. */
  void flush() throws IOException {
    channel.force(false);
  }

  /**
   * The position of the batch that contains {@code offset}, or of the first batch after it.
   *
   * @return -1 if the segment holds nothing at or after {@code offset}
   */
  long positionOf(long offset) throws IOException {
    if (offset >= nextOffset) {
      return -1;
    }
    int entry = floorEntry(indexOffsets, offset);
    long position = entry < 0 ? 0 : indexPositions[entry];
    ByteBuffer prefix = ByteBuffer.allocate(LogBatch.HEADER_SIZE).order(ByteOrder.BIG_ENDIAN);
    while (position < size) {
      prefix.clear();
      readFully(prefix, position);
      long base = prefix.getLong(LogBatch.BASE_OFFSET);
      int count = prefix.getInt(LogBatch.RECORD_COUNT);
      if (base + count > offset) {
        return position;
      }
      position += LogBatch.LOG_OVERHEAD + prefix.getInt(LogBatch.LENGTH);
    }
    return -1;
  }

  /** The first offset whose batch was committed at or after {@code timestamp}, or -1. */
  long offsetForTimestamp(long timestamp) throws IOException {
    if (maxTimestamp < timestamp) {
      return -1;
    }
    int entry = 0;
    while (entry + 1 < indexEntries && indexTimestamps[entry] < timestamp) {
      entry++;
    }
    // Index timestamps are maxima up to each entry, so start one entry earlier to be safe.
    long position = entry == 0 ? 0 : indexPositions[entry - 1];
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_SIZE).order(ByteOrder.BIG_ENDIAN);
    while (position < size) {
      header.clear();
      readFully(header, position);
      if (header.getLong(LogBatch.COMMIT_TIMESTAMP) >= timestamp) {
        return header.getLong(LogBatch.BASE_OFFSET);
      }
      position += LogBatch.LOG_OVERHEAD + header.getInt(LogBatch.LENGTH);
    }
    return -1;
  }

  /**
   * Locates whole batches from {@code position} up to about {@code maxBytes} (at least one batch),
   * ending at or before {@code endPosition}, reading only their headers.
   */
  LogSlice slice(long position, int maxBytes, long endPosition, long offset) throws IOException {
    long end = Math.min(endPosition, size);
    if (position >= end) {
      return LogSlice.empty(offset);
    }
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_SIZE).order(ByteOrder.BIG_ENDIAN);
    long[] boundaries = new long[16];
    int count = 0;
    long cursor = position;
    long nextOffset = offset;
    boundaries[count++] = cursor;
    while (cursor < end) {
      header.clear();
      readFully(header, cursor);
      long next = cursor + LogBatch.LOG_OVERHEAD + header.getInt(LogBatch.LENGTH);
      if (next > end || (cursor > position && next - position > maxBytes)) {
        break;
      }
      nextOffset = LogBatch.wrap(header.flip()).nextOffset();
      cursor = next;
      if (count == boundaries.length) {
        boundaries = java.util.Arrays.copyOf(boundaries, count * 2);
      }
      boundaries[count++] = cursor;
    }
    return new LogSlice(channel, java.util.Arrays.copyOf(boundaries, count), nextOffset);
  }

  /**
   * The position after the batch that ends at {@code offset} (exclusive), for reads bounded by a
   * watermark.
   */
  long positionBefore(long offset) throws IOException {
    if (offset >= nextOffset) {
      return size;
    }
    long position = positionOf(offset);
    return position < 0 ? size : position;
  }

  private int floorEntry(long[] keys, long key) {
    int low = 0;
    int high = indexEntries - 1;
    int found = -1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      if (keys[middle] <= key) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  public long baseOffset() {
    return baseOffset;
  }

  /** The offset after the last batch. */
  public long nextOffset() {
    return nextOffset;
  }

  public long sizeInBytes() {
    return size;
  }

  public long maxTimestamp() {
    return maxTimestamp;
  }

  public long createdMillis() {
    return createdMillis;
  }

  public Path file() {
    return file;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  /** Closes and removes the file. */
  void delete() throws IOException {
    close();
    Files.deleteIfExists(file);
  }
}
