package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.flink.ServerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.types.RowKind;

/**
 * Reads a subtask's buckets with one client {@link LogScanner} (one fetch pipeline for all of
 * them), on the source's fetcher thread. Each row goes out with the offset after it, which the
 * reader's checkpoint keeps as its split's next offset.
 */
final class LogSplitReader implements SplitReader<LogRecords.Position, LogSplit> {
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  private final Connection connection;
  private final TablePath path;
  private final LogScanner scanner;
  private final ArrowRows rows;
  private final Map<String, LogSplit> splits = new HashMap<>();

  LogSplitReader(ServerAddress server, TablePath path, LogReadSpec spec) {
    this.path = requireNonNull(path, "path is null");
    this.connection = server.connect();
    try {
      io.lakestream.client.Table table = connection.table(path);
      this.scanner =
          table.newScanner(spec.columns(), spec.filter(table.arrowSchema(table.schemaId())));
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
    this.rows = new ArrowRows(spec.columns(), spec.types());
  }

  @Override
  public RecordsWithSplitIds<LogRecords.Position> fetch() {
    LogRecords.Builder out = new LogRecords.Builder();
    if (!splits.isEmpty()) {
      for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
        try (batch) {
          add(batch, out);
        }
      }
    }
    List<String> finished = new ArrayList<>();
    for (LogSplit split : splits.values()) {
      if (split.stopOffset() != LogSplit.UNBOUNDED
          && scanner.position(split.partition(), split.bucket()) >= split.stopOffset()) {
        finished.add(split.splitId());
      }
    }
    for (String id : finished) {
      LogSplit split = splits.remove(id);
      scanner.unsubscribe(split.partition(), split.bucket());
      out.addFinishedSplit(id);
    }
    return out.build();
  }

  private void add(ScanBatch batch, LogRecords.Builder out) {
    String id = LogSplit.idOf(batch.partition(), batch.bucket());
    LogSplit split = splits.get(id);
    if (split == null) {
      return;
    }
    int count = batch.rowCount();
    // A fetch returns whole batches: rows before the split's start (a restore or a given offset
    // in the middle of a batch) were emitted before or are not asked for.
    int first = (int) Math.max(0, Math.min(count, split.startOffset() - batch.baseOffset()));
    int end = (int) Math.max(first, Math.min(count, split.stopOffset() - batch.baseOffset()));
    BinaryRowData[] batchRows = rows.read(batch.root(), first, end);
    // A primary-key table's changelog has a change type per row; a log table's rows are inserts.
    TinyIntVector changeTypes =
        (TinyIntVector) batch.root().getVector(ArrowValues.CHANGE_TYPE_COLUMN);
    if (changeTypes != null) {
      for (int i = first; i < end; i++) {
        batchRows[i - first].setRowKind(kindOf(ChangeType.fromCode(changeTypes.get(i))));
      }
    }
    out.add(id, batchRows, batch.baseOffset() + first);
  }

  private static RowKind kindOf(ChangeType type) {
    return switch (type) {
      case INSERT -> RowKind.INSERT;
      case UPDATE_BEFORE -> RowKind.UPDATE_BEFORE;
      case UPDATE_AFTER -> RowKind.UPDATE_AFTER;
      case DELETE -> RowKind.DELETE;
    };
  }

  @Override
  public void handleSplitsChanges(SplitsChange<LogSplit> change) {
    if (!(change instanceof SplitsAddition<LogSplit> addition)) {
      throw new UnsupportedOperationException(
          "Unsupported split change " + change.getClass().getSimpleName());
    }
    for (LogSplit split : addition.splits()) {
      splits.put(split.splitId(), split);
      scanner.subscribe(
          split.partition(),
          split.bucket(),
          split.startOffset() == LogSplit.EARLIEST
              ? LogScanner.earliest()
              : LogScanner.offset(split.startOffset()));
    }
  }

  @Override
  public void wakeUp() {
    // A poll waits at most POLL_TIMEOUT; split changes wait for it to return.
  }

  @Override
  public void close() {
    try {
      scanner.close();
    } finally {
      connection.close();
    }
  }

  @Override
  public String toString() {
    return "log reader of " + path;
  }
}
