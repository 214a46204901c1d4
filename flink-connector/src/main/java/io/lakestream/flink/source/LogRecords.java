package io.lakestream.flink.source;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The rows of one fetch of a {@link LogSplitReader}, by split, handed to the task thread whole: per
 * batch an array of rows and the offset of its first row, so a row costs no wrapper object. Rows
 * are returned through one mutable {@link Position}, valid until the next call; the reader's
 * emitter reads it at once. Not thread safe: filled on the fetcher thread, then read on the task
 * thread only (the element queue hands it over).
 */
final class LogRecords implements RecordsWithSplitIds<LogRecords.Position> {

  /** The row being emitted and the offset of the next row of its bucket. */
  static final class Position {
    private BinaryRowData row;
    private long nextOffset;

    BinaryRowData row() {
      return row;
    }

    long nextOffset() {
      return nextOffset;
    }
  }

  private record Batch(BinaryRowData[] rows, long firstOffset) {}

  private final Map<String, List<Batch>> batches = new LinkedHashMap<>();
  private final Set<String> finished;
  private final Position position = new Position();
  private Iterator<Map.Entry<String, List<Batch>>> splits;
  private List<Batch> current;
  private int batchIndex;
  private int rowIndex;

  private LogRecords(Map<String, List<Batch>> batches, Set<String> finished) {
    this.batches.putAll(batches);
    this.finished = Set.copyOf(finished);
    this.splits = this.batches.entrySet().iterator();
  }

  @Override
  public String nextSplit() {
    if (!splits.hasNext()) {
      current = null;
      return null;
    }
    Map.Entry<String, List<Batch>> next = splits.next();
    current = next.getValue();
    batchIndex = 0;
    rowIndex = 0;
    return next.getKey();
  }

  @Override
  public Position nextRecordFromSplit() {
    if (current == null) {
      throw new IllegalStateException("nextRecordFromSplit() called before nextSplit()");
    }
    while (batchIndex < current.size()) {
      Batch batch = current.get(batchIndex);
      if (rowIndex < batch.rows.length) {
        int index = rowIndex++;
        position.row = batch.rows[index];
        position.nextOffset = batch.firstOffset + index + 1;
        return position;
      }
      batchIndex++;
      rowIndex = 0;
    }
    return null;
  }

  @Override
  public Set<String> finishedSplits() {
    return finished;
  }

  /** Collects a fetch's batches of rows and finished splits. */
  static final class Builder {
    private final Map<String, List<Batch>> batches = new LinkedHashMap<>();
    private final Set<String> finished = new HashSet<>();

    /**
     * Adds rows of split {@code splitId}, the first at {@code firstOffset}, the next ones after.
     */
    void add(String splitId, BinaryRowData[] rows, long firstOffset) {
      if (rows.length > 0) {
        batches.computeIfAbsent(splitId, id -> new ArrayList<>()).add(new Batch(rows, firstOffset));
      }
    }

    void addFinishedSplit(String splitId) {
      finished.add(splitId);
    }

    LogRecords build() {
      return new LogRecords(batches, finished);
    }
  }
}
