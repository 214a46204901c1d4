package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/**
 * A synchronous lookup of a primary-key table: each key waits for its answer (one round trip to the
 * bucket's server), and a failed lookup is tried again up to {@code lookup.max-retries} times.
 */
public final class LakestreamLookupFunction extends LookupFunction {
  private static final long serialVersionUID = 1L;

  private final TableLookup lookup;
  private transient Connection connection;
  private transient Lookuper lookuper;

  LakestreamLookupFunction(TableLookup lookup) {
    this.lookup = requireNonNull(lookup, "lookup is null");
  }

  @Override
  public void open(FunctionContext context) {
    connection = lookup.server().connect();
    lookuper = connection.table(lookup.path()).newLookuper();
  }

  @Override
  public Collection<RowData> lookup(RowData keyRow) throws IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        return lookup.lookup(lookuper, keyRow).get();
      } catch (ExecutionException e) {
        if (attempt >= lookup.maxRetries()) {
          throw new IOException(
              "Lookup of " + keyRow + " in " + lookup.summary() + " failed", e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted looking up " + keyRow + " in " + lookup.summary(), e);
      }
    }
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
