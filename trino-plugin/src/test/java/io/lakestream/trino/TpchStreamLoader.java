package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Writes the eight TPC-H tables, as {@code io.trino.tpch}'s generator makes them, into Lakestream
 * log tables through the stream client ({@link AppendWriter}), so that a share of each table is
 * tiered into its Iceberg table and the rest stays in the log: the first {@code tieredShare} of
 * each table's rows is written and awaited in the lake, then the table's tiering interval is set to
 * an hour and the remaining rows are written, which stay in the log for the rest of the test.
 *
 * <p>Column names and types are those of Trino's {@code tpch} connector with the same {@link
 * Layout}: standard names ({@code l_orderkey}) or simplified ones ({@code orderkey}); money columns
 * as {@code decimal(12,2)} ({@code tpch.double-type-mapping=DECIMAL}) or {@code double} (the
 * default). Varchar columns are unbounded ({@code string} in Iceberg) where the tpch connector has
 * {@code varchar(n)}.
 */
final class TpchStreamLoader {
  private static final String TIERING_INTERVAL = "1s";
  private static final String TAIL_TIERING_INTERVAL = "1h";
  // The tiering service sees a changed interval at its next discovery (every second) and a round
  // that was already due may still start until then.
  private static final Duration INTERVAL_CHANGE_QUIET = Duration.ofSeconds(3);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final int BUCKETS = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How the tables' columns are named and typed, as the tpch connector's configuration does. */
  enum Layout {
    /** {@code tpch.column-naming=STANDARD}, {@code tpch.double-type-mapping=DECIMAL}. */
    STANDARD_DECIMAL(true, true),
    /** The tpch connector's defaults: simplified names, {@code double} money columns. */
    SIMPLIFIED_DOUBLE(false, false);

    private final boolean standardNames;
    private final boolean decimals;

    Layout(boolean standardNames, boolean decimals) {
      this.standardNames = standardNames;
      this.decimals = decimals;
    }

    /** The tpch connector's catalog properties that give the same columns. */
    Map<String, String> tpchCatalogProperties() {
      return Map.of(
          "tpch.column-naming",
          standardNames ? "STANDARD" : "SIMPLIFIED",
          "tpch.double-type-mapping",
          decimals ? "DECIMAL" : "DOUBLE");
    }
  }

  /** Rows per table: all written, and the part that was tiered before the rest was written. */
  record Loaded(String table, long rows, long tiered) {}

  private final String restUri;
  private final Connection connection;
  private final HttpClient http = HttpClient.newHttpClient();

  TpchStreamLoader(String restUri, Connection connection) {
    this.restUri = requireNonNull(restUri, "restUri is null");
    this.connection = requireNonNull(connection, "connection is null");
  }

  /**
   * Creates the eight tables in {@code namespace} and loads them at {@code scale}, {@code
   * tieredShare} of each table's rows tiered and the rest in the log.
   *
   * @throws AssertionError when the tiered part is not in the lake within {@code tieringTimeout}
   */
  List<Loaded> load(
      String namespace, double scale, Layout layout, double tieredShare, Duration tieringTimeout) {
    createNamespace(namespace);
    List<Loaded> loaded = new ArrayList<>();
    for (TpchTable<?> table : TpchTable.getTables()) {
      TablePath path = TablePath.of(namespace + "." + table.getTableName());
      connection
          .admin()
          .createTable(
              path,
              TableDescriptor.logTable(schema(table, layout), BUCKETS)
                  .withProperty(LakestreamProperties.TIERING_INTERVAL, TIERING_INTERVAL));
      long rows = count(table, scale);
      long tiered = (long) (rows * tieredShare);
      write(path, table, scale, layout, 0, tiered);
      loaded.add(new Loaded(table.getTableName(), rows, tiered));
    }
    long deadline = System.nanoTime() + tieringTimeout.toNanos();
    for (Loaded table : loaded) {
      long lake = tieredRows(namespace, table.table());
      while (lake != table.tiered() && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(POLL.toNanos());
        lake = tieredRows(namespace, table.table());
      }
      if (lake != table.tiered()) {
        throw new AssertionError(
            "%s.%s has %d rows tiered after %s, expected %d"
                .formatted(namespace, table.table(), lake, tieringTimeout, table.tiered()));
      }
      setProperty(
          namespace, table.table(), LakestreamProperties.TIERING_INTERVAL, TAIL_TIERING_INTERVAL);
    }
    long quiet = System.nanoTime() + INTERVAL_CHANGE_QUIET.toNanos();
    while (System.nanoTime() - quiet < 0) {
      LockSupport.parkNanos(POLL.toNanos());
    }
    for (Loaded table : loaded) {
      write(
          TablePath.of(namespace + "." + table.table()),
          TpchTable.getTable(table.table()),
          scale,
          layout,
          table.tiered(),
          table.rows());
    }
    return List.copyOf(loaded);
  }

