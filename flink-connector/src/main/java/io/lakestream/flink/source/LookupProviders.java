package io.lakestream.flink.source;

import io.lakestream.client.Connection;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.flink.ServerAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.connector.source.LookupTableSource.LookupRuntimeProvider;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Plans a lookup join's reads of a streaming table: which client lookup its join keys allow (the
 * whole primary key: point lookups; the bucket key when it is a proper prefix of the primary key:
 * prefix lookups), sync or async, and whether Flink's partial cache sits in front.
 */
final class LookupProviders {
  private LookupProviders() {}

  /**
   * The lookup of a table, checked against the server's view of its keys.
   *
   * @param columns the produced columns (after projection); the join keys index them
   * @param joinKeys the join's key columns, as Flink's lookup context gives them
   * @throws ValidationException for a log table, a key set it cannot look up, or bad options
   */
  static LookupRuntimeProvider of(
      ServerAddress server,
      TablePath path,
      String summary,
      List<Column> columns,
      int[][] joinKeys,
      ReadableConfig options) {
    List<String> keyNames = new ArrayList<>();
    List<LogicalType> keyTypes = new ArrayList<>();
    for (int[] key : joinKeys) {
      Column column = columns.get(key[0]);
      if (key.length != 1) {
        throw new ValidationException(
            "Cannot look up rows of " + summary + " by a nested field of " + column.getName());
      }
      keyNames.add(column.getName());
      keyTypes.add(column.getDataType().getLogicalType());
    }
    List<String> primaryKey;
    List<String> bucketKey;
    boolean partitioned;
    List<String> tableColumns = new ArrayList<>();
    try (Connection connection = server.connect()) {
      io.lakestream.client.Table table = connection.table(path);
      if (!TableKind.PRIMARY_KEY.is(table.kind())) {
        throw logTable(summary);
      }
      primaryKey = table.primaryKey();
      bucketKey = table.bucketKey();
      partitioned = table.isPartitioned();
      for (Field field : table.rowSchema(table.schemaId()).getFields()) {
        tableColumns.add(field.getName());
      }
    }
    boolean prefixAllowed =
        !partitioned
            && bucketKey.size() < primaryKey.size()
            && new HashSet<>(primaryKey).containsAll(bucketKey);
    List<String> clientKey;
    if (new HashSet<>(keyNames).equals(new HashSet<>(primaryKey))) {
      clientKey = primaryKey;
    } else if (prefixAllowed && new HashSet<>(keyNames).equals(new HashSet<>(bucketKey))) {
      clientKey = bucketKey;
    } else {
      throw new ValidationException(
          "Cannot look up rows of "
              + summary
              + " by "
              + keyNames
              + ": a lookup join on it must join on its primary key "
              + primaryKey
              + (prefixAllowed
                  ? " or on its bucket key " + bucketKey + " (a prefix lookup)"
                  : " (all of it)"));
    }
    int[] keyOrder = new int[clientKey.size()];
    for (int i = 0; i < keyOrder.length; i++) {
      keyOrder[i] = keyNames.indexOf(clientKey.get(i));
    }
    int[] positions = new int[columns.size()];
    List<LogicalType> types = new ArrayList<>();
    for (int i = 0; i < positions.length; i++) {
      String name = columns.get(i).getName();
      positions[i] = tableColumns.indexOf(name);
      if (positions[i] < 0) {
        throw new ValidationException(
            "Cannot look up rows of " + summary + ": it has no column " + name);
      }
      types.add(columns.get(i).getDataType().getLogicalType());
    }
    TableLookup lookup =
        new TableLookup(
            server,
            path,
            summary,
            clientKey == bucketKey,
            keyTypes,
            keyOrder,
            new LookupRows(positions, types),
            options.get(LookupOptions.MAX_RETRIES));
    DefaultLookupCache cache = cache(summary, options);
    if (options.get(LookupJoinOptions.ASYNC)) {
      LakestreamAsyncLookupFunction function = new LakestreamAsyncLookupFunction(lookup);
      return cache == null
          ? AsyncLookupFunctionProvider.of(function)
          : PartialCachingAsyncLookupProvider.of(function, cache);
    }
    LakestreamLookupFunction function = new LakestreamLookupFunction(lookup);
    return cache == null
        ? LookupFunctionProvider.of(function)
        : PartialCachingLookupProvider.of(function, cache);
  }

  static ValidationException logTable(String summary) {
    return new ValidationException(
        "Cannot look up rows of "
            + summary
            + ": a lookup join needs a primary-key table, and it is a log table, which has no key"
            + " (a 'connector'='lakestream' table of a primary-key table must declare its PRIMARY"
            + " KEY)");
  }

  private static DefaultLookupCache cache(String summary, ReadableConfig options) {
    switch (options.get(LookupOptions.CACHE_TYPE)) {
      case NONE:
        return null;
      case PARTIAL:
        try {
          return DefaultLookupCache.fromConfig(options);
        } catch (IllegalArgumentException | NullPointerException e) {
          throw new ValidationException(
              "Bad partial lookup cache options for " + summary + ": " + e.getMessage(), e);
        }
      default:
        throw new ValidationException(
            "Option '"
                + LookupOptions.CACHE_TYPE.key()
                + "' of "
                + summary
                + " must be NONE or PARTIAL, not "
                + options.get(LookupOptions.CACHE_TYPE));
    }
  }
}
