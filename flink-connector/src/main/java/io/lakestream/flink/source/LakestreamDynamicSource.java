package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.flink.ServerAddress;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.scan.LogRangePlanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.source.hybrid.HybridSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsPartitionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * Reads a streaming table in Flink SQL. With {@code scan.startup.mode=full} (the default) a read is
 * a union read: the lake table's current snapshot S through Iceberg's own source, then the log of
 * every bucket from S's tiered offsets on, so each row acknowledged before the job started is read
 * exactly once and the rows written later follow. The other modes read only the log. A primary-key
 * table's log is its changelog ({@code +I -U +U -D}); its lake rows come as inserts, and its union
 * read runs at parallelism 1 (a key's lake row and its later changes must stay in order, and lake
 * files are not split by bucket); its log-only reads keep each bucket's changes in order on one
 * reader at any parallelism.
 *
 * <p>The plan (S and its offsets) is made when the job is planned, so a restored job reads the same
 * snapshot and continues from its checkpointed offsets.
 *
 * <p>A primary-key table is also a lookup source (see {@link LookupProviders}): a lookup join reads
 * the rows of its keys from the server as each probe row comes.
 *
 * <p>Watermarks declared on the table ({@code WATERMARK FOR ...}) are generated in the source, per
 * split (a log bucket, a lake file), so one bucket lagging behind holds the watermark back rather
 * than making its rows late. A partitioned table ({@code PARTITIONED BY} over identity partitions)
 * reads only the partitions the query's filter selects: the log splits of other partitions are
 * never opened and the lake scan is restricted to the selected partitions' values. With {@code
 * scan.changelog-mode=upsert} a primary-key table's read drops the {@code -U} rows and says so.
 */
