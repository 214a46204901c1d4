package io.lakestream.bench.flink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;

/**
 * A sink that counts the rows a Flink job hands it and notes when the first and the last arrived,
 * then drops them: the end of a measured read, in the place of a user's sink, with nothing chained
 * between the source and it. The job runs on a local MiniCluster in this JVM at parallelism 1: one
 * writer in one task thread counts in plain fields (a volatile write and a clock read per row cost
 * about as much as a projected row's read) and publishes its counts when the task closes it; the
 * benchmark thread reads them after the job has finished, and resets them before the next job.
 */
final class CountingSink implements Sink<RowData> {
  private static volatile long expectedRows;
  private static volatile long rows;
  private static volatile long firstNanos;
  private static volatile long lastNanos;

  /** Before a job: forgets the last job's counts; the clock is read again at row {@code rows}. */
  static void reset(long expected) {
    expectedRows = expected;
    rows = 0;
    firstNanos = 0;
    lastNanos = 0;
  }

  static long rows() {
    return rows;
  }

  /** Nanoseconds from the first row to the expected last one, the rate's interval. */
  static long firstToLastNanos() {
    return lastNanos - firstNanos;
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) {
    return new Writer(expectedRows);
  }

  private static final class Writer implements SinkWriter<RowData> {
    private final long target;
    private long count;
    private long first;
    private long last;

    Writer(long target) {
      this.target = target;
    }

    @Override
    public void write(RowData row, Context context) {
      if (count == 0) {
        first = System.nanoTime();
      }
      if (++count == target) {
        last = System.nanoTime();
      }
    }

    @Override
    public void flush(boolean endOfInput) {}

    @Override
    public void close() {
      firstNanos = first;
      lastNanos = last;
      rows = count;
    }
  }
}
