package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.store.kv.KvManager;
import io.lakestream.store.log.LogManager;
import java.io.IOException;

/**
 * The store's rule for where log retention must stop in a bucket: never above the newest state
 * checkpoint of a primary-key table (a restart replays the changelog from there), and never above
 * the offset the bucket is tiered to (rows not yet in the lake exist only in the log). The lower of
 * the two wins. Install it with {@link LogManager#retentionFloor}. Thread safe if the {@link
 * TieredOffsetSource} is.
 */
public final class RetentionFloor implements LogManager.RetentionFloor {
  /** How far each bucket is tiered into the lake; the catalog knows, the store does not. */
  @FunctionalInterface
  public interface TieredOffsetSource {
    /** No tiering holds retention back: it is off, or the table is not a stream table. */
    long NOT_TIERED = Long.MAX_VALUE;

    /**
     * The offset below which a bucket's rows are committed to the lake: {@link #NOT_TIERED} when
     * tiering holds nothing back, 0 when the table or its tiered offsets are not known (yet), so
     * nothing is deleted.
     */
    long tieredOffset(String tableId, String partition, int bucket) throws IOException;
  }

  private final KvManager kvs;
  private final TieredOffsetSource tiered;

  public RetentionFloor(KvManager kvs, TieredOffsetSource tiered) {
    this.kvs = requireNonNull(kvs, "kvs is null");
    this.tiered = requireNonNull(tiered, "tiered is null");
  }

  @Override
  public long floor(String tableId, String partition, int bucket) throws IOException {
    long checkpoint = kvs.retentionFloor(tableId, partition, bucket);
    return Math.min(checkpoint, tiered.tieredOffset(tableId, partition, bucket));
  }
}
