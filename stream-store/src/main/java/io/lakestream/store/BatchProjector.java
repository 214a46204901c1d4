package io.lakestream.store;

import java.nio.ByteBuffer;

/**
 * Rewrites fetched batches for a reader: keeps only the requested columns of each batch's payload
 * and drops batches whose statistics show they cannot match the filter. Thread safe.
 */
public interface BatchProjector {
  /**
   * @param batches encoded batches, back to back
   * @param projection top-level column indexes to keep, in order; empty for all
   * @param filter encoded filter; empty for none
   * @return the rewritten batches, back to back, with their headers' offsets unchanged
   */
  ByteBuffer apply(StreamTable table, ByteBuffer batches, int[] projection, ByteBuffer filter);
}
