package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.Messages.PutKvRequest;
import io.lakestream.client.rpc.RpcException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes upserts, deletes and partial updates to a primary-key table. Rows are batched per bucket
 * (by the hash of the bucket key, the primary key by default) and sent like an {@link
 * AppendWriter}'s: asynchronously, with linger and size limits, a writer id and sequence per bucket
 * so that a resent batch is applied once, and backpressure on unacknowledged batches. An upsert or
 * delete is acknowledged once its changelog is durable in the bucket's log; from then on lookups
 * see it.
 *
 * <p>How an upsert combines with the stored row is the table's merge engine's business ({@code
 * lakestream.merge-engine}). A writer made with target columns sends partial updates: only those
 * columns change. A row the server refuses (a null key column, a delete on a first-row table, a
 * partial update without the key) fails its batch, and the writer, with a typed {@link
 * RpcException}; nothing of that batch is applied.
 *
 * <p>{@code upsert} and {@code delete} return a future of the write's {@link WriteAck}, shared by
 * the writes of one batch, exactly as {@link AppendWriter#append(Object...)} does: it completes
 * once the batch's changelog is durable and lookups see it, or fails with the batch's typed {@link
 * RpcException}, and then none of that batch's writes were applied.
 *
 * <p>Thread safe; writes of one thread to one key keep their order.
 */
public final class UpsertWriter implements AutoCloseable {
  private final Table table;
  private final AppendWriter writer;
  private final int[] keyPositions;
  private final int columns;

  UpsertWriter(Table table, WriterOptions options, List<String> targetColumns, boolean preparing) {
    this.table = requireNonNull(table, "table is null");
    if (!TableKind.PRIMARY_KEY.is(table.kind())) {
      throw new IllegalStateException(
          "Table " + table.path() + " is a " + table.kind() + " table, not a primary-key table");
    }
    Schema schema = table.rowSchema(table.schemaId());
    this.columns = schema.getFields().size();
    this.keyPositions = positions(table, schema, table.primaryKey());
    int[] targets = positions(table, schema, targetColumns);
    this.writer = new AppendWriter(table, options, schema, targets, preparing);
  }

  static int[] positions(Table table, Schema schema, List<String> names) {
    return names.stream()
        .mapToInt(
            name -> {
              int index = LogScanner.indexOf(schema, name);
              if (index < 0) {
                throw new IllegalArgumentException(
                    "Table " + table.path() + " has no column " + name);
              }
              return index;
            })
        .toArray();
  }

  /**
   * The writer id its batches carry.
   *
   * @return the writer id, random per writer
   */
  public long writerId() {
    return writer.writerId();
  }

  /**
   * Inserts or updates a row, given with a value per column of the current schema (see {@link
   * AppendWriter#append(Object...)} for the value types). For a partial-update writer, values of
   * columns outside its target columns are ignored.
   *
   * @param row a value per column of the current schema, in order
   * @return the acknowledgement of the write's batch
   * @throws IllegalArgumentException for a row that does not fit the schema; nothing is written
   * @throws RpcException when an earlier batch failed: the writer then takes no more writes
   */
  public CompletableFuture<WriteAck> upsert(Object... row) {
    return writer.add(row, PutKvRequest.UPSERT);
  }

  /**
   * Deletes the row of a primary key, given as the key columns' values in schema order.
   *
   * @param key the primary key's values, in key-column order
   * @return the acknowledgement of the delete's batch
   * @throws IllegalArgumentException for a key of the wrong arity
   * @throws RpcException when an earlier batch failed: the writer then takes no more writes
   */
  public CompletableFuture<WriteAck> delete(Object... key) {
    return writer.add(Lookuper.fullRow(table, key, keyPositions, columns), PutKvRequest.DELETE);
  }

  /**
   * A preparing writer's ({@link Table#newPreparingUpsertWriter}) batches of every write since the
   * last call; see {@link AppendWriter#prepare()}.
   *
   * @return the framed batches, in the order to send them per bucket
   */
  public List<PreparedBatch> prepare() {
    return writer.prepare();
  }

  /** Sends every pending write and waits until all are acknowledged. */
  public void flush() {
    writer.flush();
  }

  /**
   * Flushes, then releases the writer's threads and memory.
   *
   * @throws RpcException when a batch failed
   */
  @Override
  public void close() {
    writer.close();
  }
}
