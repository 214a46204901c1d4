package io.lakestream.trino;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableKind;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.base.classloader.ClassLoaderSafeSystemTable;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableProperties;
import io.trino.spi.connector.ConnectorTableSchema;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SampleApplicationResult;
import io.trino.spi.connector.SampleType;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortItem;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableScanRedirectApplicationResult;
import io.trino.spi.connector.TopNApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Variable;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * The Iceberg connector's metadata, with what differs for streaming tables: their rows are the lake
 * snapshot plus the log tail, so nothing may be answered from the lake's metadata alone (guaranteed
 * limits, the lake's bucketing as the table's partitioning); a log table's {@code count(*)} is
 * answered from the lake snapshot's record count plus the log ranges ({@link ExactCountHandle},
 * this connector's own handle, which the Iceberg connector never sees); {@code "t$offsets"} shows
 * how far each bucket is tiered ({@link OffsetsTable}); and their writes go through the stream,
 * never straight into lake files. Plain Iceberg tables behave exactly as in the Iceberg connector.
 */
final class LakestreamMetadata extends ClassLoaderSafeConnectorMetadata {
  private static final ColumnMetadata COUNT_COLUMN =
      new ColumnMetadata(ExactCountHandle.COLUMN.name(), BIGINT);

  private final StreamAccess streams;

  LakestreamMetadata(ConnectorMetadata lake, ClassLoader classLoader, StreamAccess streams) {
    super(lake, classLoader);
    this.streams = requireNonNull(streams, "streams is null");
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
  public ConnectorTableProperties getTableProperties(
      ConnectorSession session, ConnectorTableHandle table) {
    if (isStream(table) || table instanceof ExactCountHandle) {
      // Log-tail splits belong to no lake partition or bucket.
      return new ConnectorTableProperties();
    }
    return super.getTableProperties(session, table);
  }

  @Override
  public ConnectorInsertTableHandle beginInsert(
      ConnectorSession session,
      ConnectorTableHandle table,
      List<ColumnHandle> columns,
      RetryMode retryMode) {
    if (isStream(table)) {
      throw writesNotSupported(table);
    }
    return super.beginInsert(session, table, columns, retryMode);
  }

  @Override
  public ConnectorMergeTableHandle beginMerge(
      ConnectorSession session,
      ConnectorTableHandle table,
      Map<Integer, Collection<ColumnHandle>> updateCaseColumns,
      RetryMode retryMode) {
    if (isStream(table)) {
      throw writesNotSupported(table);
    }
    return super.beginMerge(session, table, updateCaseColumns, retryMode);
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
  public ConnectorTableMetadata getTableMetadata(
      ConnectorSession session, ConnectorTableHandle table) {
    if (table instanceof ExactCountHandle count) {
      return new ConnectorTableMetadata(count.schemaTableName(), List.of(COUNT_COLUMN));
    }
    return super.getTableMetadata(session, table);
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

  private static TrinoException writesNotSupported(ConnectorTableHandle table) {
    return new TrinoException(
        NOT_SUPPORTED,
        "Writing to streaming table "
            + ((IcebergTableHandle) table).getSchemaTableName()
            + " through Trino is not supported yet: write through the stream client");
  }
}