public final class LakestreamDynamicSource
    implements ScanTableSource,
        LookupTableSource,
        SupportsProjectionPushDown,
        SupportsFilterPushDown,
        SupportsWatermarkPushDown,
        SupportsPartitionPushDown {
  private final ServerAddress server;
  private final TablePath path;
  private final String summary;
  private final boolean primaryKey;
  private final ResolvedSchema schema;
  private final ReadableConfig options;
  private final boolean batchMode;
  private int[] projection;
  private List<PushedFilter> filters = List.of();
  // Null: no watermarks (none declared).
  private WatermarkStrategy<RowData> watermarks;
  // Null: every partition.
  private PartitionSelection selection;

  /**
   * @param options the table's options with the query's hints
   * @param batchMode whether the job runs in batch execution mode (reads are then bounded)
   */
  public LakestreamDynamicSource(
      ServerAddress server,
      TablePath path,
      String summary,
      boolean primaryKey,
      ResolvedSchema schema,
      ReadableConfig options,
      boolean batchMode) {
    this.server = requireNonNull(server, "server is null");
    this.path = requireNonNull(path, "path is null");
    this.summary = requireNonNull(summary, "summary is null");
    this.primaryKey = primaryKey;
    this.schema = requireNonNull(schema, "schema is null");
    this.options = requireNonNull(options, "options is null");
    this.batchMode = batchMode;
    validate();
  }

  private void validate() {
    switch (options.get(ScanOptions.STARTUP_MODE)) {
      case TIMESTAMP ->
          ScanOptions.parseTimestamp(
              options
                  .getOptional(ScanOptions.STARTUP_TIMESTAMP)
                  .orElseThrow(() -> missing(ScanOptions.STARTUP_TIMESTAMP.key())));
      case OFFSETS ->
          ScanOptions.parseOffsets(
              options
                  .getOptional(ScanOptions.STARTUP_OFFSETS)
                  .orElseThrow(() -> missing(ScanOptions.STARTUP_OFFSETS.key())));
      default -> {}
    }
  }

  private ValidationException missing(String option) {
    return new ValidationException(
        "Option '"
            + option
            + "' is required with "
            + ScanOptions.STARTUP_MODE.key()
            + "="
            + options.get(ScanOptions.STARTUP_MODE).name().toLowerCase(java.util.Locale.ROOT)
            + " (table "
            + summary
            + ")");
  }

  private boolean bounded() {
    return options.getOptional(ScanOptions.BOUNDED).orElse(batchMode);
  }

  private boolean upsert() {
    return primaryKey
        && options.get(ScanOptions.CHANGELOG_MODE) == ScanOptions.ChangelogMode.UPSERT;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    if (!primaryKey) {
      return ChangelogMode.insertOnly();
    }
    // Upsert: +I +U -D, each -D with the whole row as the log holds it.
    return upsert() ? ChangelogMode.upsert() : ChangelogMode.all();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    // Scans only: a lookup join of a primary-key table works in batch mode.
    if (primaryKey && bounded() && batchMode) {
      throw new ValidationException(
          "Cannot read primary-key table "
              + summary
              + " in batch execution mode: its log is a changelog, which Flink's batch mode does"
              + " not take; read it in streaming mode (scan.bounded=true stops at the end)");
    }
    List<Column> columns = projectedColumns();
    List<String> names = columns.stream().map(Column::getName).toList();
    List<LogicalType> types = columns.stream().map(c -> c.getDataType().getLogicalType()).toList();
    LogReadSpec spec = new LogReadSpec(names, types, filters);
    boolean bounded = bounded();
    java.time.Duration discovery = options.get(ScanOptions.PARTITION_DISCOVERY_INTERVAL);
    if (options.get(ScanOptions.STARTUP_MODE) == ScanOptions.StartupMode.FULL) {
      // The lake reader filters rows by the selected partitions' columns: they must be read.
      List<Column> read = withSelectedPartitionColumns(columns);
      LogReadSpec unionSpec =
          read.size() == columns.size()
              ? spec
              : new LogReadSpec(
                  read.stream().map(Column::getName).toList(),
                  read.stream().map(c -> c.getDataType().getLogicalType()).toList(),
                  filters);
      return unionRuntime(
          unionSource(unionSpec.columns(), unionSpec, bounded, discovery), read, columns, bounded);
    }
    if (watermarks != null || upsert()) {
      return streamRuntime(
          List.of(new Part("log", logOnlySource(spec, bounded, discovery))),
          -1,
          columns,
          columns,
          bounded);
    }
    return SourceProvider.of(logOnlySource(spec, bounded, discovery));
  }

  private LogSource logOnlySource(LogReadSpec spec, boolean bounded, java.time.Duration discovery) {
    Source<RowData, ?, ?> source =
        switch (options.get(ScanOptions.STARTUP_MODE)) {
          case FULL -> throw new IllegalStateException("union reads are planned above");
          case EARLIEST ->
              new LogSource(
                  server, path, spec, new StartPositions.Earliest(), bounded, discovery, selection);
          case LATEST ->
              new LogSource(
                  server, path, spec, new StartPositions.Latest(), bounded, discovery, selection);
          case TIMESTAMP ->
              new LogSource(
                  server,
                  path,
                  spec,
                  new StartPositions.FromTimestamp(
                      ScanOptions.parseTimestamp(options.get(ScanOptions.STARTUP_TIMESTAMP))),
                  bounded,
                  discovery,
                  selection);
          case OFFSETS ->
              new LogSource(
                  server,
                  path,
                  spec,
                  new StartPositions.AtOffsets(
                      ScanOptions.parseOffsets(options.get(ScanOptions.STARTUP_OFFSETS)), false),
                  bounded,
                  discovery,
                  selection);
        };
    return (LogSource) source;
  }

  /**
   * The lake snapshot of now, then the log from its offsets; only the log when the lake table has
   * no snapshot yet.
   */
  private Union unionSource(
      List<String> names, LogReadSpec spec, boolean bounded, java.time.Duration discovery) {
    Map<String, String> properties = server.restCatalogProperties();
    TableIdentifier identifier =
        TableIdentifier.of(Namespace.of(path.namespace().toArray(String[]::new)), path.name());
    Snapshot snapshot;
    TieredOffsets offsets;
    Schema projected;
    List<Expression> lakeFilters =
        new ArrayList<>(filters.stream().map(PushedFilter::toIceberg).toList());
    RESTCatalog rest = new RESTCatalog();
    try (rest;
        Connection connection = server.connect()) {
      rest.initialize("lakestream-planner", properties);
      Table lake = rest.loadTable(identifier);
      TableMetadata metadata = ((HasTableOperations) lake).operations().current();
      snapshot = lake.currentSnapshot();
      offsets =
          snapshot == null
              ? TieredOffsets.NONE
              : TieredOffsets.committedAt(metadata, snapshot.snapshotId());
      // Fails now, naming the bucket, when retention deleted log rows the snapshot lacks.
      LogRangePlanner.plan(
          path, connection.table(path), offsets, LogRangePlanner.WhenGone.FAIL, new HashMap<>());
      List<Types.NestedField> fields = new ArrayList<>();
      for (String name : names) {
        fields.add(lake.schema().findField(name));
      }
      projected = new Schema(fields);
      if (selection != null) {
        lakeFilters.add(partitionFilter(lake));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    LogSource log =
        new LogSource(
            server,
            path,
            spec,
            new StartPositions.AtOffsets(offsets.partitions(), true),
            bounded,
            discovery,
            selection);
    if (snapshot == null) {
      return new Union(null, log);
    }
    Map<String, String> readerProperties = new HashMap<>(properties);
    // The lake files are read, so the catalog's own file IO is needed here.
    readerProperties.remove("io-impl");
    TableLoader loader =
        TableLoader.fromCatalog(
            CatalogLoader.rest(
                "lakestream", new org.apache.hadoop.conf.Configuration(), readerProperties),
            identifier);
    IcebergSource<RowData> lake =
        IcebergSource.forRowData()
            .tableLoader(loader)
            .useSnapshotId(snapshot.snapshotId())
            .project(projected)
            .filters(lakeFilters)
            .streaming(false)
            .flinkConfig(new Configuration())
            .build();
    return new Union(
        new LakeSnapshotSource<>(lake, loader, identifier.toString(), snapshot.snapshotId()), log);
  }

  /** Passes rows through. */
  private static final class Identity implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    @Override
    public RowData map(RowData row) {
      return row;
    }
  }

  /** The two parts of a union read: the lake snapshot (null when there is none) and the log. */
  private record Union(Source<RowData, ?, ?> lake, LogSource log) {}

  /**
   * A union read's runtime. A log table's rows need no order, so its lake and log parts are two
   * sources side by side, each restored from its own checkpointed splits. A primary-key table's
   * lake rows must precede the changes of their keys: one reader reads the lake part, then the log
   * (Flink's {@code HybridSource}).
   */
  private ScanRuntimeProvider unionRuntime(
      Union union, List<Column> read, List<Column> columns, boolean bounded) {
    boolean plain = watermarks == null && !upsert() && read.size() == columns.size();
    if (union.lake() == null) {
      return plain
          ? SourceProvider.of(union.log())
          : streamRuntime(List.of(new Part("log", union.log())), -1, read, columns, bounded);
    }
    if (primaryKey) {
      Source<RowData, ?, ?> hybrid =
          HybridSource.<RowData, org.apache.flink.api.connector.source.SplitEnumerator>builder(
                  union.lake())
              .addSource(union.log())
              .build();
      return plain
          ? SourceProvider.of(hybrid, 1)
          : streamRuntime(List.of(new Part("hybrid", hybrid)), 1, read, columns, bounded);
    }
    return streamRuntime(
        List.of(new Part("lake", union.lake()), new Part("log", union.log())),
        -1,
        read,
        columns,
        bounded);
  }

  /**
   * The columns to read: the query's, then the selected partitions' columns the query does not read
   * (the planner drops those it knows to be constant), which the source drops again.
   */
  private List<Column> withSelectedPartitionColumns(List<Column> columns) {
    if (selection == null) {
      return columns;
    }
    List<Column> read = new ArrayList<>(columns);
    for (Column column : schema.getColumns()) {
      if (column.isPhysical()
          && !read.contains(column)
          && selection.partitions().stream().anyMatch(p -> p.containsKey(column.getName()))) {
        read.add(column);
      }
    }
    return read;
  }

  private static RowType rowType(List<Column> columns) {
    return RowType.of(
        columns.stream().map(c -> c.getDataType().getLogicalType()).toArray(LogicalType[]::new),
        columns.stream().map(Column::getName).toArray(String[]::new));
  }

  /** A source of a read with the suffix of its operator's uid. */
  private record Part(String uid, Source<RowData, ?, ?> source) {}

  /**
   * A read as a data stream: each part a source (with the table's watermarks, generated per split),
   * side by side when there are several; in upsert mode without the {@code -U} rows.
   *
   * @param parallelism the sources' parallelism, or -1 for the job's
   * @param read the columns the sources read: {@code columns}, then any only the sources need
   */
  private ScanRuntimeProvider streamRuntime(
      List<Part> parts, int parallelism, List<Column> read, List<Column> columns, boolean bounded) {
    InternalTypeInfo<RowData> readType = InternalTypeInfo.of(rowType(read));
    InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(rowType(columns));
    Trim trim = read.size() == columns.size() ? null : new Trim(rowType(columns));
    WatermarkStrategy<RowData> strategy =
        watermarks == null ? WatermarkStrategy.noWatermarks() : watermarks;
    boolean dropUpdateBefore = upsert();
    return new DataStreamScanProvider() {
      @Override
      public DataStream<RowData> produceDataStream(
          ProviderContext context, StreamExecutionEnvironment env) {
        SingleOutputStreamOperator<RowData> stream = null;
        DataStream<RowData> union = null;
        for (Part part : parts) {
          SingleOutputStreamOperator<RowData> read =
              env.fromSource(part.source(), strategy, part.uid() + " " + summary, readType);
          context.generateUid(part.uid()).ifPresent(read::uid);
          if (parallelism > 0) {
            read.setParallelism(parallelism);
          }
          stream = read;
          union = union == null ? read : union.union(read);
        }
        if (trim != null) {
          stream = union.map(trim, typeInfo).name("project " + summary);
          if (parallelism > 0) {
            stream.setParallelism(parallelism);
          }
        } else if (parts.size() > 1) {
          // The planner sets the output type of the transformation it gets, which a union's
          // (whose type the union itself has read) refuses: hand it a fresh one.
          stream = union.map(new Identity(), typeInfo).name("union " + summary);
        }
        if (dropUpdateBefore) {
          // Same parallelism as the source: forwarded, so each key's changes stay in order.
          stream = stream.filter(new DropUpdateBefore()).name("upserts " + summary);
          if (parallelism > 0) {
            stream.setParallelism(parallelism);
          }
        }
        return stream;
      }

      @Override
      public boolean isBounded() {
        return bounded;
      }
    };
  }

  /** Keeps a row's first fields, dropping those read only for the source's own use. */
  private static final class Trim implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final RowData.FieldGetter[] getters;

    Trim(RowType kept) {
      getters = new RowData.FieldGetter[kept.getFieldCount()];
      for (int i = 0; i < getters.length; i++) {
        getters[i] = RowData.createFieldGetter(kept.getTypeAt(i), i);
      }
    }

    @Override
    public RowData map(RowData row) {
      GenericRowData kept = new GenericRowData(row.getRowKind(), getters.length);
      for (int i = 0; i < getters.length; i++) {
        kept.setField(i, getters[i].getFieldOrNull(row));
      }
      return kept;
    }
  }

  /** Drops the {@code -U} rows of a changelog, leaving upserts. */
  private static final class DropUpdateBefore implements FilterFunction<RowData> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean filter(RowData row) {
      return row.getRowKind() != RowKind.UPDATE_BEFORE;
    }
  }

  /**
   * The lake rows of the selected partitions: for identity partition fields, the source column
   * equals the partition's value.
   */
  private Expression partitionFilter(Table lake) {
    Expression any = Expressions.alwaysFalse();
    for (Map<String, String> partition : selection.partitions()) {
      Expression all = Expressions.alwaysTrue();
      for (Map.Entry<String, String> value : partition.entrySet()) {
        PartitionField field =
            lake.spec().fields().stream()
                .filter(f -> f.name().equals(value.getKey()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new ValidationException(
                            "Table "
                                + summary
                                + " has no partition field "
                                + value.getKey()
                                + "; its partition spec is "
                                + lake.spec()));
        if (!field.transform().isIdentity()) {
          throw new ValidationException(
              "Cannot push the partition filter on "
                  + value.getKey()
                  + " of "
                  + summary
                  + " down: only identity partitions can be declared PARTITIONED BY, not "
                  + field.transform());
        }
        Types.NestedField column = lake.schema().findField(field.sourceId());
        all = Expressions.and(all, equalTo(column, value.getValue()));
      }
      any = Expressions.or(any, all);
    }
    return any;
  }

  private static Expression equalTo(Types.NestedField column, String value) {
    if (value == null) {
      return Expressions.isNull(column.name());
    }
    Object literal =
        switch (column.type().typeId()) {
          case INTEGER -> Integer.parseInt(value);
          case LONG -> Long.parseLong(value);
          case BOOLEAN -> Boolean.parseBoolean(value);
          // Strings; dates as ISO strings, which Iceberg converts when it binds the expression.
          default -> value;
        };
    return Expressions.equal(column.name(), literal);
  }

  @Override
  public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
    if (!primaryKey) {
      throw LookupProviders.logTable(summary);
    }
    return LookupProviders.of(
        server, path, summary, projectedColumns(), context.getKeys(), options);
  }

  private List<Column> projectedColumns() {
    List<Column> all = schema.getColumns().stream().filter(Column::isPhysical).toList();
    if (projection == null) {
      return all;
    }
    List<Column> columns = new ArrayList<>(projection.length);
    for (int index : projection) {
      columns.add(all.get(index));
    }
    return columns;
  }

  @Override
  public boolean supportsNestedProjection() {
    return false;
  }

  @Override
  public void applyProjection(int[][] projectedFields, DataType producedDataType) {
    int[] top = new int[projectedFields.length];
    for (int i = 0; i < top.length; i++) {
      top[i] = projectedFields[i][0];
    }
    this.projection = top;
  }

  @Override
  public DynamicTableSource copy() {
    LakestreamDynamicSource copy =
        new LakestreamDynamicSource(server, path, summary, primaryKey, schema, options, batchMode);
    copy.projection = projection == null ? null : projection.clone();
    copy.filters = filters;
    copy.watermarks = watermarks;
    copy.selection = selection;
    return copy;
  }

  @Override
  public void applyWatermark(WatermarkStrategy<RowData> watermarkStrategy) {
    this.watermarks = requireNonNull(watermarkStrategy, "watermarkStrategy is null");
  }

  /** The table's partitions as the server has them now, by partition key. */
  @Override
  public java.util.Optional<List<Map<String, String>>> listPartitions() {
    try (Connection connection = server.connect()) {
      return java.util.Optional.of(
          connection.table(path).partitions().stream().map(PartitionSelection::valuesOf).toList());
    }
  }

  /**
   * Restricts the read to the partitions Flink's planner kept; it no longer filters the rows by the
   * partition keys, so no row of another partition may be read.
   */
  @Override
  public void applyPartitions(List<Map<String, String>> remainingPartitions) {
    this.selection = PartitionSelection.of(remainingPartitions);
  }

  /**
   * Takes the filters it can pass on to the server (log batches) and to Iceberg (lake files); both
   * skip only whole batches or files, so every filter also stays with Flink.
   */
  @Override
  public Result applyFilters(List<ResolvedExpression> expressions) {
    List<ResolvedExpression> accepted = new ArrayList<>();
    List<PushedFilter> pushed = new ArrayList<>(filters);
    for (ResolvedExpression expression : expressions) {
      PushedFilter.of(expression)
          .ifPresent(
              filter -> {
                accepted.add(expression);
                pushed.add(filter);
              });
    }
    this.filters = List.copyOf(pushed);
    return Result.of(accepted, expressions);
  }

  @Override
  public String asSummaryString() {
    return "Lakestream " + summary;
  }
}
