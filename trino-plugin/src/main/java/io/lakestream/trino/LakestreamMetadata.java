package io.lakestream.trino;

import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static io.trino.spi.type.BigintType.BIGINT;
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
import io.trino.plugin.base.classloader.ClassLoaderSafeSystemTable;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.plugin.iceberg.TableType;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ColumnPosition;
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
import io.trino.spi.connector.ConnectorTableSchema;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.ConnectorViewDefinition;
import io.trino.spi.connector.ConnectorWritableTableHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.connector.SampleApplicationResult;
import io.trino.spi.connector.SampleType;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortItem;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableScanRedirectApplicationResult;
import io.trino.spi.connector.TopNApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Variable;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.statistics.TableStatisticsMetadata;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * The Iceberg connector's metadata, with what differs for streaming tables: their rows are the lake
 * snapshot plus the log tail, so nothing may be answered from the lake's metadata alone (guaranteed
 * limits, the lake's bucketing as the table's partitioning); a log table's {@code count(*)} is
 * answered from the lake snapshot's record count plus the log ranges ({@link ExactCountHandle},
 * this connector's own handle, which the Iceberg connector never sees); {@code "t$offsets"} shows
 * how far each bucket is tiered ({@link OffsetsTable}); and their writes go through the stream,
 * never straight into lake files ({@code io.lakestream.trino.write}): {@code CREATE TABLE} with a
 * streaming {@code kind} creates the table through the stream RPC, {@code INSERT} appends or
 * upserts, and {@code DELETE}/{@code UPDATE}/{@code MERGE} on a primary-key table delete and upsert
 * by key (row id {@link RowKeyColumn}). Plain Iceberg tables behave exactly as in the Iceberg
 * connector.
 */
final class LakestreamMetadata extends ClassLoaderSafeConnectorMetadata {
  private static final ColumnMetadata COUNT_COLUMN =
      new ColumnMetadata(ExactCountHandle.COLUMN.name(), BIGINT);

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
    ConnectorTableHandle handle;
    try {
      handle = super.getTableHandle(session, tableName, startVersion, endVersion);
    } catch (RuntimeException e) {
      throw catalogFailure("Cannot load table " + tableName, e);
    }
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
  public Optional<ConnectorViewDefinition> getView(
      ConnectorSession session, SchemaTableName viewName) {
    try {
      return super.getView(session, viewName);
    } catch (RuntimeException e) {
      // Trino resolves a name as a view first: a catalog it cannot reach fails here.
      throw catalogFailure("Cannot look up " + viewName, e);
    }
  }

  /**
   * The Iceberg connector's failure as the connector's own error when the REST client's exception
   * under it says what went wrong (the server unreachable, the token refused), which the Iceberg
   * connector's message ("Failed to load view") does not.
   */
  private static RuntimeException catalogFailure(String what, RuntimeException failure) {
    return StreamErrors.restFailure(failure)
        .<RuntimeException>map(
            cause -> StreamErrors.toTrino(what + " from the Lakestream catalog", cause))
        .orElse(failure);
  }

