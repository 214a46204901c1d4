package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.lakestream.client.Table;
import io.lakestream.client.UpsertWriter;
import io.lakestream.trino.StreamErrors;
import io.lakestream.trino.TrinoValues;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.SqlRow;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.MergePage;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Applies one task's merge pages (Trino's {@code DELETE_ROW_AND_INSERT_ROW} paradigm) to a
 * primary-key table: each deleted row's key ({@link RowKeyColumn}) becomes a delete, each inserted
 * row an upsert. Within a page the deletes go first, so an update (a delete and an insert of the
 * same key, since key columns cannot be updated) leaves the new row. Durable when {@link #finish()}
 * returns, as {@link StreamPageSink}. Not thread safe.
 */
final class StreamMergeSink implements ConnectorMergeSink {
  private final StreamMergeHandle handle;
  private final StreamRows rows;
  private final RowType keyType;
  private final UpsertWriter writer;

  StreamMergeSink(Table table, StreamMergeHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
    this.keyType = (RowType) RowKeyColumn.of(handle.keyColumns()).getType();
    try {
      rows = new StreamRows(table.rowSchema(table.schemaId()), handle.write().columns());
      writer = table.newUpsertWriter();
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot open a writer of " + handle.write().qualifiedName(), e);
    }
  }

  @Override
  public void storeMergedRows(Page page) {
    MergePage merge = MergePage.createDeleteAndInsertPages(page, handle.write().columns().size());
    try {
      merge.getDeletionsPage().ifPresent(this::delete);
      merge
          .getInsertionsPage()
          .ifPresent(
              inserts -> {
                for (int position = 0; position < inserts.getPositionCount(); position++) {
                  writer.upsert(rows.row(inserts, position));
                }
              });
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot write to " + handle.write().qualifiedName(), e);
    }
  }

  private void delete(Page deletes) {
    Block rowKeys = deletes.getBlock(deletes.getChannelCount() - 1);
    List<IcebergColumnHandle> keys = handle.keyColumns();
    for (int position = 0; position < deletes.getPositionCount(); position++) {
      SqlRow row = keyType.getObject(rowKeys, position);
      Object[] key = new Object[keys.size()];
      for (int i = 0; i < key.length; i++) {
        Type type = keys.get(i).getType();
        key[i] =
            StreamRows.value(
                type, TrinoValues.read(type, row.getRawFieldBlock(i), row.getRawIndex()));
      }
      writer.delete(key);
    }
  }

  @Override
  public CompletableFuture<Collection<Slice>> finish() {
    try {
      writer.close();
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot write to " + handle.write().qualifiedName(), e);
    }
    return CompletableFuture.completedFuture(List.of());
  }

  @Override
  public void abort() {
    closeQuietly(writer);
  }

  /** Releases a writer of a failed statement; what it failed with was reported already. */
  static void closeQuietly(AutoCloseable writer) {
    try {
      writer.close();
    } catch (Exception e) {
      // The statement failed already; this is only cleanup.
    }
  }
}
