package io.lakestream.flink;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;

/**
 * Builds the sink of a streaming table for a DataStream program. Its input is Flink's internal
 * {@link RowData} with the table's columns, in the table's order, and its types as {@link
 * FlinkTypes} maps them ({@code BIGINT}, {@code STRING}, {@code TIMESTAMP(6)}, ...). A log table's
 * rows are appended; a primary-key table's {@code +I} and {@code +U} rows are upserts by key, its
 * {@code -D} rows deletes and its {@code -U} rows are skipped.
 *
 * <pre>{@code
 * Sink<RowData> sink =
 *     new LakestreamSinkBuilder()
 *         .setServer(new ServerAddress(URI.create("http://host:8181"), "host", 9123, null, token, null))
 *         .setTable("shop", "orders")
 *         .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
 *         .build();
 * rows.sinkTo(sink);
 * }</pre>
 *
 * <p>The delivery guarantee is the SQL sink's {@code sink.delivery-guarantee}: {@code
 * AT_LEAST_ONCE} (the default) sends rows as they come and flushes before each checkpoint; {@code
 * EXACTLY_ONCE} sends each checkpoint's rows once it completes, so a restore writes no row twice
 * (rows are visible only after their checkpoint).
 *
 * <p>{@link #build()} connects to the server once to read the table's kind, columns and key, and
 * fails there, naming the table, when it does not exist or is not a streaming table. Not thread
 * safe.
 */
public final class LakestreamSinkBuilder {
  private ServerAddress server;
  private String database;
  private String table;
  private DeliveryGuarantee deliveryGuarantee = DeliveryGuarantee.AT_LEAST_ONCE;

  /** The server (its REST endpoint, stream RPC and credentials). Required. */
  public LakestreamSinkBuilder setServer(ServerAddress server) {
    this.server = requireNonNull(server, "server is null");
    return this;
  }

  /** The table, by database (namespace) and name, in the server's warehouse. Required. */
  public LakestreamSinkBuilder setTable(String database, String table) {
    this.database = requireNonNull(database, "database is null");
    this.table = requireNonNull(table, "table is null");
    return this;
  }

  /** {@code AT_LEAST_ONCE} (the default) or {@code EXACTLY_ONCE}; {@code NONE} is refused. */
  public LakestreamSinkBuilder setDeliveryGuarantee(DeliveryGuarantee deliveryGuarantee) {
    requireNonNull(deliveryGuarantee, "deliveryGuarantee is null");
    if (deliveryGuarantee == DeliveryGuarantee.NONE) {
      throw new IllegalArgumentException(
          "The delivery guarantee must be AT_LEAST_ONCE or EXACTLY_ONCE, not NONE");
    }
    this.deliveryGuarantee = deliveryGuarantee;
    return this;
  }

  /**
   * The sink, for the table's current columns.
   *
   * @throws IllegalStateException when the server or the table is not set
   * @throws IllegalArgumentException when the table is not a streaming table, or a column's type
   *     has no Flink type
   */
  public Sink<RowData> build() {
    if (server == null || table == null) {
      throw new IllegalStateException("Set the server and the table before building the sink");
    }
    TablePath path = server.path(database, table);
    Schema schema;
    String kind;
    List<String> key;
    try (Connection connection = server.connect()) {
      Table stream = connection.table(path);
      schema = SchemaParser.fromJson(stream.schemaJson());
      kind = stream.kind();
      key = stream.primaryKey();
    }
    boolean primaryKey = TableKind.PRIMARY_KEY.is(kind);
    if (!primaryKey && !TableKind.LOG.is(kind)) {
      throw new IllegalArgumentException(
          "Cannot write to " + path + ": it is a " + kind + " table, not a streaming table");
    }
    List<Types.NestedField> fields = schema.columns();
    List<String> columns = fields.stream().map(Types.NestedField::name).toList();
    LogicalType[] types =
        fields.stream()
            .map(f -> FlinkTypes.toFlink(f).getLogicalType())
            .toArray(LogicalType[]::new);
    // The key's columns in schema order, as the SQL sink has them.
    int[] keyColumns =
        primaryKey
            ? java.util.stream.IntStream.range(0, columns.size())
                .filter(i -> key.contains(columns.get(i)))
                .toArray()
            : new int[0];
    LakestreamSink sink =
        new LakestreamSink(
            server, database, table, primaryKey, columns, new RowValues(types), keyColumns);
    return deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE
        ? new LakestreamExactlyOnceSink(sink)
        : sink;
  }
}
