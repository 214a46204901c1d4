package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.trino.write.LakestreamPageSinkProvider;
import io.lakestream.trino.write.StreamTableProperties;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorCapabilities;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProviderFactory;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.function.FunctionProvider;
import io.trino.spi.function.table.ConnectorTableFunction;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;
import io.trino.spi.type.TypeManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code lakestream} catalog: Trino's Iceberg connector on the server's REST endpoint for every
 * table (plain Iceberg tables behave exactly as in an {@code iceberg} catalog), with union reads
 * and stream writes for streaming tables layered over it ({@link LakestreamMetadata}, {@link
 * LakestreamSplitManager}, {@link LakestreamPageSourceProvider}).
 */
final class LakestreamConnector implements Connector {
  private final Connector lake;
  private final StreamAccess streams;
  private final ConnectorSplitManager splitManager;
  private final ConnectorPageSourceProviderFactory pageSources;
  private final ConnectorPageSinkProvider pageSinks;
  private final TypeManager typeManager;

  LakestreamConnector(Connector lake, StreamAccess streams, TypeManager typeManager) {
    this.lake = requireNonNull(lake, "lake is null");
    this.streams = requireNonNull(streams, "streams is null");
    this.splitManager = new LakestreamSplitManager(lake.getSplitManager(), streams);
    ConnectorPageSourceProviderFactory lakePageSources = lake.getPageSourceProviderFactory();
    ChangedKeys changedKeys = new ChangedKeys();
    this.pageSources =
        () ->
            new LakestreamPageSourceProvider(
                lakePageSources.createPageSourceProvider(), streams, changedKeys, typeManager);
    this.pageSinks =
        new LakestreamPageSinkProvider(
            lake.getPageSinkProvider(), streams::path, path -> streams.connection().table(path));
    this.typeManager = typeManager;
  }

  @Override
  public ConnectorTransactionHandle beginTransaction(
      IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit) {
    return lake.beginTransaction(isolationLevel, readOnly, autoCommit);
  }

  @Override
  public ConnectorMetadata getMetadata(
      ConnectorSession session, ConnectorTransactionHandle transaction) {
    ConnectorMetadata metadata;
    try {
      metadata = lake.getMetadata(session, transaction);
    } catch (RuntimeException e) {
      // The Iceberg connector reports every failure to open the REST catalog (401, connection
      // refused) as "Cannot obtain metadata"; the Iceberg client's exception below says why.
      throw StreamErrors.restFailure(e)
          .map(
              cause ->
                  StreamErrors.toTrino(
                      "Cannot open the Lakestream catalog at " + streams.catalogUri(), cause))
          .orElseThrow(() -> e);
    }
    return new LakestreamMetadata(metadata, getClass().getClassLoader(), streams, typeManager);
  }

  @Override
  public ConnectorSplitManager getSplitManager() {
    return splitManager;
  }

  @Override
  public ConnectorPageSourceProviderFactory getPageSourceProviderFactory() {
    return pageSources;
  }

  @Override
  public ConnectorPageSinkProvider getPageSinkProvider() {
    return pageSinks;
  }

  @Override
  public ConnectorNodePartitioningProvider getNodePartitioningProvider() {
    return lake.getNodePartitioningProvider();
  }

  @Override
  public Set<SystemTable> getSystemTables() {
    return lake.getSystemTables();
  }

  @Override
  public Optional<FunctionProvider> getFunctionProvider() {
    return lake.getFunctionProvider();
  }

  @Override
  public Set<Procedure> getProcedures() {
    return lake.getProcedures();
  }

  @Override
  public Set<TableProcedureMetadata> getTableProcedures() {
    return lake.getTableProcedures();
  }

  @Override
  public Set<ConnectorTableFunction> getTableFunctions() {
    return lake.getTableFunctions();
  }

  @Override
  public List<PropertyMetadata<?>> getSessionProperties() {
    return lake.getSessionProperties();
  }

  @Override
  public List<PropertyMetadata<?>> getSchemaProperties() {
    return lake.getSchemaProperties();
  }

  @Override
  public List<PropertyMetadata<?>> getAnalyzeProperties() {
    return lake.getAnalyzeProperties();
  }

  @Override
  public List<PropertyMetadata<?>> getTableProperties() {
    List<PropertyMetadata<?>> properties = new ArrayList<>(lake.getTableProperties());
    properties.addAll(StreamTableProperties.properties());
    return properties;
  }

  @Override
  public List<PropertyMetadata<?>> getViewProperties() {
    return lake.getViewProperties();
  }

  @Override
  public List<PropertyMetadata<?>> getMaterializedViewProperties() {
    return lake.getMaterializedViewProperties();
  }

  @Override
  public ConnectorAccessControl getAccessControl() {
    return lake.getAccessControl();
  }

  @Override
  public void commit(ConnectorTransactionHandle transaction) {
    lake.commit(transaction);
  }

  @Override
  public void rollback(ConnectorTransactionHandle transaction) {
    lake.rollback(transaction);
  }

  @Override
  public Set<ConnectorCapabilities> getCapabilities() {
    return lake.getCapabilities();
  }

  @Override
  public void shutdown() {
    try {
      lake.shutdown();
    } finally {
      try {
        streams.close();
      } catch (Exception e) {
        // Shutting down: nothing is left to report to.
      }
    }
  }
}
