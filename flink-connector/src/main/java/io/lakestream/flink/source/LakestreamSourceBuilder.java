package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.flink.FlinkTypes;
import io.lakestream.flink.ServerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;

/**
 * Builds a {@link LogSource} for a DataStream program: the log of a streaming table (log or
 * primary-key) as Flink's internal {@link org.apache.flink.table.data.RowData} of the table's
 * columns (or of the {@link #setColumns chosen ones}, in that order).
 *
 * <pre>{@code
 * LogSource source =
 *     new LakestreamSourceBuilder()
 *         .setServer(new ServerAddress(URI.create("http://host:8181"), "host", 9123, null, token, null))
 *         .setTable("shop", "orders")
 *         .setColumns("id", "amount")
 *         .startFromEarliest()
 *         .build();
 * DataStream<RowData> orders = env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders");
 * }</pre>
 *
 * <p>The same reads as the SQL connector's log-only startup modes ({@code earliest}, {@code
 * latest}, {@code timestamp}, {@code offsets}); the union read of {@code full} is SQL only. A
 * primary-key table's rows carry their row kinds ({@code +I -U +U -D}). Each split's offset is in
 * the checkpoint, so a restored job resumes where it stopped.
 *
 * <p>{@link #build()} connects to the server once to read the table's columns and types; it fails
 * there, naming the table, when the table does not exist or a chosen column is not one of its own.
 * Not thread safe.
 */
public final class LakestreamSourceBuilder {
  private ServerAddress server;
  private String database;
  private String table;
  private List<String> columns;
  private StartPositions start = new StartPositions.Earliest();
  private boolean bounded;
  private Duration partitionDiscoveryInterval =
      ScanOptions.PARTITION_DISCOVERY_INTERVAL.defaultValue();

  /** The server (its REST endpoint, stream RPC and credentials). Required. */
  public LakestreamSourceBuilder setServer(ServerAddress server) {
    this.server = requireNonNull(server, "server is null");
    return this;
  }

  /** The table, by database (namespace) and name, in the server's warehouse. Required. */
  public LakestreamSourceBuilder setTable(String database, String table) {
    this.database = requireNonNull(database, "database is null");
    this.table = requireNonNull(table, "table is null");
    return this;
  }

  /** Reads only these columns, in this order (default: all of the table's, in its order). */
  public LakestreamSourceBuilder setColumns(String... columns) {
    this.columns = List.of(columns);
    return this;
  }

  /** Reads each bucket from the start of its log (the default). */
  public LakestreamSourceBuilder startFromEarliest() {
    this.start = new StartPositions.Earliest();
    return this;
  }

  /** Reads the rows written after the job starts (from each bucket's high watermark then). */
  public LakestreamSourceBuilder startFromLatest() {
    this.start = new StartPositions.Latest();
    return this;
  }

  /** Reads each bucket from its first row committed at or after a time (epoch milliseconds). */
  public LakestreamSourceBuilder startFromTimestamp(long epochMillis) {
    this.start = new StartPositions.FromTimestamp(epochMillis);
    return this;
  }

  /**
   * Reads from given offsets, by partition ({@code ""} for a table without partitions) and bucket;
   * a bucket without an offset is read from its log's start.
   */
  public LakestreamSourceBuilder startFromOffsets(Map<String, Map<Integer, Long>> offsets) {
    this.start = new StartPositions.AtOffsets(offsets, false);
    return this;
  }

  /**
   * Whether the source stops at each bucket's high watermark when the job starts (default false: it
   * reads on, and picks up partitions that appear).
   */
  public LakestreamSourceBuilder setBounded(boolean bounded) {
    this.bounded = bounded;
    return this;
  }

  /** How often an unbounded source looks for new partitions (default 10 s). */
  public LakestreamSourceBuilder setPartitionDiscoveryInterval(Duration interval) {
    requireNonNull(interval, "interval is null");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "The partition discovery interval must be positive, not " + interval);
    }
    this.partitionDiscoveryInterval = interval;
    return this;
  }

  /**
   * The source, with the table's current columns and types.
   *
   * @throws IllegalStateException when the server or the table is not set
   * @throws IllegalArgumentException when a chosen column is not the table's, or a column's type
   *     has no Flink type
   */
  public LogSource build() {
    if (server == null || table == null) {
      throw new IllegalStateException("Set the server and the table before building the source");
    }
    TablePath path = server.path(database, table);
    Schema schema;
    try (Connection connection = server.connect()) {
      Table stream = connection.table(path);
      schema = SchemaParser.fromJson(stream.schemaJson());
    }
    List<Types.NestedField> fields = new ArrayList<>();
    if (columns == null) {
      fields.addAll(schema.columns());
    } else {
      for (String column : columns) {
        Types.NestedField field = schema.asStruct().field(column);
        if (field == null) {
          throw new IllegalArgumentException(
              "Cannot read column "
                  + column
                  + " of "
                  + path
                  + ": its columns are "
                  + schema.columns().stream().map(Types.NestedField::name).toList());
        }
        fields.add(field);
      }
    }
    List<String> names = fields.stream().map(Types.NestedField::name).toList();
    List<LogicalType> types =
        fields.stream().map(f -> FlinkTypes.toFlink(f).getLogicalType()).toList();
    return new LogSource(
        server,
        path,
        new LogReadSpec(names, types, List.of()),
        start,
        bounded,
        partitionDiscoveryInterval);
  }
}