  /**
   * The {@code total-records} of the table's current Iceberg snapshot (0 without one): the rows
   * tiered so far.
   */
  long tieredRows(String namespace, String table) {
    JsonNode metadata = readJson(request(namespace, table, null)).path("metadata");
    long current = metadata.path("current-snapshot-id").asLong(-1);
    for (JsonNode snapshot : metadata.path("snapshots")) {
      if (snapshot.path("snapshot-id").asLong() == current) {
        return Long.parseLong(snapshot.path("summary").path("total-records").asText("0"));
      }
    }
    return 0;
  }

  private void setProperty(String namespace, String table, String key, String value) {
    Map<String, Object> update = Map.of("action", "set-properties", "updates", Map.of(key, value));
    Map<String, Object> body = Map.of("requirements", List.of(), "updates", List.of(update));
    try {
      request(namespace, table, JSON.writeValueAsString(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String request(String namespace, String table, String postBody) {
    URI uri = URI.create(restUri + "/v1/default/namespaces/" + namespace + "/tables/" + table);
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
    if (postBody != null) {
      request
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(postBody));
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while requesting " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "%s %s: HTTP %d %s"
              .formatted(
                  postBody == null ? "GET" : "POST", uri, response.statusCode(), response.body()));
    }
    return response.body();
  }

  private static JsonNode readJson(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void createNamespace(String namespace) {
    try {
      connection.admin().createNamespace(null, List.of(namespace));
    } catch (RpcException e) {
      if (e.error() != ErrorCode.ALREADY_EXISTS) {
        throw e;
      }
    }
  }

  private static Schema schema(TpchTable<?> table, Layout layout) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (TpchColumn<?> column : table.getColumns()) {
      Type type =
          switch (column.getType().getBase()) {
            case IDENTIFIER -> Types.LongType.get();
            case INTEGER -> Types.IntegerType.get();
            case DATE -> Types.DateType.get();
            case DOUBLE -> layout.decimals ? Types.DecimalType.of(12, 2) : Types.DoubleType.get();
            case VARCHAR -> Types.StringType.get();
          };
      fields.add(Types.NestedField.optional(fields.size() + 1, columnName(column, layout), type));
    }
    return new Schema(fields);
  }

  private static String columnName(TpchColumn<?> column, Layout layout) {
    return layout.standardNames ? column.getColumnName() : column.getSimplifiedColumnName();
  }

  private static <E extends TpchEntity> long count(TpchTable<E> table, double scale) {
    long rows = 0;
    for (E ignored : table.createGenerator(scale, 1, 1)) {
      rows++;
    }
    return rows;
  }

  /** Appends the generator's rows {@code [from, to)} and waits for their acknowledgement. */
  private <E extends TpchEntity> void write(
      TablePath path, TpchTable<E> table, double scale, Layout layout, long from, long to) {
    List<TpchColumn<E>> columns = table.getColumns();
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(8192).withLinger(Duration.ofMillis(20));
    try (AppendWriter writer = connection.table(path).newAppendWriter(options)) {
      long index = 0;
      for (E row : table.createGenerator(scale, 1, 1)) {
        if (index >= to) {
          break;
        }
        if (index++ < from) {
          continue;
        }
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < values.length; i++) {
          TpchColumn<E> column = columns.get(i);
          values[i] =
              switch (column.getType().getBase()) {
                case IDENTIFIER -> column.getIdentifier(row);
                case INTEGER -> column.getInteger(row);
                case DATE -> LocalDate.ofEpochDay(column.getDate(row));
                case DOUBLE ->
                    layout.decimals
                        ? BigDecimal.valueOf(column.getDouble(row))
                            .setScale(2, RoundingMode.HALF_UP)
                        : column.getDouble(row);
                case VARCHAR -> column.getString(row);
              };
        }
        writer.append(values);
      }
      writer.flush();
    }
  }

  /** Row counts by table name, for messages. */
  static Map<String, String> describe(List<Loaded> loaded) {
    Map<String, String> description = new LinkedHashMap<>();
    for (Loaded table : loaded) {
      description.put(
          table.table(),
          table.tiered() + " tiered + " + (table.rows() - table.tiered()) + " in the log");
    }
    return description;
  }
}