  @Override
  public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(
      ConnectorSession session, ConnectorTableHandle table, long limit) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
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
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    if (isStream(table)) {
      return exactCount((IcebergTableHandle) table, aggregates, groupingSets)
          .map(
              count ->
                  new AggregationApplicationResult<>(
                      count,
                      List.of(new Variable(ExactCountHandle.COLUMN.name(), BIGINT)),
                      List.of(
                          new Assignment(
                              ExactCountHandle.COLUMN.name(), ExactCountHandle.COLUMN, BIGINT)),
                      Map.of(),
                      false));
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
  public void truncateTable(ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table)) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Table "
              + ((IcebergTableHandle) table).getSchemaTableName()
              + " is a streaming table: TRUNCATE would empty its lake files but not its log;"
              + " drop and re-create it instead");
    }
    super.truncateTable(session, table);
  }

  @Override
  public void addColumn(
      ConnectorSession session,
      ConnectorTableHandle table,
      ColumnMetadata column,
      ColumnPosition position) {
    if (isStream(table)) {
      StreamTableProperties.checkSupported(
          ((IcebergTableHandle) table).getSchemaTableName(), column);
    }
    super.addColumn(session, table, column, position);
  }

  @Override
  public void dropColumn(
      ConnectorSession session, ConnectorTableHandle table, ColumnHandle column) {
    refuseColumnChange(table, "DROP COLUMN");
    super.dropColumn(session, table, column);
  }

  @Override
  public void renameColumn(
      ConnectorSession session, ConnectorTableHandle table, ColumnHandle source, String target) {
    refuseColumnChange(table, "RENAME COLUMN");
    super.renameColumn(session, table, source, target);
  }

  @Override
  public void setColumnType(
      ConnectorSession session, ConnectorTableHandle table, ColumnHandle column, Type type) {
    refuseColumnChange(table, "SET DATA TYPE");
    super.setColumnType(session, table, column, type);
  }

  /**
   * The log's batches keep the schema they were written with and are read by column name: a renamed
   * column would lose its logged values, a dropped column's name added again would bring its old
   * values back, and a changed type would not match the logged values. Only ADD COLUMN is safe.
   */
  private static void refuseColumnChange(ConnectorTableHandle table, String change) {
    if (isStream(table)) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Table "
              + ((IcebergTableHandle) table).getSchemaTableName()
              + " is a streaming table, whose log is read by column name: "
              + change
              + " is not supported (ADD COLUMN is)");
    }
  }

  @Override
  public ConnectorTableProperties getTableProperties(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table) || table instanceof ExactCountHandle) {
      // Log-tail splits belong to no lake partition or bucket.
      return new ConnectorTableProperties();
    }
    return super.getTableProperties(session, table);
  }

  @Override
  public ConnectorTableMetadata getTableMetadata(
      ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle count) {
      return new ConnectorTableMetadata(count.schemaTableName(), List.of(COUNT_COLUMN));
    }
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

  /**
   * {@code "t$offsets"} of a streaming table is {@link OffsetsTable}; every other metadata table
   * ({@code $snapshots}, {@code $files}, ...) is the Iceberg connector's, for streaming and plain
   * tables alike.
   */
  @Override
  public Optional<SystemTable> getSystemTable(ConnectorSession session, SchemaTableName tableName) {
    String name = tableName.getTableName();
    if (!name.endsWith(OffsetsTable.SUFFIX) || name.length() == OffsetsTable.SUFFIX.length()) {
      return super.getSystemTable(session, tableName);
    }
    SchemaTableName base =
        new SchemaTableName(
            tableName.getSchemaName(),
            name.substring(0, name.length() - OffsetsTable.SUFFIX.length()));
    ConnectorTableHandle handle =
        super.getTableHandle(session, base, Optional.empty(), Optional.empty());
    if (!isStream(handle)) {
      return Optional.empty();
    }
    return Optional.of(
        new ClassLoaderSafeSystemTable(
            new OffsetsTable(streams, tableName, streams.path(base)), getClass().getClassLoader()));
  }

  /**
   * The handle answering {@code count(*)} of a log table from metadata, when that is exact: no
   * filter or limit on the table, and a lake snapshot without delete files (its summary's {@code
   * total-records} is then its row count). Primary-key tables never qualify: their log ranges hold
   * changes, not rows.
   */
  private Optional<ExactCountHandle> exactCount(
      IcebergTableHandle handle,
      List<AggregateFunction> aggregates,
      List<List<ColumnHandle>> groupingSets) {
    if (StreamAccess.kind(handle.getStorageProperties()).orElse(null) != TableKind.LOG
        || !handle.getEnforcedPredicate().isAll()
        || !handle.getUnenforcedPredicate().isAll()
        || handle.getLimit().isPresent()
        || !groupingSets.equals(List.of(List.of()))
        || aggregates.size() != 1) {
      return Optional.empty();
    }
    AggregateFunction aggregate = aggregates.getFirst();
    if (!aggregate.getFunctionName().equals("count")
        || !aggregate.getArguments().isEmpty()
        || aggregate.isDistinct()
        || aggregate.getFilter().isPresent()
        || !aggregate.getSortItems().isEmpty()
        || !aggregate.getOutputType().equals(BIGINT)) {
      return Optional.empty();
    }
    long lakeRecords = 0;
    if (handle.getSnapshotId().isPresent()) {
      Snapshot snapshot =
          streams
              .loadLakeTable(streams.path(handle.getSchemaTableName()))
              .snapshot(handle.getSnapshotId().getAsLong());
      Map<String, String> summary = snapshot == null ? null : snapshot.summary();
      if (summary == null
          || !summary.containsKey(SnapshotSummary.TOTAL_RECORDS_PROP)
          || !"0".equals(summary.get(SnapshotSummary.TOTAL_POS_DELETES_PROP))
          || !"0".equals(summary.get(SnapshotSummary.TOTAL_EQ_DELETES_PROP))) {
        return Optional.empty();
      }
      lakeRecords = Long.parseLong(summary.get(SnapshotSummary.TOTAL_RECORDS_PROP));
    }
    return Optional.of(
        new ExactCountHandle(
            handle.getSchemaName(), handle.getTableName(), handle.getSnapshotId(), lakeRecords));
  }

  // An ExactCountHandle is this connector's own: the Iceberg connector must never see it.

  @Override
  public SchemaTableName getTableName(ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle count) {
      return count.schemaTableName();
    }
    return super.getTableName(session, table);
  }

  @Override
  public ConnectorTableSchema getTableSchema(ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle count) {
      return new ConnectorTableSchema(
          count.schemaTableName(), List.of(COUNT_COLUMN.getColumnSchema()));
    }
    return super.getTableSchema(session, table);
  }

  @Override
  public Map<String, ColumnHandle> getColumnHandles(
      ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle) {
      return Map.of(ExactCountHandle.COLUMN.name(), ExactCountHandle.COLUMN);
    }
    return super.getColumnHandles(session, table);
  }

  @Override
  public ColumnMetadata getColumnMetadata(
      ConnectorSession session, ConnectorTableHandle table, ColumnHandle column) {
    if (table instanceof ExactCountHandle) {
      return COUNT_COLUMN;
    }
    return super.getColumnMetadata(session, table, column);
  }

  @Override
  public Optional<Object> getInfo(ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.getInfo(session, table);
  }

  @Override
  public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle) {
      return TableStatistics.builder().setRowCount(Estimate.of(1)).build();
    }
    return super.getTableStatistics(session, table);
  }

  @Override
  public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(
      ConnectorSession session, ConnectorTableHandle table, Constraint constraint) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.applyFilter(session, table, constraint);
  }

  @Override
  public Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(
      ConnectorSession session,
      ConnectorTableHandle table,
      List<ConnectorExpression> projections,
      Map<String, ColumnHandle> assignments) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.applyProjection(session, table, projections, assignments);
  }

  @Override
  public Optional<TopNApplicationResult<ConnectorTableHandle>> applyTopN(
      ConnectorSession session,
      ConnectorTableHandle table,
      long topNCount,
      List<SortItem> sortItems,
      Map<String, ColumnHandle> assignments) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.applyTopN(session, table, topNCount, sortItems, assignments);
  }

  @Override
  public Optional<SampleApplicationResult<ConnectorTableHandle>> applySample(
      ConnectorSession session, ConnectorTableHandle table, SampleType sampleType, double ratio) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.applySample(session, table, sampleType, ratio);
  }

  @Override
  public Optional<TableScanRedirectApplicationResult> applyTableScanRedirect(
      ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.applyTableScanRedirect(session, table);
  }

  @Override
  public void validateScan(ConnectorSession session, ConnectorTableHandle table) {
    if (!(table instanceof ExactCountHandle)) {
      super.validateScan(session, table);
    }
  }

  @Override
  public Optional<ConnectorTableCredentials> getTableCredentials(
      ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle) {
      return Optional.empty();
    }
    return super.getTableCredentials(session, table);
  }

  @Override
  public boolean allowSplittingReadIntoMultipleSubQueries(
      ConnectorSession session, ConnectorTableHandle table) {
    return !(table instanceof ExactCountHandle)
        && super.allowSplittingReadIntoMultipleSubQueries(session, table);
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
