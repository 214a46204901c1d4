package io.lakestream.bench.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.PrintStream;
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
 * The eight TPC-H tables of workload W3 as Lakestream log tables of 2 buckets in one namespace,
 * written through the streaming append path, with the tiering the benchmark needs: either every row
 * tiered ({@link #loadFullyTiered}), or the first 90% of each table's rows tiered and tiering then
 * paused (interval one hour) while the last 10% are written and stay in the log ({@link
 * #loadWithTail}). Tiering state is read and changed through the server's Iceberg REST endpoint
 * (the current snapshot's {@code total-records}, a {@code set-properties} commit), as any REST
 * client would. Not thread safe.
 */
final class TpchTables {
  private static final String FAST_TIERING = "1s";
  private static final String PAUSED_TIERING = "1h";
  private static final Duration TIERING_DEADLINE = Duration.ofMinutes(20);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String namespace;
  private final Connection streams;
  private final HttpClient http;
  private final URI restBase;
  private final PrintStream progress;
  private final double scale;
  private final Map<String, long[]> rows = new LinkedHashMap<>();

  /**
   * @param namespace the namespace of the tables, created by the load
   * @param restBase the server's base URI, {@code http://127.0.0.1:<port>}
   * @param scale the TPC-H scale factor
   */
  TpchTables(
      String namespace,
      Connection streams,
      HttpClient http,
      URI restBase,
      PrintStream progress,
      double scale) {
    this.namespace = requireNonNull(namespace, "namespace is null");
    this.streams = requireNonNull(streams, "streams is null");
    this.http = requireNonNull(http, "http is null");
    this.restBase = requireNonNull(restBase, "restBase is null");
    this.progress = requireNonNull(progress, "progress is null");
    this.scale = scale;
  }

  /** Creates the namespace and tables, writes every row and waits until all are tiered. */
  void loadFullyTiered() throws Exception {
    loadWithTail(1.0);
  }

  /**
   * Creates the namespace and tables, writes the first {@code tieredShare} of each table's rows and
   * waits until they are tiered; then, unless that is every row, pauses tiering and writes the
   * rest, which stays in the log.
   */
  void loadWithTail(double tieredShare) throws Exception {
    streams.admin().createNamespace(null, List.of(namespace));
    long start = System.nanoTime();
    for (TpchTable<?> table : TpchTable.getTables()) {
      create(table);
      long total = count(table);
      long tiered = (long) (total * tieredShare);
      rows.put(table.getTableName(), new long[] {total, tiered});
      write(table, 0, tiered);
    }
    progress.printf("  %s: wrote the part to tier in %.1f s%n", namespace, seconds(start));
    for (Map.Entry<String, long[]> table : rows.entrySet()) {
      awaitTieredRows(table.getKey(), table.getValue()[1]);
    }
    progress.printf("  %s: tiered after %.1f s%n", namespace, seconds(start));
    if (tieredShare >= 1.0) {
      return;
    }
    for (String table : rows.keySet()) {
      setTieringInterval(table, PAUSED_TIERING);
    }
    // The service sees the new interval at its next discovery (every second) and re-times the
    // next round from the last one; until then a round could still start: wait past that.
    long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (System.nanoTime() - quiet < 0) {
      LockSupport.parkNanos(POLL.toNanos());
    }
    for (TpchTable<?> table : TpchTable.getTables()) {
      long[] counts = rows.get(table.getTableName());
      write(table, counts[1], counts[0]);
    }
    assertTailInLog();
    progress.printf("  %s: wrote the log tail after %.1f s%n", namespace, seconds(start));
  }

  /** Fails unless every table's lake snapshot still holds only the part tiered before the pause. */
  void assertTailInLog() throws IOException, InterruptedException {
    for (Map.Entry<String, long[]> table : rows.entrySet()) {
      long tiered = tieredRows(table.getKey());
      if (tiered != table.getValue()[1]) {
        throw new IllegalStateException(
            "Table "
                + table.getKey()
                + " has "
                + tiered
                + " tiered rows instead of "
                + table.getValue()[1]
                + ": its log tail was tiered while tiering was paused");
      }
    }
  }

  /** Creates a log table of {@code schema} that tiers every second. */
  void createLogTable(String name, Schema schema) {
    streams
        .admin()
        .createTable(
            TablePath.of(namespace + "." + name),
            TableDescriptor.of(
                schema,
                Map.of(
                    LakestreamProperties.KIND,
                    TableKind.LOG.value(),
                    LakestreamProperties.BUCKETS,
                    "2",
                    LakestreamProperties.TIERING_INTERVAL,
                    FAST_TIERING)));
  }

  private void create(TpchTable<?> table) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (TpchColumn<?> column : table.getColumns()) {
      Type type =
          switch (column.getType().getBase()) {
            case IDENTIFIER -> Types.LongType.get();
            case INTEGER -> Types.IntegerType.get();
            case DATE -> Types.DateType.get();
            case DOUBLE -> Types.DecimalType.of(15, 2);
            case VARCHAR -> Types.StringType.get();
          };
      fields.add(Types.NestedField.optional(id++, column.getColumnName(), type));
    }
    createLogTable(table.getTableName(), new Schema(fields));
  }

  private <E extends TpchEntity> long count(TpchTable<E> table) {
    long count = 0;
    for (E ignored : table.createGenerator(scale, 1, 1)) {
      count++;
    }
    return count;
  }

  /** Appends rows {@code [from, to)} of the generator's output and waits for their ack. */
  private <E extends TpchEntity> void write(TpchTable<E> table, long from, long to) {
    List<TpchColumn<E>> columns = table.getColumns();
    WriterOptions options =
        WriterOptions.defaults().withBatchRows(8192).withLinger(Duration.ofMillis(20));
    try (AppendWriter writer =
        streams
            .table(TablePath.of(namespace + "." + table.getTableName()))
            .newAppendWriter(options)) {
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
                    BigDecimal.valueOf(column.getDouble(row)).setScale(2, RoundingMode.HALF_UP);
                case VARCHAR -> column.getString(row);
              };
        }
        writer.append(values);
      }
      writer.flush();
    }
  }

  private void awaitTieredRows(String table, long expected)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TIERING_DEADLINE.toNanos();
    long tiered;
    while ((tiered = tieredRows(table)) < expected) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "Table "
                + table
                + " has "
                + tiered
                + " of "
                + expected
                + " rows tiered after "
                + TIERING_DEADLINE);
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
  }

  /** {@code total-records} of the table's current Iceberg snapshot; 0 without one. */
  private long tieredRows(String table) throws IOException, InterruptedException {
    JsonNode metadata = JSON.readTree(send(table, null)).path("metadata");
    long current = metadata.path("current-snapshot-id").asLong(-1);
    for (JsonNode snapshot : metadata.path("snapshots")) {
      if (snapshot.path("snapshot-id").asLong() == current) {
        return snapshot.path("summary").path("total-records").asLong(0);
      }
    }
    return 0;
  }

  private void setTieringInterval(String table, String interval)
      throws IOException, InterruptedException {
    var update = JSON.createObjectNode();
    update.putArray("requirements");
    var setProperties = update.putArray("updates").addObject();
    setProperties.put("action", "set-properties");
    setProperties.putObject("updates").put(LakestreamProperties.TIERING_INTERVAL, interval);
    send(table, JSON.writeValueAsString(update));
  }

  /** GETs the table (body null) or POSTs a commit to it; fails unless the answer is 200. */
  private String send(String table, String body) throws IOException, InterruptedException {
    URI uri = restBase.resolve("/v1/default/namespaces/" + namespace + "/tables/" + table);
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT);
    if (body == null) {
      request.GET();
    } else {
      request
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body));
    }
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          (body == null ? "GET " : "POST ")
              + uri
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return response.body();
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
