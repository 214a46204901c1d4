package io.lakestream.trino;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableProperties;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.ConnectorViewDefinition;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Iceberg connector's metadata, with what differs for streaming tables: their rows are the lake
 * snapshot plus the log tail, so nothing may be answered from the lake's metadata alone
 * (aggregates, guaranteed limits, the lake's bucketing as the table's partitioning), and their
 * writes go through the stream, never straight into lake files. Plain Iceberg tables behave exactly
 * as in the Iceberg connector.
 */
final class LakestreamMetadata extends ClassLoaderSafeConnectorMetadata {
  LakestreamMetadata(ConnectorMetadata lake, ClassLoader classLoader) {
    super(lake, classLoader);
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

  private static TrinoException writesNotSupported(ConnectorTableHandle table) {
    return new TrinoException(
        NOT_SUPPORTED,
        "Writing to streaming table "
            + ((IcebergTableHandle) table).getSchemaTableName()
            + " through Trino is not supported yet: write through the stream client");
  }
}
