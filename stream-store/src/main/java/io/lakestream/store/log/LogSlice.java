package io.lakestream.store.log;

import java.nio.channels.FileChannel;

/**
 * Whole batches of one segment, located but not read: the bytes {@code [start, end)} of a segment
 * file, batch {@code i} spanning {@code [boundaries[i], boundaries[i + 1])}. A fetch sends them
 * straight from the file, or reads just the parts it needs.
 *
 * @param channel the segment's file; owned by the segment, never closed by readers
 * @param boundaries the position of each batch followed by the end of the last one
 * @param nextOffset the offset after the last batch (the requested offset when empty)
 */
public record LogSlice(FileChannel channel, long[] boundaries, long nextOffset) {
  public int batchCount() {
    return boundaries.length - 1;
  }

  public long start() {
    return boundaries[0];
  }

  public long end() {
    return boundaries[boundaries.length - 1];
  }

  public long size() {
    return end() - start();
  }

  public boolean isEmpty() {
    return batchCount() == 0;
  }

  static LogSlice empty(long offset) {
    return new LogSlice(null, new long[] {0}, offset);
  }
}
