package io.lakestream.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one implementation of per-bucket range planning: from a lake snapshot's tiered offsets to
 * each bucket's high watermark, the log records the lake does not hold yet (see the package's
 * contract). Union reads and both lake formats' tiering plan with it.
 *
 * <p>Stateless; thread safe.
 */
public final class LogRangePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(LogRangePlanner.class);

  private LogRangePlanner() {}

  /** What to do with a bucket whose log no longer starts at or below its tiered offset. */
  public enum WhenGone {
    /**
     * Tiering: log a warning and start the bucket's range at the log's start (the deleted records
     * can never be tiered).
     */
    CONTINUE_FROM_LOG_START,
    /** Union reads: throw {@link LogRangeGoneException}, since the read would miss records. */
    FAIL
  }

  /**
   * Plans the ranges {@code [tiered offset, high watermark)} of every bucket of every partition of
   * {@code stream}, reading the high watermarks now in one pipelined request ({@link
   * io.lakestream.client.Table#offsets}), so a caller that loaded the lake snapshot first gets an
   * exact plan.
   *
   * @see #plan(TablePath, Map, TieredOffsets, WhenGone, Map)
   */
  public static List<LogRange> plan(
      TablePath path,
      io.lakestream.client.Table stream,
      TieredOffsets from,
      WhenGone whenGone,
      Map<String, Map<Integer, Long>> next) {
    return plan(path, stream.offsets(stream.partitions()), from, whenGone, next);
  }

  /**
   * Plans the ranges {@code [tiered offset, high watermark)} of the given buckets, in their
   * iteration order, leaving out empty ones.
   *
   * @param offsets each bucket's first offset and high watermark
   * @param next receives, per partition and bucket, the offset the lake reaches once the bucket's
   *     range is tiered ({@code max(tiered offset, high watermark)}), for buckets where that is
   *     above 0; partitions map to mutable {@link TreeMap}s
   * @throws LogRangeGoneException with {@link WhenGone#FAIL}, when a bucket's log starts above its
   *     tiered offset and below its high watermark
   */
  public static List<LogRange> plan(
      TablePath path,
      Map<TableBucket, io.lakestream.client.Table.BucketOffsets> offsets,
      TieredOffsets from,
      WhenGone whenGone,
      Map<String, Map<Integer, Long>> next) {
    requireNonNull(path, "path is null");
    requireNonNull(from, "from is null");
    requireNonNull(whenGone, "whenGone is null");
    requireNonNull(next, "next is null");
    List<LogRange> ranges = new ArrayList<>();
    for (Map.Entry<TableBucket, io.lakestream.client.Table.BucketOffsets> entry :
        offsets.entrySet()) {
      String partition = entry.getKey().partition();
      int bucket = entry.getKey().bucket();
      long tiered = from.offset(partition, bucket);
      long highWatermark = entry.getValue().latest();
      if (highWatermark > tiered) {
        long start =
            startOf(path, partition, bucket, tiered, entry.getValue().earliest(), whenGone);
        if (start < highWatermark) {
          ranges.add(new LogRange(partition, bucket, start, highWatermark));
        }
      } else if (highWatermark < tiered && whenGone == WhenGone.CONTINUE_FROM_LOG_START) {
        LOG.warn(
            "Bucket {} of partition '{}' of {}: high watermark {} is below the tiered offset {}",
            bucket,
            partition,
            path,
            highWatermark,
            tiered);
      }
      long offset = Math.max(tiered, highWatermark);
      if (offset > 0) {
        next.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
      }
    }
    return ranges;
  }

  private static long startOf(
      TablePath path, String partition, int bucket, long tiered, long earliest, WhenGone whenGone) {
    if (earliest <= tiered) {
      return tiered;
    }
    if (whenGone == WhenGone.FAIL) {
      throw new LogRangeGoneException(
          "Cannot read "
              + path
              + ": bucket "
              + bucket
              + (partition.isEmpty() ? "" : " of partition '" + partition + "'")
              + " starts at offset "
              + earliest
              + " but its lake snapshot holds rows only below "
              + tiered
              + "; offsets "
              + tiered
              + " to "
              + earliest
              + " were deleted before they were tiered");
    }
    LOG.warn(
        "Bucket {} of partition '{}' of {}: offsets {} to {} were deleted from the log"
            + " before they were tiered; tiering continues from {}",
        bucket,
        partition,
        path,
        tiered,
        earliest,
        earliest);
    return earliest;
  }
}
