package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;

/**
 * An asynchronous lookup of a primary-key table: keys go out as they come, and the client batches
 * the keys of a bucket that arrive while its earlier requests are in flight. A failed lookup is
 * tried again up to {@code lookup.max-retries} times. Results complete on the client's threads.
 */
public final class LakestreamAsyncLookupFunction extends AsyncLookupFunction {
  private static final long serialVersionUID = 1L;

  private final TableLookup lookup;
  private transient Connection connection;
  private transient Lookuper lookuper;

  LakestreamAsyncLookupFunction(TableLookup lookup) {
    this.lookup = requireNonNull(lookup, "lookup is null");
  }

  @Override
  public void open(FunctionContext context) {
    connection = lookup.server().connect();
    lookuper = connection.table(lookup.path()).newLookuper();
  }

  @Override
  public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
    return attempt(keyRow, 0);
  }

  private CompletableFuture<Collection<RowData>> attempt(RowData keyRow, int attempt) {
    CompletableFuture<Collection<RowData>> result;
    try {
      result = lookup.lookup(lookuper, keyRow);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result
        .handle(
            (rows, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(rows);
              }
              if (attempt < lookup.maxRetries()) {
                return attempt(keyRow, attempt + 1);
              }
              Throwable cause = error instanceof CompletionException ? error.getCause() : error;
              return CompletableFuture.<Collection<RowData>>failedFuture(
                  new java.io.IOException(
                      "Lookup of " + keyRow + " in " + lookup.summary() + " failed", cause));
            })
        .thenCompose(next -> next);
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
