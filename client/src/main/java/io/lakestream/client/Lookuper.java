package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.Messages.LookupResponse;
import io.lakestream.client.rpc.RowValues;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Point lookups by primary key and prefix lookups by bucket key in a primary-key table. Lookups are
 * asynchronous and batched per bucket: a lookup goes out at once when fewer than {@value
 * #MAX_IN_FLIGHT} requests are in flight for its bucket, and lookups made while that many are in
 * flight go out together in the next request, so a single caller waits one round trip and many
 * callers share requests while the server answers one request as the next is being gathered. A
 * lookup sees every write acknowledged before it was made.
 *
 * <p>Rows come back as plain values (see {@link io.lakestream.client.arrow.ArrowValues}) in the
 * schema the server answered with; thread safe.
 */
public final class Lookuper {
  private final Table table;
  private final Schema schema;
  private final int columns;
  private final int[] keyPositions;
  private final int[] bucketKeyPositions;
  private final int[] bucketKeyColumns;
  private final List<ArrowType> keyTypes = new ArrayList<>();
  private final List<String> keyNames;
  private final Partitioning partitioning;
  private final Map<TableBucket, Batch> batches = new HashMap<>();

  /** Requests of point lookups one bucket has in flight at most. */
  static final int MAX_IN_FLIGHT = 2;

  /** Keys waiting for a bucket's next request, and how many requests are in flight. */
  private static final class Batch {
    private int inFlight;
    private List<Object[]> keys = new ArrayList<>();
    private List<CompletableFuture<Object[]>> results = new ArrayList<>();
  }

  Lookuper(Table table) {
    this.table = requireNonNull(table, "table is null");
    if (!TableKind.PRIMARY_KEY.is(table.kind())) {
      throw new IllegalStateException(
          "Table " + table.path() + " is a " + table.kind() + " table, not a primary-key table");
    }
    this.schema = table.rowSchema(table.schemaId());
    this.columns = schema.getFields().size();
    this.keyNames = table.primaryKey();
    this.keyPositions = UpsertWriter.positions(table, schema, keyNames);
    for (int position : keyPositions) {
      keyTypes.add(schema.getFields().get(position).getType());
    }
    this.bucketKeyPositions = UpsertWriter.positions(table, schema, table.bucketKey());
    this.bucketKeyColumns = bucketKeyPositions;
    this.partitioning = table.partitioning();
  }

  /** A row of the schema's arity with the given values at the given positions, nulls elsewhere. */
  static Object[] fullRow(Table table, Object[] values, int[] positions, int columns) {
    if (values.length != positions.length) {
      throw new IllegalArgumentException(
          "Table "
              + table.path()
              + " needs "
              + positions.length
              + " key values, got "
              + values.length);
    }
    Object[] row = new Object[columns];
    for (int i = 0; i < positions.length; i++) {
      row[positions[i]] = values[i];
    }
    return row;
  }

  private TableBucket bucketOf(Object[] row) {
    String partition =
        partitioning.isPartitioned() ? partitioning.partitionOf(row) : Partitioning.UNPARTITIONED;
    return new TableBucket(
        partition, AppendWriter.bucketOf(row, bucketKeyColumns, table.buckets()));
  }

  /**
   * The row of a primary key (the key columns' values in schema order), or null when there is none.
   *
   * @param key the primary-key columns' values in schema order, as {@link
   *     AppendWriter#append(Object...)} takes values
   * @return completes with the row's values in the table's schema order, or with null when no row
   *     has the key; completes exceptionally with an {@link io.lakestream.client.rpc.RpcException}
   *     when the request fails, or an {@link IllegalArgumentException} when a key value does not
   *     fit its column's type (then with the other keys of the same request)
   * @throws IllegalArgumentException for a key of the wrong arity
   */
  public CompletableFuture<Object[]> lookup(Object... key) {
    Object[] row = fullRow(table, key, keyPositions, columns);
    TableBucket bucket = bucketOf(row);
    CompletableFuture<Object[]> result = new CompletableFuture<>();
    boolean send;
    synchronized (batches) {
      Batch batch = batches.computeIfAbsent(bucket, ignored -> new Batch());
      batch.keys.add(key);
      batch.results.add(result);
      send = batch.inFlight < MAX_IN_FLIGHT;
      if (send) {
        batch.inFlight++;
      }
    }
    if (send) {
      sendNext(bucket);
    }
    return result;
  }

  /** Sends the bucket's waiting keys in a request that counts as in flight already. */
  private void sendNext(TableBucket bucket) {
    List<Object[]> keys;
    List<CompletableFuture<Object[]>> results;
    synchronized (batches) {
      Batch batch = batches.get(bucket);
      if (batch.keys.isEmpty()) {
        batch.inFlight--;
        return;
      }
      keys = batch.keys;
      results = batch.results;
      batch.keys = new ArrayList<>();
      batch.results = new ArrayList<>();
    }
    ByteBuffer encoded;
    try {
      encoded = RowValues.encode(keys, keyTypes, keyNames);
    } catch (RuntimeException e) {
      results.forEach(result -> result.completeExceptionally(e));
      sendNext(bucket);
      return;
    }
    table
        .lookup(bucket.partition(), bucket.bucket(), encoded, false)
        .whenComplete(
            (response, error) -> {
              // The keys gathered meanwhile go out first, so that the server answers them while
              // this response's rows are decoded and their callers woken.
              sendNext(bucket);
              if (error != null) {
                results.forEach(result -> result.completeExceptionally(error));
              } else {
                complete(response, results);
              }
            });
  }

  private void complete(LookupResponse response, List<CompletableFuture<Object[]>> results) {
    List<Object[]> rows;
    try {
      rows = RowValues.decode(response.rows(), types(response.schemaId()));
    } catch (RuntimeException e) {
      results.forEach(result -> result.completeExceptionally(e));
      return;
    }
    int next = 0;
    for (int i = 0; i < results.size(); i++) {
      results.get(i).complete(response.found()[i] == 1 ? rows.get(next++) : null);
    }
  }

  private List<ArrowType> types(int schemaId) {
    List<ArrowType> types = new ArrayList<>();
    for (Field field : table.rowSchema(schemaId).getFields()) {
      types.add(field.getType());
    }
    return types;
  }

  /**
   * The rows whose bucket key starts with these values (the bucket-key columns' values, in
   * bucket-key order), in key order.
   *
   * @param bucketKey the bucket-key columns' values, in bucket-key order
   * @return completes with the rows' values in the table's schema order (an empty list when none
   *     matches), or exceptionally with an {@link io.lakestream.client.rpc.RpcException} when the
   *     request fails
   * @throws IllegalArgumentException for a bucket key of the wrong arity, or a value that does not
   *     fit its column's type
   */
  public CompletableFuture<List<Object[]>> prefixLookup(Object... bucketKey) {
    Object[] row = fullRow(table, bucketKey, bucketKeyPositions, columns);
    TableBucket bucket = bucketOf(row);
    List<ArrowType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int position : bucketKeyPositions) {
      types.add(schema.getFields().get(position).getType());
      names.add(schema.getFields().get(position).getName());
    }
    ByteBuffer encoded = RowValues.encode(List.<Object[]>of(bucketKey), types, names);
    return table
        .lookup(bucket.partition(), bucket.bucket(), encoded, true)
        .thenApply(response -> RowValues.decode(response.rows(), types(response.schemaId())));
  }
}
