package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;

/**
 * Writes rows to a streaming table through the client: a log table's rows are appended ({@code
 * AppendWriter}), a primary-key table's inserts and updates are upserts and its deletes deletes
 * ({@code UpsertWriter}). Each writer flushes, and waits for every acknowledgement, before Flink
 * takes a checkpoint and at the end of input, so a checkpoint never covers a row the server has not
 * made durable (at least once; a restore may write rows after the last checkpoint again, which a
 * primary-key table absorbs and a log table keeps twice). {@link LakestreamExactlyOnceSink} is the
 * exactly-once variant.
 */
final class LakestreamSink implements Sink<RowData> {
  private static final long serialVersionUID = 1L;

  /**
   * How long the sink's writers let a batch that is not full linger before sending it: 20 ms
   * instead of the client's 2 ms. A batch is sent when full (8192 rows), when it has lingered, and
   * before every checkpoint. With 2 ms a task thread that also runs Flink's pipeline fills only a
   * few hundred rows per batch, and a bucket's 5 batches in flight then cap the rate below half the
   * client's own (issue 34's sink benchmark); 20 ms fills whole batches from about 400,000 rows/s.
   * A row written by a slow stream becomes visible at most this much later.
   */
  static final Duration WRITER_LINGER = Duration.ofMillis(20);

  private final ServerAddress server;
  private final String database;
  private final String table;
  private final boolean primaryKey;
  private final List<String> columns;
  private final RowValues values;
  private final int[] keyColumns;
  private final List<String> targetColumns;

  /**
   * @param columns the names of the columns rows have, which must be the table's, in its order
   * @param keyColumns the primary key's columns in schema order (empty for a log table)
   */
  LakestreamSink(
      ServerAddress server,
      String database,
      String table,
      boolean primaryKey,
      List<String> columns,
      RowValues values,
      int[] keyColumns) {
    this.server = requireNonNull(server, "server is null");
    this.database = requireNonNull(database, "database is null");
    this.table = requireNonNull(table, "table is null");
    this.primaryKey = primaryKey;
    this.columns = List.copyOf(columns);
    this.values = requireNonNull(values, "values is null");
    this.keyColumns = keyColumns.clone();
    this.targetColumns = List.of();
  }

  private LakestreamSink(LakestreamSink sink, List<String> targetColumns) {
    this.server = sink.server;
    this.database = sink.database;
    this.table = sink.table;
    this.primaryKey = sink.primaryKey;
    this.columns = sink.columns;
    this.values = sink.values;
    this.keyColumns = sink.keyColumns;
    this.targetColumns = List.copyOf(targetColumns);
  }

  /**
   * This sink writing partial updates of a primary-key table: upserts change only {@code
   * targetColumns} (which include the key), the other columns keep their values.
   */
  LakestreamSink withTargetColumns(List<String> targetColumns) {
    return new LakestreamSink(this, targetColumns);
  }

