package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;

/**
 * Counts the rows a sink's writer takes in Flink's standard {@code numRecordsSend} metric (of the
 * writer's {@code SinkWriterMetricGroup}), which dashboards and Flink's connector test suite read
 * for every sink. A row counts when the writer takes it, as Kafka's sink counts, also when the
 * exactly-once sink sends it only once its checkpoint completes.
 */
class CountingSinkWriter implements SinkWriter<RowData> {
  private final SinkWriter<RowData> writer;
  private final Counter recordsSend;

  private CountingSinkWriter(SinkWriter<RowData> writer, WriterInitContext context) {
    this.writer = requireNonNull(writer, "writer is null");
    this.recordsSend = context.metricGroup().getNumRecordsSendCounter();
  }

  /** The writer, counting its rows. */
  static SinkWriter<RowData> of(SinkWriter<RowData> writer, WriterInitContext context) {
    return new CountingSinkWriter(writer, context);
  }

  /** The writer of a sink with a committer, counting its rows. */
  static <C> CommittingSinkWriter<RowData, C> committing(
      CommittingSinkWriter<RowData, C> writer, WriterInitContext context) {
    return new Committing<>(writer, context);
  }

  @Override
  public void write(RowData row, Context context) throws IOException, InterruptedException {
    writer.write(row, context);
    recordsSend.inc();
  }

  @Override
  public void flush(boolean endOfInput) throws IOException, InterruptedException {
    writer.flush(endOfInput);
  }

  @Override
  public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
    writer.writeWatermark(watermark);
  }

  @Override
  public void close() throws Exception {
    writer.close();
  }

  private static final class Committing<C> extends CountingSinkWriter
      implements CommittingSinkWriter<RowData, C> {
    private final CommittingSinkWriter<RowData, C> writer;

    Committing(CommittingSinkWriter<RowData, C> writer, WriterInitContext context) {
      super(writer, context);
      this.writer = writer;
    }

    @Override
    public Collection<C> prepareCommit() throws IOException, InterruptedException {
      return writer.prepareCommit();
    }
  }
}
