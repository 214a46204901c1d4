package io.lakestream.trino;

import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.trino.write.RowKeyColumn;
import io.lakestream.trino.write.StreamMergeHandle;
import io.lakestream.trino.write.StreamTableProperties;
import io.lakestream.trino.write.StreamWriteHandle;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.plugin.iceberg.TableType;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorOutputMetadata;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableLayout;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableProperties;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.ConnectorWritableTableHandle;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.TableStatisticsMetadata;
import io.trino.spi.type.TypeManager;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * The Iceberg connector's metadata, with what differs for streaming tables: their rows are the lake
 * snapshot plus the log tail, so nothing may be answered from the lake's metadata alone
 * (aggregates, guaranteed limits, the lake's bucketing as the table's partitioning), and their
 * writes go through the stream, never straight into lake files ({@code io.lakestream.trino.write}):
 * {@code CREATE TABLE} with a streaming {@code kind} creates the table through the stream RPC,
 * {@code INSERT} appends or upserts, and {@code DELETE}/{@code UPDATE}/{@code MERGE} on a
 * primary-key table delete and upsert by key (row id {@link RowKeyColumn}). Plain Iceberg tables
 * behave exactly as in the Iceberg connector.
 */
final class LakestreamMetadata extends ClassLoaderSafeConnectorMetadata {
  private final StreamAccess streams;
  private final TypeManager typeManager;

  LakestreamMetadata(
      ConnectorMetadata lake,
      ClassLoader classLoader,
      StreamAccess streams,
      TypeManager typeManager) {
    super(lake, classLoader);
    this.streams = requireNonNull(streams, "streams is null");
    this.typeManager = requireNonNull(typeManager, "typeManager is null");
  }

  private static boolean isStream(ConnectorTableHandle table) {
    return table instanceof IcebergTableHandle handle && StreamAccess.isStreamTable(handle);
  }

