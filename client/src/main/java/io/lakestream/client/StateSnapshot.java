package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.Messages.ScanKvRequest;
import io.lakestream.client.rpc.Messages.ScanKvResponse;
import io.lakestream.client.rpc.RowValues;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Every row of one bucket of a primary-key table as of one moment, in key order, fetched page by
 * page from a snapshot the server holds: the rows are exactly the fold of the bucket's changelog
 * below {@link #offset()}, so a reader that then reads the changelog from that offset misses and
 * repeats nothing. The server drops a snapshot left a minute without a page.
 *
 * <p>{@link #hasNext()} fetches the next page when the current one is used up, so it may throw
 * {@link io.lakestream.client.rpc.RpcException} (for example when the server dropped the snapshot
 * after a minute without a page). Rows are plain values in the table's schema order (see {@link
 * io.lakestream.client.arrow.ArrowValues}).
 *
 * <p>Not thread safe; close it when done early.
 */
public final class StateSnapshot implements Iterator<Object[]>, AutoCloseable {
  private static final int PAGE_ROWS = 10_000;

  private final Table table;
  private final TableBucket bucket;
  private final ArrayDeque<Object[]> page = new ArrayDeque<>();
  private long scanId;
  private long offset;
  private boolean done;

  StateSnapshot(Table table, TableBucket bucket) {
    this.table = requireNonNull(table, "table is null");
    this.bucket = requireNonNull(bucket, "bucket is null");
    fetch();
  }

  /**
   * The log offset the rows are consistent to.
   *
   * @return the changelog offset below which the rows fold every change
   */
  public long offset() {
    return offset;
  }

  private void fetch() {
    ScanKvResponse response =
        ScanKvResponse.decode(
            table
                .connection()
                .call(
                    ApiKey.SCAN_KV,
                    new ScanKvRequest(
                            table.id(), bucket.partition(), bucket.bucket(), scanId, PAGE_ROWS)
                        .encode()));
    scanId = response.scanId();
    offset = response.offset();
    done = response.done();
    List<ArrowType> types = new ArrayList<>();
    for (Field field : table.rowSchema(response.schemaId()).getFields()) {
      types.add(field.getType());
    }
    page.addAll(RowValues.decode(response.rows(), types));
  }

  @Override
  public boolean hasNext() {
    while (page.isEmpty() && !done) {
      fetch();
    }
    return !page.isEmpty();
  }

  @Override
  public Object[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.poll();
  }

  /** Stops reading; the server's snapshot expires on its own. */
  @Override
  public void close() {
    page.clear();
    done = true;
  }
}