  /** The columns partial updates write, or empty when rows are written whole. */
  List<String> targetColumns() {
    return targetColumns;
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) {
    Connection connection = connect();
    try {
      io.lakestream.client.Table stream = openTable(connection);
      return CountingSinkWriter.of(
          primaryKey
              ? new UpsertRowWriter(
                  connection,
                  targetColumns.isEmpty()
                      ? stream.newUpsertWriter(writerOptions())
                      : stream.newUpsertWriter(targetColumns, writerOptions()),
                  values,
                  keyColumns)
              : new AppendRowWriter(connection, stream.newAppendWriter(writerOptions()), values),
          context);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /** The options of the sink's writers: the client's defaults with {@link #WRITER_LINGER}. */
  static WriterOptions writerOptions() {
    return WriterOptions.defaults().withLinger(WRITER_LINGER);
  }

  /** A connection to the server's stream RPC; the caller closes it. */
  Connection connect() {
    return server.connect();
  }

  /**
   * The streaming table, checked against the rows this sink writes (kind, columns, key).
   *
   * @throws IllegalArgumentException when the table does not take them
   */
  io.lakestream.client.Table openTable(Connection connection) {
    TablePath path = tablePath();
    io.lakestream.client.Table stream = connection.table(path);
    checkColumns(path, stream);
    return stream;
  }

  TablePath tablePath() {
    return new TablePath(server.warehouse(), List.of(database), table);
  }

  boolean primaryKey() {
    return primaryKey;
  }

  RowValues values() {
    return values;
  }

  int[] keyColumns() {
    return keyColumns.clone();
  }

  /** The names of the columns rows have, in the table's order. */
  List<String> columns() {
    return columns;
  }

  /**
   * Refuses rows whose columns are not the table's: values are written by position, so a column
   * order that differs from the table's would put values in the wrong columns.
   */
  private void checkColumns(TablePath path, io.lakestream.client.Table stream) {
    boolean keyed = TableKind.PRIMARY_KEY.is(stream.kind());
    if (keyed != primaryKey) {
      throw new IllegalArgumentException(
          "Cannot write to "
              + path
              + ": it is a "
              + stream.kind()
              + " table, but the Flink table "
              + (primaryKey
                  ? "has a PRIMARY KEY (declare none for a log table)"
                  : "has no PRIMARY KEY (declare the table's, " + stream.primaryKey() + ")"));
    }
    List<String> tableColumns =
        stream.rowSchema(stream.schemaId()).getFields().stream().map(Field::getName).toList();
    if (!tableColumns.equals(columns)) {
      throw new IllegalArgumentException(
          "Cannot write to "
              + path
              + ": its columns are "
              + tableColumns
              + " but the Flink table has "
              + columns
              + " (declare the table's columns, in its order)");
    }
    List<String> key = new ArrayList<>();
    for (int column : keyColumns) {
      key.add(columns.get(column));
    }
    if (primaryKey && !key.equals(stream.primaryKey())) {
      throw new IllegalArgumentException(
          "Cannot write to "
              + path
              + ": its primary key is "
              + stream.primaryKey()
              + " but the Flink table's is "
              + key);
    }
  }

  /**
   * Appends every row of a log table (the planner hands a log table inserts only), each read column
   * by column straight into the writer's batch.
   */
  private static final class AppendRowWriter implements SinkWriter<RowData> {
    private final Connection connection;
    private final AppendWriter writer;
    private final RowDataAccessor accessor;

    AppendRowWriter(Connection connection, AppendWriter writer, RowValues values) {
      this.connection = connection;
      this.writer = writer;
      this.accessor = values.accessor();
    }

    @Override
    public void write(RowData row, Context context) {
      writer.append(accessor.of(row));
    }

    @Override
    public void flush(boolean endOfInput) {
      writer.flush();
    }

    @Override
    public void close() {
      try {
        writer.close();
      } finally {
        connection.close();
      }
    }
  }

  /** Upserts a primary-key table's inserts and updates, deletes its deletes. */
  private static final class UpsertRowWriter implements SinkWriter<RowData> {
    private final Connection connection;
    private final UpsertWriter writer;
    private final RowValues values;
    private final int[] keyColumns;

    UpsertRowWriter(
        Connection connection, UpsertWriter writer, RowValues values, int[] keyColumns) {
      this.connection = connection;
      this.writer = writer;
      this.values = values;
      this.keyColumns = keyColumns;
    }

    @Override
    public void write(RowData row, Context context) {
      switch (row.getRowKind()) {
        case INSERT, UPDATE_AFTER -> writer.upsert(values.of(row));
        case DELETE -> writer.delete(values.of(row, keyColumns));
        case UPDATE_BEFORE -> {
          // The UPDATE_AFTER that follows replaces the row by its key.
        }
      }
    }

    @Override
    public void flush(boolean endOfInput) {
      writer.flush();
    }

    @Override
    public void close() {
      try {
        writer.close();
      } finally {
        connection.close();
      }
    }
  }
}
