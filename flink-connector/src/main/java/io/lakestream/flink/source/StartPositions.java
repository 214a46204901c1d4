package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Table;
import java.io.Serializable;
import java.util.Map;

/**
 * Where a log source starts reading each bucket, resolved by its enumerator into offsets when it
 * first sees the bucket (so a restore never re-resolves them).
 */
public sealed interface StartPositions extends Serializable {
  /**
   * The offset the bucket's split starts at, or {@link LogSplit#EARLIEST}.
   *
   * @param discovered whether the partition appeared after the source started (its rows are all
   *     new, so it is read from its start whatever the mode)
   */
  long resolve(Table table, String partition, int bucket, boolean discovered);

  /** The start of each bucket's log. */
  record Earliest() implements StartPositions {
    @Override
    public long resolve(Table table, String partition, int bucket, boolean discovered) {
      return LogSplit.EARLIEST;
    }
  }

  /** Each bucket's high watermark when the source starts: only rows written from then on. */
  record Latest() implements StartPositions {
    @Override
    public long resolve(Table table, String partition, int bucket, boolean discovered) {
      return discovered ? LogSplit.EARLIEST : table.latestOffset(partition, bucket);
    }
  }

  /** The first row of each bucket committed at or after a time. */
  record FromTimestamp(long epochMillis) implements StartPositions {
    @Override
    public long resolve(Table table, String partition, int bucket, boolean discovered) {
      return table.offsetForTimestamp(partition, bucket, epochMillis);
    }
  }

  /**
   * Given offsets per partition and bucket ({@code ""} for a table without partitions); a bucket
   * without one starts at its log's start, or at {@code 0} with {@code exact}, where a read that
   * cannot start there must fail rather than skip rows (after a lake snapshot).
   */
  record AtOffsets(Map<String, Map<Integer, Long>> offsets, boolean exact)
      implements StartPositions {
    public AtOffsets {
      offsets = Map.copyOf(requireNonNull(offsets, "offsets is null"));
    }

    @Override
    public long resolve(Table table, String partition, int bucket, boolean discovered) {
      Long offset = offsets.getOrDefault(partition, Map.of()).get(bucket);
      if (offset != null) {
        return offset;
      }
      return exact ? 0 : LogSplit.EARLIEST;
    }
  }
}
