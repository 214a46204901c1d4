package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Lookuper;
import io.lakestream.client.TablePath;
import io.lakestream.flink.RowValues;
import io.lakestream.flink.ServerAddress;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * What a lookup function of a primary-key table needs on its tasks: the table, how a join's key row
 * becomes the client's key (the primary key's values in schema order for a point lookup, the bucket
 * key's in bucket-key order for a prefix lookup), and how the rows found become the produced rows.
 * Serializable; a lookup through it is as thread safe as the {@link Lookuper} it is given.
 */
final class TableLookup implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ServerAddress server;
  // TablePath is not serializable.
  private final String[] namespace;
  private final String name;
  private final String summary;
  private final boolean prefix;
  private final RowValues keyValues;
  private final int[] keyOrder;
  private final LookupRows rows;
  private final int maxRetries;

  /**
   * @param prefix whether the key is the bucket key, a proper prefix of the primary key (a prefix
   *     lookup), rather than the whole primary key
   * @param keyTypes the Flink types of the join's key row
   * @param keyOrder for each value of the client's key, its field in the join's key row
   * @param rows the produced rows of the rows found
   * @param maxRetries how often a failed lookup is tried again
   */
  TableLookup(
      ServerAddress server,
      TablePath path,
      String summary,
      boolean prefix,
      List<LogicalType> keyTypes,
      int[] keyOrder,
      LookupRows rows,
      int maxRetries) {
    this.server = requireNonNull(server, "server is null");
    requireNonNull(path, "path is null");
    this.namespace = path.namespace().toArray(String[]::new);
    this.name = path.name();
    this.summary = requireNonNull(summary, "summary is null");
    this.prefix = prefix;
    this.keyValues = new RowValues(keyTypes.toArray(LogicalType[]::new));
    this.keyOrder = keyOrder.clone();
    this.rows = requireNonNull(rows, "rows is null");
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries is negative: " + maxRetries);
    }
    this.maxRetries = maxRetries;
  }

  ServerAddress server() {
    return server;
  }

  TablePath path() {
    return new TablePath(server.warehouse(), List.of(namespace), name);
  }

  String summary() {
    return summary;
  }

  int maxRetries() {
    return maxRetries;
  }

  /**
   * The produced rows of a join's key row: none when nothing matches or a key value is null (no row
   * has a null key), at most one for a point lookup.
   */
  CompletableFuture<Collection<RowData>> lookup(Lookuper lookuper, RowData keyRow) {
    Object[] key = keyValues.of(keyRow, keyOrder);
    for (Object value : key) {
      if (value == null) {
        return CompletableFuture.completedFuture(List.of());
      }
    }
    if (prefix) {
      return lookuper
          .prefixLookup(key)
          .thenApply(
              found -> {
                List<RowData> produced = new ArrayList<>(found.size());
                for (Object[] row : found) {
                  produced.add(rows.of(row));
                }
                return produced;
              });
    }
    return lookuper
        .lookup(key)
        .thenApply(row -> row == null ? List.<RowData>of() : List.<RowData>of(rows.of(row)));
  }
}
