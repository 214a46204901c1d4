package io.lakestream.flink.source;

import io.lakestream.flink.source.LogRecords.Position;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.table.data.RowData;

/**
 * A subtask of a log source: one fetcher thread polls the subtask's buckets ({@link
 * LogSplitReader}); rows are emitted on the task thread, each moving its split's next offset, so a
 * checkpoint holds exactly the offsets after the rows emitted before it.
 */
final class LogSourceReader
    extends SingleThreadMultiplexSourceReaderBase<
        Position, RowData, LogSplit, LogSourceReader.SplitState> {

  /** A split being read: where its next row is. */
  static final class SplitState {
    private final LogSplit split;
    private long next;

    SplitState(LogSplit split) {
      this.split = split;
      this.next = split.startOffset();
    }
  }

  LogSourceReader(
      Supplier<SplitReader<Position, LogSplit>> splitReaders,
      Configuration config,
      SourceReaderContext context) {
    super(splitReaders, new Emitter(), config, context);
  }

  @Override
  public void start() {
    // Tells the enumerator that this reader runs; it pushes splits from then on.
    context.sendSplitRequest();
  }

  @Override
  protected void onSplitFinished(Map<String, SplitState> finished) {
    // A bounded bucket read to its stop offset: nothing to keep.
  }

  @Override
  protected SplitState initializedState(LogSplit split) {
    return new SplitState(split);
  }

  @Override
  protected LogSplit toSplitType(String splitId, SplitState state) {
    return state.split.at(state.next);
  }

  private static final class Emitter implements RecordEmitter<Position, RowData, SplitState> {
    @Override
    public void emitRecord(Position row, SourceOutput<RowData> output, SplitState state) {
      output.collect(row.row());
      state.next = row.nextOffset();
    }
  }
}
