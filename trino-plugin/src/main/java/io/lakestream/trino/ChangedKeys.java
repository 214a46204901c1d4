package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.lakestream.client.ChangeType;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LogRangeReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.vector.FieldVector;

/**
 * The keys a primary-key table's log ranges change (put or delete), which a union read drops from
 * the lake part. Read once per worker and plan (the ranges name the plan), however many lake splits
 * of the plan the worker runs; kept for a few plans at a time.
 *
 * <p>Keys are lists of the client's Java values ({@link TrinoValues}), byte arrays wrapped in
 * {@link ByteBuffer}s so that they compare by content. Thread safe.
 */
final class ChangedKeys {
  private record Plan(TablePath table, List<LogRange> ranges) {}

  private final Cache<Plan, Set<List<Object>>> plans =
      CacheBuilder.newBuilder().maximumSize(8).build();

  /** The keys changed in {@code ranges} of {@code stream}'s log. */
  Set<List<Object>> of(
      io.lakestream.client.Table stream,
      List<String> keyColumns,
      List<LogRange> ranges,
      Duration timeout) {
    requireNonNull(stream, "stream is null");
    try {
      return plans.get(
          new Plan(stream.path(), ranges), () -> read(stream, keyColumns, ranges, timeout));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new UncheckedIOException(
          "Cannot read the changed keys of " + stream.path(), new IOException(e.getCause()));
    }
  }

  private static Set<List<Object>> read(
      io.lakestream.client.Table stream,
      List<String> keyColumns,
      List<LogRange> ranges,
      Duration timeout)
      throws IOException {
    Set<List<Object>> keys = ConcurrentHashMap.newKeySet();
    LogRangeReader.read(
        stream.path(),
        stream.newScanner(keyColumns, BatchFilter.MATCH_ALL),
        ranges,
        timeout,
        Long.MAX_VALUE,
        new HashMap<>(),
        (range, batch, first, end) -> {
          FieldVector[] vectors = new FieldVector[keyColumns.size()];
          for (int i = 0; i < vectors.length; i++) {
            vectors[i] = batch.root().getVector(keyColumns.get(i));
          }
          for (int row = first; row < end; row++) {
            if (batch.changeType(row) == ChangeType.UPDATE_BEFORE) {
              continue;
            }
            Object[] key = new Object[vectors.length];
            for (int i = 0; i < vectors.length; i++) {
              key[i] = keyValue(ArrowValues.get(vectors[i], row));
            }
            keys.add(List.of(key));
          }
        });
    return Set.copyOf(keys);
  }

  /** A key column's value as keys hold it. */
  static Object keyValue(Object value) {
    return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
  }
}
