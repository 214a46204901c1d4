package io.lakestream.flink;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Sources and sinks of tables declared outside a Lakestream catalog, {@code CREATE TABLE t (...)
 * WITH ('connector'='lakestream', 'uri'=..., 'rpc-address'=..., 'table'='db.name')}: the server
 * options are the catalog's ({@link LakestreamOptions}) plus the streaming table's name. A declared
 * {@code PRIMARY KEY} makes the sink write upserts and deletes (the table must be a primary-key
 * table), otherwise appends (the table must be a log table). The declared columns must be the
 * table's, in its order; a job whose declaration does not match the table (kind, columns, key)
 * fails when its writers open, naming both. Unknown options fail the statement, naming them.
 */
public final class LakestreamConnectorFactory
    implements DynamicTableSinkFactory, DynamicTableSourceFactory {
  /** The streaming table, {@code database.table}. */
  public static final ConfigOption<String> TABLE =
      ConfigOptions.key("table")
          .stringType()
          .noDefaultValue()
          .withDescription("The Lakestream streaming table, database.table");

  @Override
  public String factoryIdentifier() {
    return LakestreamCatalogFactory.IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(LakestreamOptions.URI, LakestreamOptions.RPC_ADDRESS, TABLE);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    Set<ConfigOption<?>> options =
        new java.util.HashSet<>(
            Set.of(
                LakestreamOptions.TOKEN,
                LakestreamOptions.CREDENTIAL,
                LakestreamOptions.WAREHOUSE,
                LakestreamOptions.SINK_DELIVERY_GUARANTEE));
    options.addAll(LakestreamTableFactory.SCAN_OPTIONS);
    options.addAll(LakestreamTableFactory.LOOKUP_OPTIONS);
    return options;
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validate();
    String name = tableName(helper);
    ServerAddress server = ServerAddress.of(helper.getOptions());
    int dot = name.indexOf('.');
    return LakestreamTableFactory.source(
        server,
        server.path(name.substring(0, dot), name.substring(dot + 1)),
        name,
        context.getCatalogTable().getResolvedSchema().getPrimaryKey().isPresent(),
        context,
        context.getCatalogTable().getOptions());
  }

  private static String tableName(FactoryUtil.TableFactoryHelper helper) {
    String name = helper.getOptions().get(TABLE);
    int dot = name.indexOf('.');
    if (dot <= 0 || dot == name.length() - 1 || name.indexOf('.', dot + 1) >= 0) {
      throw new ValidationException(
          "Option '" + TABLE.key() + "' must be database.table, not " + name);
    }
    return name;
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validate();
    String name = tableName(helper);
    int dot = name.indexOf('.');
    ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
    return LakestreamTableFactory.sink(
        ServerAddress.of(helper.getOptions()),
        name.substring(0, dot),
        name.substring(dot + 1),
        schema.getPrimaryKey().isPresent(),
        schema,
        name,
        helper.getOptions().get(LakestreamOptions.SINK_DELIVERY_GUARANTEE));
  }
}
