package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.PreparedBatch;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * Writes rows to a streaming table exactly once by tying the client's idempotent writes (a writer
 * id and a sequence per bucket) to Flink's checkpoints.
 *
 * <p>Each writer subtask batches its rows with a preparing writer of the client ({@link
 * io.lakestream.client.Table#newPreparingAppendWriter}), which sends nothing. At each checkpoint
 * (and at the end of input) {@link CommittingSinkWriter#prepareCommit()} cuts the batches of the
 * rows since the last one: each {@link PreparedBatch} is encoded and framed with its bucket (and
 * partition), the writer's id (random per writer instance) and the bucket's next sequence. These
 * committables are kept in the checkpoint. Once the checkpoint completes, the {@link
 * PreparedBatchCommitter} sends them. After a failure, Flink restores the last completed checkpoint
 * and commits its committables again, with the same writer ids and sequences: the server stores a
 * batch it already has once, so a row is in the table once whether the first commit happened, half
 * happened or not. Rows after that checkpoint were in no committable; the source replays them into
 * a new writer instance, under a new writer id.
 *
 * <p>Costs: rows become visible only when the checkpoint that covers them completes (never, in an
 * unbounded job without checkpointing); the encoded (compressed) rows of a checkpoint interval are
 * held in the writer's memory and then in checkpoint state until committed.
 */
final class LakestreamExactlyOnceSink implements Sink<RowData>, SupportsCommitter<PreparedBatch> {
  private static final long serialVersionUID = 1L;

  private final LakestreamSink sink;

  /**
   * @param sink the table, columns and server, as the at-least-once sink has them
   */
  LakestreamExactlyOnceSink(LakestreamSink sink) {
    this.sink = requireNonNull(sink, "sink is null");
  }

  /** The table, columns and server this sink writes, as the at-least-once sink has them. */
  LakestreamSink target() {
    return sink;
  }

  /** This sink writing partial updates (see {@link LakestreamSink#withTargetColumns}). */
  LakestreamExactlyOnceSink withTargetColumns(List<String> targetColumns) {
    return new LakestreamExactlyOnceSink(sink.withTargetColumns(targetColumns));
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) {
    Connection connection = sink.connect();
    try {
      io.lakestream.client.Table stream = sink.openTable(connection);
      return CountingSinkWriter.committing(
          sink.primaryKey()
              ? new PreparingRowWriter(
                  connection,
                  null,
                  sink.targetColumns().isEmpty()
                      ? stream.newPreparingUpsertWriter(WriterOptions.defaults())
                      : stream.newPreparingUpsertWriter(
                          sink.targetColumns(), WriterOptions.defaults()),
                  sink.values(),
                  sink.keyColumns())
              : new PreparingRowWriter(
                  connection,
                  stream.newPreparingAppendWriter(WriterOptions.defaults()),
                  null,
                  sink.values(),
                  sink.keyColumns()),
          context);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public Committer<PreparedBatch> createCommitter(CommitterInitContext context) {
    Connection connection = sink.connect();
    try {
      return new PreparedBatchCommitter(connection, connection.table(sink.tablePath()));
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public SimpleVersionedSerializer<PreparedBatch> getCommittableSerializer() {
    return new PreparedBatchSerializer();
  }

  /**
   * Batches a log table's rows, or a primary-key table's upserts and deletes, for the committer;
   * sends nothing.
   */
  private static final class PreparingRowWriter
      implements CommittingSinkWriter<RowData, PreparedBatch> {
    private final Connection connection;
    private final AppendWriter appends;
    private final UpsertWriter upserts;
    private final RowValues values;
    private final RowDataAccessor accessor;
    private final int[] keyColumns;

    /** One of {@code appends} (a log table) and {@code upserts} (a primary-key table) is null. */
    PreparingRowWriter(
        Connection connection,
        AppendWriter appends,
        UpsertWriter upserts,
        RowValues values,
        int[] keyColumns) {
      this.connection = connection;
      this.appends = appends;
      this.upserts = upserts;
      this.values = values;
      this.accessor = values.accessor();
      this.keyColumns = keyColumns;
    }

    @Override
    public void write(RowData row, Context context) {
      if (appends != null) {
        appends.append(accessor.of(row));
        return;
      }
      switch (row.getRowKind()) {
        case INSERT, UPDATE_AFTER -> upserts.upsert(values.of(row));
        case DELETE -> upserts.delete(values.of(row, keyColumns));
        case UPDATE_BEFORE -> {
          // The UPDATE_AFTER that follows replaces the row by its key.
        }
      }
    }

    @Override
    public void flush(boolean endOfInput) {
      // Rows are sent by the committer, once prepareCommit() has cut them into batches.
    }

    @Override
    public Collection<PreparedBatch> prepareCommit() {
      List<PreparedBatch> batches = appends != null ? appends.prepare() : upserts.prepare();
      return batches;
    }

    @Override
    public void close() {
      try {
        if (appends != null) {
          appends.close();
        } else {
          upserts.close();
        }
      } finally {
        connection.close();
      }
    }
  }
}
