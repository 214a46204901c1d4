package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.trino.StreamErrors;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaTableName;
import java.util.Optional;
import java.util.function.Function;

/**
 * Page sinks by handle: this package's handles write to a streaming table's stream; the Iceberg
 * connector's handles (plain Iceberg tables) go to its own page sinks.
 */
public final class LakestreamPageSinkProvider implements ConnectorPageSinkProvider {
  private final ConnectorPageSinkProvider lake;
  private final Function<TablePath, Table> streams;
  private final Function<SchemaTableName, TablePath> paths;

  /**
   * @param lake the Iceberg connector's page sinks
   * @param paths the stream path of a table
   * @param streams opens a table's stream (throwing a Trino error when it cannot)
   */
  public LakestreamPageSinkProvider(
      ConnectorPageSinkProvider lake,
      Function<SchemaTableName, TablePath> paths,
      Function<TablePath, Table> streams) {
    this.lake = requireNonNull(lake, "lake is null");
    this.paths = requireNonNull(paths, "paths is null");
    this.streams = requireNonNull(streams, "streams is null");
  }

  private Table open(StreamWriteHandle handle) {
    TablePath path = paths.apply(new SchemaTableName(handle.schema(), handle.table()));
    try {
      return streams.apply(path);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino("Cannot open the stream of " + path, e);
    }
  }

  @Override
  public ConnectorPageSink createPageSink(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorOutputTableHandle output,
      Optional<ConnectorTableCredentials> credentials,
      ConnectorPageSinkId pageSinkId) {
    if (output instanceof StreamWriteHandle handle) {
      return new StreamPageSink(open(handle), handle);
    }
    return lake.createPageSink(transaction, session, output, credentials, pageSinkId);
  }

  @Override
  public ConnectorPageSink createPageSink(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorInsertTableHandle insert,
      Optional<ConnectorTableCredentials> credentials,
      ConnectorPageSinkId pageSinkId) {
    if (insert instanceof StreamWriteHandle handle) {
      return new StreamPageSink(open(handle), handle);
    }
    return lake.createPageSink(transaction, session, insert, credentials, pageSinkId);
  }

  @Override
  public ConnectorPageSink createPageSink(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorTableExecuteHandle execute,
      Optional<ConnectorTableCredentials> credentials,
      ConnectorPageSinkId pageSinkId) {
    return lake.createPageSink(transaction, session, execute, credentials, pageSinkId);
  }

  @Override
  public ConnectorMergeSink createMergeSink(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorMergeTableHandle merge,
      Optional<ConnectorTableCredentials> credentials,
      ConnectorPageSinkId pageSinkId) {
    if (merge instanceof StreamMergeHandle handle) {
      return new StreamMergeSink(open(handle.write()), handle);
    }
    return lake.createMergeSink(transaction, session, merge, credentials, pageSinkId);
  }
}
