package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.scan.LogRangePlanner;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The log ranges one tiering round reads and the offsets the lake reaches with them, planned by
 * {@link LogRangePlanner} (the one implementation of range planning, shared with union reads): per
 * partition and bucket, {@code [tiered offset, high watermark)}, from the log's start when
 * retention deleted the tiered offset.
 *
 * @param stream the streaming table whose log the round reads
 * @param from the offsets the round starts from
 * @param ranges the ranges to read, without empty ones
 * @param next per partition and bucket, the offset the lake reaches once every range is read
 */
public record TieringPlan(
    TablePath path,
    io.lakestream.client.Table stream,
    TieredOffsets from,
    List<LogRange> ranges,
    Map<String, Map<Integer, Long>> next) {
  public TieringPlan {
    requireNonNull(path, "path is null");
    requireNonNull(stream, "stream is null");
    requireNonNull(from, "from is null");
    ranges = List.copyOf(ranges);
    Map<String, Map<Integer, Long>> copy = new TreeMap<>();
    next.forEach((partition, buckets) -> copy.put(partition, Map.copyOf(buckets)));
    next = Map.copyOf(copy);
  }

  /** Plans a round of {@code stream} from {@code from} to the buckets' high watermarks now. */
  public static TieringPlan of(
      TablePath path, io.lakestream.client.Table stream, TieredOffsets from) {
    Map<String, Map<Integer, Long>> next = new TreeMap<>();
    List<LogRange> ranges =
        LogRangePlanner.plan(
            path, stream, from, LogRangePlanner.WhenGone.CONTINUE_FROM_LOG_START, next);
    return new TieringPlan(path, stream, from, ranges, next);
  }

  /**
   * The offsets the lake holds once the round's rows are committed: {@link #next()}, except that a
   * bucket the round stopped reading early ({@link LakeDataWriter}) reaches the offset it was read
   * to.
   */
  public TieredOffsets reaching(Map<TableBucket, Long> reached) {
    return reaching(next, reached);
  }

  static TieredOffsets reaching(
      Map<String, Map<Integer, Long>> next, Map<TableBucket, Long> reached) {
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    next.forEach((partition, buckets) -> offsets.put(partition, new TreeMap<>(buckets)));
    reached.forEach(
        (bucket, offset) -> {
          Map<Integer, Long> buckets = offsets.get(bucket.partition());
          if (offset > 0) {
            buckets.put(bucket.bucket(), offset);
          } else {
            buckets.remove(bucket.bucket());
          }
        });
    return TieredOffsets.of(offsets);
  }
}
