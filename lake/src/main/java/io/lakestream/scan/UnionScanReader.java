package io.lakestream.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import io.lakestream.client.Connection;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TableBucket;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.lake.LakeRecords;
import io.lakestream.lake.LogRangeReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Executes a union read plan in this JVM, row by row, as Iceberg generic records of the lake
 * table's current schema: the lake snapshot through Iceberg's generic reader (deletes applied), the
 * log ranges through the stream client. A reference reader: engines with their own scan machinery
 * read the same plan in parallel.
 *
 * <p>A log table's rows come lake first, then each range in offset order. A primary-key table's
 * ranges are folded per key first (memory grows with the keys they touch), then the snapshot's rows
 * of untouched keys are streamed, then the ranges' surviving rows.
 *
 * <p>Thread safe.
 */
public final class UnionScanReader {
  private final Connection connection;
  private final Duration readTimeout;

  public UnionScanReader(Connection connection, Duration readTimeout) {
    this.connection = requireNonNull(connection, "connection is null");
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
  }

  /**
   * Reads every row of the plan into {@code rows}.
   *
   * @return the number of rows handed over
   * @throws io.lakestream.lake.TieringException when the log ranges cannot be read in time
   */
  public long read(UnionScanPlanner.Planned planned, Consumer<Record> rows) {
    UnionScanPlan plan = planned.plan();
    Table table = planned.lakeTable();
    LakeRecords records = new LakeRecords(table.schema());
    io.lakestream.client.Table stream = connection.table(plan.table());
    try {
      if (!plan.primaryKey()) {
        long count = readLake(table, plan, rows, null);
        long[] tail = {0};
        LogRangeReader.read(
            plan.table(),
            stream,
            plan.logRanges(),
            readTimeout,
            Long.MAX_VALUE,
            new HashMap<TableBucket, Long>(),
            (range, batch, first, end) -> {
              FieldVector[] vectors = records.vectorsOf(batch.root());
              for (int row = first; row < end; row++) {
                rows.accept(records.record(vectors, row));
              }
              tail[0] += end - first;
            });
        return count + tail[0];
      }
      int[] key = keyPositions(table.schema());
      Map<List<Object>, Record> changed = new LinkedHashMap<>(); // null value: deleted
      LogRangeReader.read(
          plan.table(),
          stream,
          plan.logRanges(),
          readTimeout,
          Long.MAX_VALUE,
          new HashMap<TableBucket, Long>(),
          (range, batch, first, end) -> fold(records, key, batch, first, end, changed));
      long count = readLake(table, plan, rows, record -> changed.containsKey(keyOf(record, key)));
      for (Record record : changed.values()) {
        if (record != null) {
          rows.accept(record);
          count++;
        }
      }
      return count;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + plan.table(), e);
    }
  }

  private interface Skip {
    boolean test(Record record);
  }

  private static long readLake(Table table, UnionScanPlan plan, Consumer<Record> rows, Skip skip)
      throws IOException {
    if (plan.snapshotId().isEmpty()) {
      return 0;
    }
    long count = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(plan.snapshotId().getAsLong()).build()) {
      for (Record record : records) {
        if (skip == null || !skip.test(record)) {
          rows.accept(record);
          count++;
        }
      }
    }
    return count;
  }

  private static void fold(
      LakeRecords records,
      int[] key,
      ScanBatch batch,
      int first,
      int end,
      Map<List<Object>, Record> changed) {
    FieldVector[] vectors = records.vectorsOf(batch.root());
    for (int row = first; row < end; row++) {
      ChangeType type = batch.changeType(row);
      if (type == ChangeType.UPDATE_BEFORE) {
        continue; // its update-after follows in the same batch
      }
      Record record = records.record(vectors, row);
      List<Object> id = keyOf(record, key);
      changed.remove(id); // keep the order of last changes
      changed.put(id, type == ChangeType.DELETE ? null : record);
    }
  }

  private static int[] keyPositions(Schema schema) {
    List<Types.NestedField> columns = schema.columns();
    int[] positions =
        schema.identifierFieldIds().stream()
            .mapToInt(id -> columns.indexOf(schema.findField(id)))
            .sorted()
            .toArray();
    if (positions.length == 0 || Arrays.stream(positions).anyMatch(position -> position < 0)) {
      throw new IllegalArgumentException(
          "A primary-key table's lake schema needs top-level identifier fields: " + schema);
    }
    return positions;
  }

  private static List<Object> keyOf(Record record, int[] key) {
    Object[] values = new Object[key.length];
    for (int i = 0; i < key.length; i++) {
      Object value = record.get(key[i]);
      values[i] = value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
    }
    return Arrays.asList(values);
  }
}
