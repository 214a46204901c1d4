package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.flink.source.LakestreamDynamicSource;
import io.lakestream.flink.source.LookupJoinOptions;
import io.lakestream.flink.source.ScanOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Sources and sinks of the tables of one {@link LakestreamCatalog} (its {@code getFactory()}): the
 * catalog's server address travels with the factory, never through the table's options, so a token
 * never shows in {@code SHOW CREATE TABLE}.
 */
final class LakestreamTableFactory implements DynamicTableSinkFactory, DynamicTableSourceFactory {
  private final ServerAddress server;

  LakestreamTableFactory(ServerAddress server) {
    this.server = requireNonNull(server, "server is null");
  }

  @Override
  public String factoryIdentifier() {
    return LakestreamCatalogFactory.IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of();
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    ObjectIdentifier identifier = context.getObjectIdentifier();
    Map<String, String> options = context.getCatalogTable().getOptions();
    String kind = options.get(LakestreamProperties.KIND);
    boolean primaryKey = TableKind.PRIMARY_KEY.is(kind);
    if (!primaryKey && !TableKind.LOG.is(kind)) {
      throw new ValidationException(
          "Cannot read "
              + identifier.asSummaryString()
              + " through the Lakestream catalog: it is a plain Iceberg table, not a Lakestream"
              + " streaming table (read it with Iceberg's Flink connector)");
    }
    return source(
        server,
        server.path(identifier.getDatabaseName(), identifier.getObjectName()),
        identifier.asSummaryString(),
        primaryKey,
        context,
        options);
  }

  /** The source of a streaming table with the given table options (and the query's hints). */
  static DynamicTableSource source(
      ServerAddress server,
      io.lakestream.client.TablePath path,
      String summary,
      boolean primaryKey,
      Context context,
      Map<String, String> options) {
    Set<String> known =
        SCAN_OPTIONS.stream()
            .map(ConfigOption::key)
            .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
    LOOKUP_OPTIONS.forEach(option -> known.add(option.key()));
    for (String key : options.keySet()) {
      if ((key.startsWith("scan.") || key.startsWith("lookup.")) && !known.contains(key)) {
        throw new ValidationException(
            "Unknown option '"
                + key
                + "' for "
                + summary
                + "; the read and lookup options are "
                + new java.util.TreeSet<>(known));
      }
    }
    boolean batchMode =
        context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH;
    return new LakestreamDynamicSource(
        server,
        path,
        summary,
        primaryKey,
        context.getCatalogTable().getResolvedSchema(),
        Configuration.fromMap(options),
        batchMode);
  }

  /** The read options a streaming table takes. */
  static final Set<ConfigOption<?>> SCAN_OPTIONS =
      Set.of(
          ScanOptions.STARTUP_MODE,
          ScanOptions.STARTUP_TIMESTAMP,
          ScanOptions.STARTUP_OFFSETS,
          ScanOptions.BOUNDED,
          ScanOptions.PARTITION_DISCOVERY_INTERVAL,
          ScanOptions.CHANGELOG_MODE);

  /** The lookup-join options a primary-key table takes. */
  static final Set<ConfigOption<?>> LOOKUP_OPTIONS = LookupJoinOptions.ALL;

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    ObjectIdentifier identifier = context.getObjectIdentifier();
    String kind = context.getCatalogTable().getOptions().get(LakestreamProperties.KIND);
    boolean primaryKey = TableKind.PRIMARY_KEY.is(kind);
    if (!primaryKey && !TableKind.LOG.is(kind)) {
      throw new ValidationException(
          "Cannot write to "
              + identifier.asSummaryString()
              + ": it is a plain Iceberg table, not a Lakestream streaming table (write it with"
              + " Iceberg's Flink connector)");
    }
    return sink(
        server,
        identifier.getDatabaseName(),
        identifier.getObjectName(),
        primaryKey,
        context.getCatalogTable().getResolvedSchema(),
        identifier.asSummaryString(),
        deliveryGuarantee(context));
  }

  /**
   * The sink's delivery guarantee: the table's {@code sink.delivery-guarantee} option, which a
   * catalog table gets from an {@code OPTIONS} hint.
   */
  private static DeliveryGuarantee deliveryGuarantee(Context context) {
    try {
      return Configuration.fromMap(context.getCatalogTable().getOptions())
          .get(LakestreamOptions.SINK_DELIVERY_GUARANTEE);
    } catch (IllegalArgumentException e) {
      throw new ValidationException(
          "Cannot write to "
              + context.getObjectIdentifier().asSummaryString()
              + ": option '"
              + LakestreamOptions.SINK_DELIVERY_GUARANTEE.key()
              + "' must be at-least-once or exactly-once",
          e);
    }
  }

  /**
   * The sink of a streaming table whose columns are {@code schema}'s, in the table's order.
   *
   * @param primaryKey whether it is a primary-key table (upserts and deletes by {@code schema}'s
   *     primary key) rather than a log table (appends)
   */
  static DynamicTableSink sink(
      ServerAddress server,
      String database,
      String table,
      boolean primaryKey,
      ResolvedSchema schema,
      String summary,
      DeliveryGuarantee guarantee) {
    if (guarantee == DeliveryGuarantee.NONE) {
      throw new ValidationException(
          "Cannot write to "
              + summary
              + ": option '"
              + LakestreamOptions.SINK_DELIVERY_GUARANTEE.key()
              + "' must be at-least-once or exactly-once, not none");
    }
    List<Column> columns = schema.getColumns();
    LogicalType[] types = new LogicalType[columns.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = columns.get(i).getDataType().getLogicalType();
    }
    int[] keyColumns = primaryKey ? schema.getPrimaryKeyIndexes() : new int[0];
    Arrays.sort(keyColumns);
    LakestreamSink sink =
        new LakestreamSink(
            server,
            database,
            table,
            primaryKey,
            schema.getColumnNames(),
            new RowValues(types),
            keyColumns);
    return new LakestreamDynamicSink(
        guarantee == DeliveryGuarantee.EXACTLY_ONCE ? new LakestreamExactlyOnceSink(sink) : sink,
        primaryKey,
        summary);
  }
}
