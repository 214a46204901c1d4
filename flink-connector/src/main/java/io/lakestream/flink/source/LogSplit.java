package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One bucket of a streaming table's log, read from {@code startOffset} on, up to {@code stopOffset}
 * (exclusive) when bounded. A reader's checkpoint holds its splits with the offset of the next row
 * to emit as {@code startOffset}, so a restore resumes exactly there.
 *
 * @param partition the partition ({@code ""} for a table without partitions)
 * @param startOffset the offset of the next row to read, or {@link #EARLIEST} for the log's start
 *     at the time the reader subscribes
 * @param stopOffset the first offset not to read, or {@link #UNBOUNDED}
 */
public record LogSplit(String partition, int bucket, long startOffset, long stopOffset)
    implements SourceSplit {
  /** Start at the first offset the bucket's log holds when the reader subscribes. */
  public static final long EARLIEST = -2;

  /** Read on for as long as the job runs. */
  public static final long UNBOUNDED = Long.MAX_VALUE;

  public LogSplit {
    requireNonNull(partition, "partition is null");
    if (startOffset < 0 && startOffset != EARLIEST) {
      throw new IllegalArgumentException("Invalid start offset " + startOffset);
    }
  }

  /** The split's id: its partition and bucket. */
  public static String idOf(String partition, int bucket) {
    return partition.isEmpty() ? Integer.toString(bucket) : partition + "/" + bucket;
  }

  @Override
  public String splitId() {
    return idOf(partition, bucket);
  }

  /** Whether nothing is left to read (a bounded split read to its stop offset). */
  public boolean isFinished() {
    return stopOffset != UNBOUNDED && startOffset >= 0 && startOffset >= stopOffset;
  }

  /** This split resumed at {@code offset}. */
  public LogSplit at(long offset) {
    return new LogSplit(partition, bucket, offset, stopOffset);
  }
}
