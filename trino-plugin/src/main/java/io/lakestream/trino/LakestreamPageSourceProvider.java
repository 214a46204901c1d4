package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.trino.tail.LogTailPageSource;
import io.lakestream.trino.tail.LogTailSplit;
import io.lakestream.trino.write.RowKeyColumn;
import io.lakestream.trino.write.RowKeyPageSource;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.FixedPageSource;
import io.trino.spi.connector.MemoryContext;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * Page sources by split: {@link LogTailSplit}s read the log ({@link LogTailPageSource}); lake
 * splits go to the Iceberg connector's page source (Trino's Parquet reader), through {@link
 * ChangedKeysFilter} for a primary-key table.
 */
final class LakestreamPageSourceProvider implements ConnectorPageSourceProvider {
  private final ConnectorPageSourceProvider lake;
  private final StreamAccess streams;
  private final ChangedKeys changedKeys;
  private final TypeManager typeManager;

  LakestreamPageSourceProvider(
      ConnectorPageSourceProvider lake,
      StreamAccess streams,
      ChangedKeys changedKeys,
      TypeManager typeManager) {
    this.lake = requireNonNull(lake, "lake is null");
    this.streams = requireNonNull(streams, "streams is null");
    this.changedKeys = requireNonNull(changedKeys, "changedKeys is null");
    this.typeManager = requireNonNull(typeManager, "typeManager is null");
  }

  @Override
  public ConnectorPageSource createPageSource(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorSplit split,
      ConnectorTableHandle table,
      Optional<ConnectorTableCredentials> credentials,
      List<ColumnHandle> columns,
      DynamicFilter dynamicFilter) {
    return createPageSource(
        transaction,
        session,
        split,
        table,
        credentials,
        columns,
        dynamicFilter,
        MemoryContext.NO_LIMIT);
  }

  @Override
  public ConnectorPageSource createPageSource(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorSplit split,
      ConnectorTableHandle table,
      Optional<ConnectorTableCredentials> credentials,
      List<ColumnHandle> columns,
      DynamicFilter dynamicFilter,
      MemoryContext memoryContext) {
    if (split instanceof ExactCountHandle.Split count) {
      BlockBuilder block = BIGINT.createBlockBuilder(null, 1);
      BIGINT.writeLong(block, count.count());
      return new FixedPageSource(List.of(new Page(1, block.build())));
    }
    int rowKey = rowKeyIndex(columns);
    if (rowKey >= 0) {
      return withRowKey(
          transaction,
          session,
          split,
          table,
          credentials,
          columns,
          rowKey,
          dynamicFilter,
          memoryContext);
    }
    if (split instanceof LogTailSplit tail) {
      IcebergTableHandle handle = (IcebergTableHandle) table;
      io.lakestream.client.Table stream = stream(handle);
      List<IcebergColumnHandle> icebergColumns =
          columns.stream().map(IcebergColumnHandle.class::cast).toList();
      return new LogTailPageSource(
          stream,
          tail,
          icebergColumns,
          handle.getEnforcedPredicate(),
          handle
              .getEnforcedPredicate()
              .intersect(handle.getUnenforcedPredicate())
              .intersect(
                  dynamicFilter
                      .getCurrentPredicate()
                      .transformKeys(IcebergColumnHandle.class::cast)),
          tail.primaryKey() ? keyColumns(handle) : List.of(),
          handle.getLimit(),
          streams.logReadTimeout());
    }
    if (split instanceof PrimaryKeyLakeSplit primaryKey) {
      IcebergTableHandle handle = (IcebergTableHandle) table;
      List<IcebergColumnHandle> keys = keyColumns(handle);
      io.lakestream.client.Table stream = stream(handle);
      Set<List<Object>> changed;
      try {
        changed =
            changedKeys.of(
                stream,
                keys.stream().map(IcebergColumnHandle::getName).toList(),
                primaryKey.changes(),
                streams.logReadTimeout());
      } catch (RuntimeException e) {
        throw StreamErrors.toTrino("Cannot read the changed keys of " + stream.path(), e);
      }
      List<ColumnHandle> read = new ArrayList<>(columns);
      int[] keyChannels = new int[keys.size()];
      List<Type> keyTypes = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        int channel = read.indexOf(keys.get(i));
        if (channel < 0) {
          read.add(keys.get(i));
          channel = read.size() - 1;
        }
        keyChannels[i] = channel;
        keyTypes.add(keys.get(i).getType());
      }
      ConnectorPageSource source =
          lake.createPageSource(
              transaction,
              session,
              primaryKey.lake(),
              table,
              credentials,
              read,
              dynamicFilter,
              memoryContext);
      return new ChangedKeysFilter(source, keyChannels, keyTypes, changed, columns.size());
    }
    return lake.createPageSource(
        transaction, session, split, table, credentials, columns, dynamicFilter, memoryContext);
  }

  private static int rowKeyIndex(List<ColumnHandle> columns) {
    for (int i = 0; i < columns.size(); i++) {
      if (RowKeyColumn.is(columns.get(i))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A DELETE, UPDATE or MERGE's read of a primary-key table: the key columns read in place of the
   * row key, which is built from them ({@link RowKeyPageSource}).
   */
  private ConnectorPageSource withRowKey(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorSplit split,
      ConnectorTableHandle table,
      Optional<ConnectorTableCredentials> credentials,
      List<ColumnHandle> columns,
      int rowKey,
      DynamicFilter dynamicFilter,
      MemoryContext memoryContext) {
    List<ColumnHandle> read = new ArrayList<>(columns);
    read.remove(rowKey);
    int[] outputs = new int[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      outputs[i] = i == rowKey ? RowKeyPageSource.ROW_KEY : read.indexOf(columns.get(i));
    }
    List<IcebergColumnHandle> keys =
        RowKeyColumn.keyColumns((IcebergTableHandle) table, typeManager);
    int[] keyChannels = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      int channel = read.indexOf(keys.get(i));
      if (channel < 0) {
        read.add(keys.get(i));
        channel = read.size() - 1;
      }
      keyChannels[i] = channel;
    }
    return new RowKeyPageSource(
        createPageSource(
            transaction, session, split, table, credentials, read, dynamicFilter, memoryContext),
        outputs,
        keyChannels);
  }

  private io.lakestream.client.Table stream(IcebergTableHandle handle) {
    TablePath path = streams.path(handle.getSchemaTableName());
    try {
      return streams.connection().table(path);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot open the stream of " + path, e);
    }
  }

  /** The primary-key columns, from the identifier fields of the pinned lake schema. */
  private List<IcebergColumnHandle> keyColumns(IcebergTableHandle handle) {
    Schema schema = SchemaParser.fromJson(handle.getTableSchemaJson());
    return schema.identifierFieldIds().stream()
        .sorted()
        .map(id -> IcebergUtil.getColumnHandle(schema.findField(id), typeManager))
        .toList();
  }

  @Override
  public long getMemoryUsage() {
    return lake.getMemoryUsage();
  }
}
