package io.lakestream.trino;

import io.trino.plugin.iceberg.IcebergConnectorFactory;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import java.util.Map;
import java.util.Optional;

/**
 * Creates a catalog's connector: the embedded Iceberg connector from the catalog file's non-{@code
 * lakestream.*} properties plus the REST endpoint and credentials ({@link LakestreamConfig}), and
 * the stream access beside it.
 */
public final class LakestreamConnectorFactory implements ConnectorFactory {
  /** The value of {@code connector.name} in a catalog file. */
  public static final String NAME = "lakestream";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public Connector create(
      String catalogName, Map<String, String> config, ConnectorContext context) {
    LakestreamConfig lakestream = LakestreamConfig.parse(config);
    Connector lake =
        IcebergConnectorFactory.createConnector(
            catalogName, lakestream.icebergProperties(), context, binder -> {}, Optional.empty());
    return new LakestreamConnector(lake, new StreamAccess(lakestream), context.getTypeManager());
  }
}
