package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Table;
import io.lakestream.client.UpsertWriter;
import io.lakestream.trino.StreamErrors;
import io.trino.spi.Page;
import io.trino.spi.connector.ConnectorPageSink;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one task's pages of an {@code INSERT} or {@code CREATE TABLE AS} to a streaming table's
 * stream: appends to a log table, upserts to a primary-key table. {@link #finish()} returns only
 * once the server acknowledged every row (durable); a refused row or a lost connection fails the
 * statement with the server's error. The stream has no transactions: rows acknowledged before a
 * failure stay written. Not thread safe (one driver writes it).
 */
final class StreamPageSink implements ConnectorPageSink {
  private final StreamWriteHandle handle;
  private final StreamRows rows;
  private final AppendWriter appends;
  private final UpsertWriter upserts;
  private long rowsWritten;

  StreamPageSink(Table table, StreamWriteHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
    try {
      if (handle.primaryKey()) {
        rows = new StreamRows(table.rowSchema(table.schemaId()), handle.columns());
        upserts = table.newUpsertWriter();
        appends = null;
      } else {
        rows = new StreamRows(table.arrowSchema(table.schemaId()), handle.columns());
        appends = table.newAppendWriter();
        upserts = null;
      }
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot open a writer of " + handle.qualifiedName(), e);
    }
  }

  @Override
  public CompletableFuture<?> appendPage(Page page) {
    try {
      for (int position = 0; position < page.getPositionCount(); position++) {
        Object[] row = rows.row(page, position);
        if (upserts != null) {
          upserts.upsert(row);
        } else {
          appends.append(row);
        }
      }
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot write to " + handle.qualifiedName(), e);
    }
    rowsWritten += page.getPositionCount();
    return NOT_BLOCKED;
  }

  @Override
  public CompletableFuture<Collection<Slice>> finish() {
    try {
      if (upserts != null) {
        upserts.close();
      } else {
        appends.close();
      }
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino(
          "Cannot write " + rowsWritten + " rows to " + handle.qualifiedName(), e);
    }
    return CompletableFuture.completedFuture(List.of());
  }

  @Override
  public void abort() {
    StreamMergeSink.closeQuietly(appends != null ? appends : upserts);
  }
}
