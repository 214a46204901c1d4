package io.lakestream.store;

import io.lakestream.store.log.LogSlice;
import io.lakestream.store.rpc.ResponseBody;
import java.nio.ByteBuffer;

/**
 * Rewrites fetched batches for a reader: keeps only the requested columns of each batch's payload
 * and drops batches whose statistics show they cannot match the filter. It reads only the start of
 * each batch (header, statistics, Arrow metadata) and sends the kept column buffers as ranges of
 * the segment file. Thread safe.
 */
public interface BatchProjector {
  /**
   * Adds the rewritten batches of {@code slice} to {@code out}, back to back, with their headers'
   * offsets unchanged.
   *
   * @param projection top-level column indexes to keep, in order; empty for all
   * @param filter encoded filter; empty for none
   * @throws java.io.UncheckedIOException if the segment cannot be read
   * @throws io.lakestream.client.arrow.InvalidBatchFormatException if a stored batch is damaged
   *     (disk damage: every batch was checked before it was stored); the message names its offset
   */
  void apply(
      StreamTable table,
      LogSlice slice,
      int[] projection,
      ByteBuffer filter,
      ResponseBody.Builder out);
}