  @Override
  public ConnectorTableHandle getTableHandle(
      ConnectorSession session,
      SchemaTableName tableName,
      Optional<ConnectorTableVersion> startVersion,
      Optional<ConnectorTableVersion> endVersion) {
    ConnectorTableHandle handle =
        super.getTableHandle(session, tableName, startVersion, endVersion);
    if ((startVersion.isPresent() || endVersion.isPresent()) && isStream(handle)) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Table "
              + tableName
              + " is a Lakestream streaming table, whose reads include the log: FOR VERSION or"
              + " TIMESTAMP AS OF reads only a lake snapshot, so query it through an Iceberg"
              + " catalog on the same server");
    }
    return handle;
  }

  @Override
  public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(
      ConnectorSession session, ConnectorTableHandle table, long limit) {
    Optional<LimitApplicationResult<ConnectorTableHandle>> result =
        super.applyLimit(session, table, limit);
    if (!isStream(table)) {
      return result;
    }
    // The limit caps each split (lake and tail alike), never the whole read.
    return result.map(applied -> new LimitApplicationResult<>(applied.getHandle(), false, false));
  }

  @Override
  public Optional<AggregationApplicationResult<ConnectorTableHandle>> applyAggregation(
      ConnectorSession session,
      ConnectorTableHandle table,
      List<AggregateFunction> aggregates,
      Map<String, ColumnHandle> assignments,
      List<List<ColumnHandle>> groupingSets) {
    if (isStream(table)) {
      return Optional.empty();
    }
    return super.applyAggregation(session, table, aggregates, assignments, groupingSets);
  }

  @Override
  public Optional<ConnectorTableHandle> applyDelete(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table)) {
      return Optional.empty();
    }
    return super.applyDelete(session, table);
  }

  @Override
  public ConnectorTableProperties getTableProperties(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table)) {
      // Log-tail splits belong to no lake partition or bucket.
      return new ConnectorTableProperties();
    }
    return super.getTableProperties(session, table);
  }

  @Override
  public ConnectorTableMetadata getTableMetadata(
      ConnectorSession session, ConnectorTableHandle table) {
    ConnectorTableMetadata metadata = super.getTableMetadata(session, table);
    if (!(table instanceof IcebergTableHandle handle) || handle.getTableType() != TableType.DATA) {
      return metadata;
    }
    Map<String, Object> properties = new LinkedHashMap<>(metadata.getProperties());
    if (isStream(handle)) {
      properties.putAll(
          StreamTableProperties.of(
              handle.getStorageProperties(),
              RowKeyColumn.keyColumns(handle, typeManager).stream()
                  .map(IcebergColumnHandle::getName)
                  .toList()));
    } else {
      // Shown so that SHOW CREATE TABLE's statement creates a plain table again, not a log table.
      properties.put(StreamTableProperties.KIND, StreamTableProperties.ICEBERG);
    }
    return new ConnectorTableMetadata(
        metadata.getTable(),
        metadata.getColumns(),
        properties,
        metadata.getComment(),
        metadata.getCheckConstraints());
  }

  @Override
  public void createTable(
      ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode) {
    Optional<TableKind> kind = StreamTableProperties.kind(tableMetadata.getProperties());
    if (kind.isEmpty()) {
      super.createTable(session, StreamTableProperties.forIceberg(tableMetadata), saveMode);
      return;
    }
    createStream(tableMetadata, kind.get(), saveMode);
  }

  /** Creates a streaming table through the stream RPC, which validates its whole definition. */
  private TableDescriptor createStream(
      ConnectorTableMetadata table, TableKind kind, SaveMode saveMode) {
    if (saveMode == SaveMode.REPLACE) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "CREATE OR REPLACE of streaming table " + table.getTable() + " is not supported");
    }
    TableDescriptor descriptor = StreamTableProperties.descriptor(table, kind);
    TablePath path = streams.path(table.getTable());
    try {
      streams.connection().admin().createTable(path, descriptor);
    } catch (RpcException e) {
      if (e.error() == ErrorCode.ALREADY_EXISTS) {
        if (saveMode == SaveMode.IGNORE) {
          return descriptor;
        }
        throw new TrinoException(
            ALREADY_EXISTS, "Table " + table.getTable() + " already exists", e);
      }
      if (e.error() == ErrorCode.UNKNOWN_NAMESPACE) {
        throw new TrinoException(
            SCHEMA_NOT_FOUND, "Schema " + table.getTable().getSchemaName() + " not found", e);
      }
      throw StreamErrors.toTrino("Cannot create streaming table " + table.getTable(), e);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot create streaming table " + table.getTable(), e);
    }
    return descriptor;
  }

  @Override
  public Optional<ConnectorTableLayout> getNewTableLayout(
      ConnectorSession session, ConnectorTableMetadata tableMetadata) {
    if (StreamTableProperties.kind(tableMetadata.getProperties()).isPresent()) {
      return Optional.empty();
    }
    return super.getNewTableLayout(session, StreamTableProperties.forIceberg(tableMetadata));
  }

  @Override
  public TableStatisticsMetadata getStatisticsCollectionMetadataForWrite(
      ConnectorSession session, ConnectorTableMetadata tableMetadata, boolean tableReplace) {
    if (StreamTableProperties.kind(tableMetadata.getProperties()).isPresent()) {
      return TableStatisticsMetadata.empty();
    }
    return super.getStatisticsCollectionMetadataForWrite(
        session, StreamTableProperties.forIceberg(tableMetadata), tableReplace);
  }

  @Override
  public ConnectorOutputTableHandle beginCreateTable(
      ConnectorSession session,
      ConnectorTableMetadata tableMetadata,
      Optional<ConnectorTableLayout> layout,
      RetryMode retryMode,
      boolean replace) {
    Optional<TableKind> kind = StreamTableProperties.kind(tableMetadata.getProperties());
    if (kind.isEmpty()) {
      return super.beginCreateTable(
          session, StreamTableProperties.forIceberg(tableMetadata), layout, retryMode, replace);
    }
    checkNoRetries(retryMode, tableMetadata.getTable());
    TableDescriptor descriptor =
        createStream(tableMetadata, kind.get(), replace ? SaveMode.REPLACE : SaveMode.FAIL);
    Schema schema = SchemaParser.fromJson(descriptor.schemaJson());
    return new StreamWriteHandle(
        tableMetadata.getTable().getSchemaName(),
        tableMetadata.getTable().getTableName(),
        kind.get() == TableKind.PRIMARY_KEY,
        IcebergUtil.getTopLevelColumns(schema, typeManager));
  }

  @Override
  public Optional<ConnectorOutputMetadata> finishCreateTable(
      ConnectorSession session,
      ConnectorOutputTableHandle tableHandle,
      Collection<Slice> fragments,
      Collection<ComputedStatistics> computedStatistics) {
    if (tableHandle instanceof StreamWriteHandle) {
      return Optional.empty(); // every row was acknowledged when its page sink finished
    }
    return super.finishCreateTable(session, tableHandle, fragments, computedStatistics);
  }

  @Override
  public Optional<ConnectorTableLayout> getInsertLayout(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table)) {
      return Optional.empty();
    }
    return super.getInsertLayout(session, table);
  }

  @Override
  public ConnectorInsertTableHandle beginInsert(
      ConnectorSession session,
      ConnectorTableHandle table,
      List<ColumnHandle> columns,
      RetryMode retryMode) {
    if (!isStream(table)) {
      return super.beginInsert(session, table, columns, retryMode);
    }
    IcebergTableHandle handle = (IcebergTableHandle) table;
    checkNoRetries(retryMode, handle.getSchemaTableName());
    return new StreamWriteHandle(
        handle.getSchemaName(),
        handle.getTableName(),
        isPrimaryKey(handle),
        columns.stream().map(IcebergColumnHandle.class::cast).toList());
  }

  @Override
  public Optional<ConnectorOutputMetadata> finishInsert(
      ConnectorSession session,
      ConnectorInsertTableHandle insertHandle,
      List<ConnectorTableHandle> sourceTableHandles,
      Collection<Slice> fragments,
      Collection<ComputedStatistics> computedStatistics) {
    if (insertHandle instanceof StreamWriteHandle) {
      return Optional.empty(); // every row was acknowledged when its page sink finished
    }
    return super.finishInsert(
        session, insertHandle, sourceTableHandles, fragments, computedStatistics);
  }

  @Override
  public RowChangeParadigm getRowChangeParadigm(
      ConnectorSession session, ConnectorTableHandle table) {
    if (!isStream(table)) {
      return super.getRowChangeParadigm(session, table);
    }
    requirePrimaryKey((IcebergTableHandle) table);
    return RowChangeParadigm.DELETE_ROW_AND_INSERT_ROW;
  }

  @Override
  public ColumnHandle getMergeRowIdColumnHandle(
      ConnectorSession session, ConnectorTableHandle table) {
    if (!isStream(table)) {
      return super.getMergeRowIdColumnHandle(session, table);
    }
    IcebergTableHandle handle = (IcebergTableHandle) table;
    requirePrimaryKey(handle);
    return RowKeyColumn.of(RowKeyColumn.keyColumns(handle, typeManager));
  }

  @Override
  public Optional<ConnectorPartitioningHandle> getUpdateLayout(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table)) {
      return Optional.empty();
    }
    return super.getUpdateLayout(session, table);
  }

  @Override
  public ConnectorMergeTableHandle beginMerge(
      ConnectorSession session,
      ConnectorTableHandle table,
      Map<Integer, Collection<ColumnHandle>> updateCaseColumns,
      RetryMode retryMode) {
    if (!isStream(table)) {
      return super.beginMerge(session, table, updateCaseColumns, retryMode);
    }
    IcebergTableHandle handle = (IcebergTableHandle) table;
    requirePrimaryKey(handle);
    checkNoRetries(retryMode, handle.getSchemaTableName());
    List<IcebergColumnHandle> keys = RowKeyColumn.keyColumns(handle, typeManager);
    for (Collection<ColumnHandle> updated : updateCaseColumns.values()) {
      for (ColumnHandle column : updated) {
        if (keys.contains(column)) {
          throw new TrinoException(
              NOT_SUPPORTED,
              "Cannot update primary-key column "
                  + ((IcebergColumnHandle) column).getName()
                  + " of "
                  + handle.getSchemaTableName()
                  + ": delete the row and insert it with the new key");
        }
      }
    }
    Schema schema = SchemaParser.fromJson(handle.getTableSchemaJson());
    return new StreamMergeHandle(
        handle,
        new StreamWriteHandle(
            handle.getSchemaName(),
            handle.getTableName(),
            true,
            IcebergUtil.getTopLevelColumns(schema, typeManager)),
        keys);
  }

  @Override
  public void finishMerge(
      ConnectorSession session,
      ConnectorMergeTableHandle mergeTableHandle,
      List<ConnectorTableHandle> sourceTableHandles,
      Collection<Slice> fragments,
      Collection<ComputedStatistics> computedStatistics) {
    if (mergeTableHandle instanceof StreamMergeHandle) {
      return; // every change was acknowledged when its merge sink finished
    }
    super.finishMerge(session, mergeTableHandle, sourceTableHandles, fragments, computedStatistics);
  }

  @Override
  public Optional<ConnectorTableCredentials> getTableCredentials(
      ConnectorSession session, ConnectorWritableTableHandle handle) {
    if (handle instanceof StreamWriteHandle) {
      return Optional.empty(); // the stream RPC has the catalog's own credentials
    }
    return super.getTableCredentials(session, handle);
  }

  private static boolean isPrimaryKey(IcebergTableHandle handle) {
    return StreamAccess.kind(handle.getStorageProperties())
        .filter(kind -> kind == TableKind.PRIMARY_KEY)
        .isPresent();
  }

  private static void requirePrimaryKey(IcebergTableHandle handle) {
    if (!isPrimaryKey(handle)) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Table "
              + handle.getSchemaTableName()
              + " is a log table, whose rows are append-only: DELETE, UPDATE and MERGE work only"
              + " on primary-key tables");
    }
  }

  /** The stream is written as the statement runs, so a retried task would write its rows twice. */
  private static void checkNoRetries(RetryMode retryMode, SchemaTableName table) {
    if (retryMode != RetryMode.NO_RETRIES) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Writing to streaming table "
              + table
              + " with retry_policy "
              + retryMode
              + " is not supported: a retried task would write its rows twice");
    }
  }
}
