package io.lakestream.ui;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.auth.Authorizer;
import io.lakestream.auth.Principal;
import io.lakestream.auth.Privilege;
import io.lakestream.catalog.WarehouseCatalog;
import io.lakestream.catalog.Warehouses;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.stream.StreamTableProperties;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.types.Types;

/**
 * The console's JSON endpoints under {@code /ui/api/}, each for one principal and showing only the
 * namespaces it may read (the catalog's {@link Authorizer} grants):
 *
 * <ul>
 *   <li>{@code GET tables?page-size=N&page-token=T}: the readable namespaces with their tables, a
 *       page at a time, with each table's kind, rows (the sum of its buckets' high watermarks), lag
 *       (rows not yet tiered), freshness (newest commit) and lake size (the current snapshot's
 *       {@code total-files-size});
 *   <li>{@code GET table?namespace=a.b&table=t}: schema, properties, buckets, snapshots and the
 *       tiering rounds (the tiered snapshots' times and added rows);
 *   <li>{@code GET tail?namespace=a.b&table=t&limit=N}: the newest rows of a streaming table;
 *   <li>{@code POST sql} with {@code {"sql": "..."}}: the statement run by the server's own Flight
 *       SQL endpoint with the caller's credentials (the same engine and the same checks), at most
 *       {@value #MAX_SQL_ROWS} rows back.
 * </ul>
 *
 * Stream reads go through an internal connection of the server, after the grant check here.
 * Optional {@code warehouse} parameter names a warehouse other than the default. Thread safe.
 */
public final class ConsoleApi implements AutoCloseable {
  static final int MAX_SQL_ROWS = 1000;
  static final int MAX_TAIL_ROWS = 200;
  static final int DEFAULT_PAGE_TABLES = 100;
  static final int MAX_PAGE_TABLES = 1000;
  private static final Duration TAIL_TIMEOUT = Duration.ofSeconds(3);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** A path under {@code /ui/api/} that names no endpoint. */
  static final class NoSuchEndpointException extends RuntimeException {
    NoSuchEndpointException(String message) {
      super(message);
    }
  }

  /** An endpoint asked with a method it does not answer. */
  static final class MethodNotAllowedException extends RuntimeException {
    MethodNotAllowedException(String message) {
      super(message);
    }
  }

  /** A statement the Flight SQL endpoint refused, with the HTTP status its reason maps to. */
  static final class QueryFailedException extends RuntimeException {
    private final int status;

    QueryFailedException(int status, String message) {
      super(message);
      this.status = status;
    }

    int status() {
      return status;
    }
  }

  private final Warehouses warehouses;
  private final Authorizer authorizer;
  private final Supplier<Connection> stream;
  private final IntSupplier flightPort;
  private final String flightHost;
  private final ObjectMapper mapper = new ObjectMapper();
  private final BufferAllocator allocator = new RootAllocator();
  private volatile FlightClient flight;

  /**
   * @param stream the server's internal stream connection (reads every table: check first)
   * @param flightPort the port of the server's Flight SQL endpoint; throws when it is off
   */
  public ConsoleApi(
      Warehouses warehouses,
      Authorizer authorizer,
      Supplier<Connection> stream,
      String flightHost,
      IntSupplier flightPort) {
    this.warehouses = requireNonNull(warehouses, "warehouses is null");
    this.authorizer = requireNonNull(authorizer, "authorizer is null");
    this.stream = requireNonNull(stream, "stream is null");
    this.flightHost = requireNonNull(flightHost, "flightHost is null");
    this.flightPort = requireNonNull(flightPort, "flightPort is null");
  }

  Object handle(
      Principal principal,
      String method,
      String endpoint,
      Map<String, String> query,
      byte[] body,
      String authorization)
      throws IOException {
    boolean get = method.equals("GET") || method.equals("HEAD");
    return switch (endpoint) {
      case "tables" -> {
        requireGet(get, endpoint);
        yield tables(principal, query);
      }
      case "table" -> {
        requireGet(get, endpoint);
        yield table(principal, query);
      }
      case "tail" -> {
        requireGet(get, endpoint);
        yield tail(principal, query);
      }
      case "sql" -> {
        if (!method.equals("POST")) {
          throw new MethodNotAllowedException("sql answers POST only");
        }
        yield sql(body, authorization);
      }
      default -> throw new NoSuchEndpointException("No console endpoint " + endpoint);
    };
  }

  private static void requireGet(boolean get, String endpoint) {
    if (!get) {
      throw new MethodNotAllowedException(endpoint + " answers GET only");
    }
  }

  /**
   * One page of the readable tables, ordered by warehouse, namespace and table name: at most {@code
   * page-size} tables (default {@value #DEFAULT_PAGE_TABLES}), each summarized (which costs a
   * metadata load and an offsets request per table, hence the pages), grouped under their
   * namespaces; an empty namespace is listed on the page its place in that order falls on. {@code
   * next-page-token} is present when more follow; the page it names starts after this page's last
   * table, so tables made or dropped meanwhile neither repeat nor shift the pages.
   */
  private ObjectNode tables(Principal principal, Map<String, String> query) {
    int pageSize = intParameter(query, "page-size", DEFAULT_PAGE_TABLES, 1, MAX_PAGE_TABLES);
    List<String> after = pageToken(query.get("page-token"));
    ObjectNode answer = JSON.objectNode();
    ArrayNode namespaces = answer.putArray("namespaces");
    int listed = 0;
    List<String> last = null;
    List<String> names = new ArrayList<>(warehouses.names());
    names.sort(Comparator.naturalOrder());
    for (String warehouse : names) {
      if (after != null && warehouse.compareTo(after.get(0)) < 0) {
        continue;
      }
      WarehouseCatalog catalog = warehouses.catalog(warehouse);
      for (Namespace namespace : readableNamespaces(principal, catalog)) {
        String namespaceName = namespace.toString();
        if (after != null && compare(List.of(warehouse, namespaceName), after.subList(0, 2)) < 0) {
          continue;
        }
        List<TableIdentifier> identifiers = new ArrayList<>(catalog.listTables(namespace));
        identifiers.sort(Comparator.comparing(TableIdentifier::name));
        ObjectNode node = null;
        if (identifiers.isEmpty()
            && (after == null || compare(List.of(warehouse, namespaceName, ""), after) > 0)) {
          if (listed == pageSize) {
            return withNextPage(answer, last);
          }
          node = namespaceNode(namespaces, warehouse, namespaceName);
          last = List.of(warehouse, namespaceName, "");
        }
        for (TableIdentifier identifier : identifiers) {
          List<String> key = List.of(warehouse, namespaceName, identifier.name());
          if (after != null && compare(key, after) <= 0) {
            continue;
          }
          if (listed == pageSize) {
            return withNextPage(answer, last);
          }
          if (node == null) {
            node = namespaceNode(namespaces, warehouse, namespaceName);
          }
          ArrayNode tables = (ArrayNode) node.get("tables");
          listed++;
          last = key;
          catalog
              .currentTableMetadata(identifier)
              .ifPresent(
                  metadata -> {
                    ObjectNode table = tables.addObject();
                    table.put("name", identifier.name());
                    summarize(table, warehouse, identifier, metadata, null);
                  });
        }
      }
    }
    return answer;
  }

  private static ObjectNode withNextPage(ObjectNode answer, List<String> last) {
    answer.put(
        "next-page-token",
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(String.join("\0", last).getBytes(StandardCharsets.UTF_8)));
    return answer;
  }

  /** The warehouse, namespace and table a page token names; null for none. */
  private static List<String> pageToken(String token) {
    if (token == null) {
      return null;
    }
    try {
      String[] parts =
          new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\0", -1);
      if (parts.length == 3) {
        return List.of(parts);
      }
    } catch (IllegalArgumentException e) {
      // Not base64: refused below.
    }
    throw new BadRequestException("page-token %s is not one this server gave", token);
  }

  /** Compares two keys of the same length element by element. */
  private static int compare(List<String> first, List<String> second) {
    for (int i = 0; i < first.size(); i++) {
      int order = first.get(i).compareTo(second.get(i));
      if (order != 0) {
        return order;
      }
    }
    return 0;
  }

  private static ObjectNode namespaceNode(ArrayNode namespaces, String warehouse, String name) {
    ObjectNode node = namespaces.addObject();
    node.put("warehouse", warehouse);
    node.put("namespace", name);
    node.putArray("tables");
    return node;
  }

  private List<Namespace> readableNamespaces(Principal principal, WarehouseCatalog catalog) {
    Deque<Namespace> pending = new ArrayDeque<>(catalog.listNamespaces(Namespace.empty()));
    List<Namespace> readable = new ArrayList<>();
    while (!pending.isEmpty()) {
      Namespace namespace = pending.poll();
      pending.addAll(catalog.listNamespaces(namespace));
      if (mayRead(principal, catalog, namespace)) {
        readable.add(namespace);
      }
    }
    readable.sort(Comparator.comparing(Namespace::toString));
    return readable;
  }

  private boolean mayRead(Principal principal, WarehouseCatalog catalog, Namespace namespace) {
    try {
      authorizer.check(principal, Privilege.READ, catalog.name(), namespace);
      return true;
    } catch (ForbiddenException e) {
      return false;
    }
  }

  /**
   * Puts kind, rows, lag and freshness; the buckets' offsets too when {@code buckets} is not null.
   */
  private void summarize(
      ObjectNode node,
      String warehouse,
      TableIdentifier identifier,
      TableMetadata metadata,
      ArrayNode buckets) {
    String kind = metadata.properties().get(StreamTableProperties.KIND);
    Snapshot current = metadata.currentSnapshot();
    node.put(
        "lake-size-bytes",
        current == null
            ? 0
            : Long.parseLong(current.summary().getOrDefault("total-files-size", "0")));
    if (kind == null) {
      node.put("kind", "iceberg");
      node.put(
          "rows",
          current == null
              ? 0
              : Long.parseLong(current.summary().getOrDefault("total-records", "0")));
      node.putNull("lag");
      putTime(node, "freshness-ms", current == null ? null : current.timestampMillis());
      return;
    }
    node.put("kind", kind);
    Map<String, Map<Integer, Long>> tiered = TieredOffsets.committedIn(metadata).partitions();
    Table table = stream.get().table(path(warehouse, identifier));
    long rows = 0;
    long lag = 0;
    long freshness = -1;
    for (Map.Entry<TableBucket, Table.BucketOffsets> entry :
        table.offsets(table.partitions()).entrySet()) {
      TableBucket bucket = entry.getKey();
      Table.BucketOffsets offsets = entry.getValue();
      long tieredOffset =
          tiered.getOrDefault(bucket.partition(), Map.of()).getOrDefault(bucket.bucket(), 0L);
      long bucketLag = Math.max(0, offsets.latest() - Math.max(tieredOffset, offsets.earliest()));
      rows += offsets.latest();
      lag += bucketLag;
      if (offsets.latest() > offsets.earliest()) {
        freshness =
            Math.max(
                freshness,
                table.commitTimestamp(bucket.partition(), bucket.bucket(), offsets.latest() - 1));
      }
      if (buckets != null) {
        ObjectNode row = buckets.addObject();
        row.put("partition", bucket.partition());
        row.put("bucket", bucket.bucket());
        row.put("earliest-offset", offsets.earliest());
        row.put("latest-offset", offsets.latest());
        row.put("tiered-offset", tieredOffset);
        row.put("lag", bucketLag);
      }
    }
    node.put("rows", rows);
    node.put("lag", lag);
    putTime(node, "freshness-ms", freshness < 0 ? null : freshness);
  }

  private static void putTime(ObjectNode node, String field, Long millis) {
    if (millis == null) {
      node.putNull(field);
    } else {
      node.put(field, millis);
    }
  }

  private ObjectNode table(Principal principal, Map<String, String> query) {
    Located located = locate(principal, query);
    TableMetadata metadata = located.metadata();
    ObjectNode node = JSON.objectNode();
    node.put("warehouse", located.warehouse());
    node.put("namespace", located.identifier().namespace().toString());
    node.put("name", located.identifier().name());
    ArrayNode buckets = JSON.arrayNode();
    summarize(node, located.warehouse(), located.identifier(), metadata, buckets);
    ArrayNode schema = node.putArray("schema");
    for (Types.NestedField field : metadata.schema().columns()) {
      ObjectNode column = schema.addObject();
      column.put("id", field.fieldId());
      column.put("name", field.name());
      column.put("type", field.type().toString());
      column.put("required", field.isRequired());
    }
    ObjectNode properties = node.putObject("properties");
    metadata.properties().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(entry -> properties.put(entry.getKey(), entry.getValue()));
    node.set("buckets", buckets);
    ArrayNode snapshots = node.putArray("snapshots");
    ArrayNode rounds = node.putArray("tiering");
    List<Snapshot> history = new ArrayList<>(metadata.snapshots());
    history.sort(Comparator.comparingLong(Snapshot::timestampMillis));
    for (Snapshot snapshot : history) {
      ObjectNode row = snapshots.addObject();
      row.put("snapshot-id", snapshot.snapshotId());
      row.put("timestamp-ms", snapshot.timestampMillis());
      row.put("operation", snapshot.operation());
      ObjectNode summary = row.putObject("summary");
      snapshot.summary().entrySet().stream()
          .filter(entry -> !entry.getKey().equals(TieredOffsets.SUMMARY_KEY))
          .sorted(Map.Entry.comparingByKey())
          .forEach(entry -> summary.put(entry.getKey(), entry.getValue()));
      boolean tiered = TieredOffsets.isTiered(snapshot);
      row.put("tiered", tiered);
      if (tiered) {
        ObjectNode round = rounds.addObject();
        round.put("snapshot-id", snapshot.snapshotId());
        round.put("timestamp-ms", snapshot.timestampMillis());
        round.put("rows", Long.parseLong(snapshot.summary().getOrDefault("added-records", "0")));
      }
    }
    return node;
  }

  private ObjectNode tail(Principal principal, Map<String, String> query) {
    Located located = locate(principal, query);
    if (located.metadata().properties().get(StreamTableProperties.KIND) == null) {
      throw new BadRequestException(
          "Table %s is not a streaming table: it has no live tail", located.identifier());
    }
    int limit = intParameter(query, "limit", 20, 1, MAX_TAIL_ROWS);
    Table table = stream.get().table(path(located.warehouse(), located.identifier()));
    List<ObjectNode> rows = new ArrayList<>();
    List<String> columns = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      boolean any = false;
      for (Map.Entry<TableBucket, Table.BucketOffsets> entry :
          table.offsets(table.partitions()).entrySet()) {
        Table.BucketOffsets offsets = entry.getValue();
        if (offsets.latest() > offsets.earliest()) {
          scanner.subscribeRange(
              entry.getKey().partition(),
              entry.getKey().bucket(),
              Math.max(offsets.earliest(), offsets.latest() - limit),
              offsets.latest());
          any = true;
        }
      }
      long deadline = System.nanoTime() + TAIL_TIMEOUT.toNanos();
      while (any && !scanner.caughtUp() && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
          try (batch) {
            List<Object[]> values = batch.rows();
            if (columns.isEmpty() && !values.isEmpty()) {
              // rows() leaves out the trailing change-type column of a changelog
              batch.root().getFieldVectors().stream()
                  .limit(values.get(0).length)
                  .map(FieldVector::getName)
                  .forEach(columns::add);
            }
            for (int row = 0; row < values.size(); row++) {
              ObjectNode node = JSON.objectNode();
              node.put("partition", batch.partition());
              node.put("bucket", batch.bucket());
              node.put("offset", batch.baseOffset() + row);
              node.put("commit-timestamp-ms", batch.commitTimestamp());
              node.put("change", batch.changeType(row).name());
              ArrayNode cells = node.putArray("values");
              for (int column = 0; column < columns.size(); column++) {
                cells.add(json(values.get(row)[column]));
              }
              rows.add(node);
            }
          }
        }
      }
    }
    rows.sort(
        Comparator.comparingLong((ObjectNode row) -> row.get("commit-timestamp-ms").asLong())
            .thenComparingLong(row -> row.get("offset").asLong())
            .reversed());
    ObjectNode answer = JSON.objectNode();
    ArrayNode columnNames = answer.putArray("columns");
    columns.forEach(columnNames::add);
    answer.putArray("rows").addAll(rows.subList(0, Math.min(limit, rows.size())));
    return answer;
  }

  private ObjectNode sql(byte[] body, String authorization) throws IOException {
    JsonNode request;
    try {
      request = mapper.readTree(body);
    } catch (IOException e) {
      throw new BadRequestException("The body must be JSON like {\"sql\": \"SELECT 1\"}");
    }
    JsonNode statement = request == null ? null : request.get("sql");
    if (statement == null || !statement.isTextual() || statement.asText().isBlank()) {
      throw new BadRequestException("The body needs a non-empty \"sql\" string");
    }
    FlightSqlClient client = new FlightSqlClient(flightClient());
    List<CallOption> options = new ArrayList<>();
    options.add(CallOptions.timeout(60, TimeUnit.SECONDS));
    if (authorization != null && !authorization.isBlank()) {
      CallHeaders headers = new FlightCallHeaders();
      headers.insert("authorization", authorization);
      options.add(new HeaderCallOption(headers));
    }
    CallOption[] callOptions = options.toArray(CallOption[]::new);
    ObjectNode answer = JSON.objectNode();
    ArrayNode columns = answer.putArray("columns");
    ArrayNode rows = answer.putArray("rows");
    boolean truncated = false;
    try {
      FlightInfo info = client.execute(statement.asText(), callOptions);
      info.getSchemaOptional()
          .ifPresent(schema -> schema.getFields().forEach(field -> columns.add(field.getName())));
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream results = client.getStream(endpoint.getTicket(), callOptions)) {
          while (!truncated && results.next()) {
            VectorSchemaRoot root = results.getRoot();
            if (columns.isEmpty()) {
              root.getSchema().getFields().forEach(field -> columns.add(field.getName()));
            }
            for (int row = 0; row < root.getRowCount(); row++) {
              if (rows.size() >= MAX_SQL_ROWS) {
                truncated = true;
                break;
              }
              ArrayNode cells = rows.addArray();
              for (FieldVector vector : root.getFieldVectors()) {
                cells.add(json(vector.getObject(row)));
              }
            }
          }
          if (truncated) {
            results.cancel("The console shows " + MAX_SQL_ROWS + " rows", null);
          }
        } catch (FlightRuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException("Cannot read the query's results: " + e.getMessage(), e);
        }
        if (truncated) {
          break;
        }
      }
    } catch (FlightRuntimeException e) {
      throw new QueryFailedException(status(e), e.status().description());
    }
    answer.put("truncated", truncated);
    return answer;
  }

  private static int status(FlightRuntimeException e) {
    return switch (e.status().code()) {
      case INVALID_ARGUMENT, ALREADY_EXISTS -> 400;
      case UNAUTHENTICATED -> 401;
      case UNAUTHORIZED -> 403;
      case NOT_FOUND -> 404;
      case TIMED_OUT -> 504;
      case UNAVAILABLE -> 503;
      case RESOURCE_EXHAUSTED -> 429;
      default -> 502;
    };
  }

  private FlightClient flightClient() {
    FlightClient client = flight;
    if (client == null) {
      synchronized (this) {
        if (flight == null) {
          int port;
          try {
            port = flightPort.getAsInt();
          } catch (IllegalStateException e) {
            throw new ServiceUnavailableException(
                "The SQL editor needs Arrow Flight SQL: %s", e.getMessage());
          }
          flight =
              FlightClient.builder(allocator, Location.forGrpcInsecure(flightHost, port)).build();
        }
        client = flight;
      }
    }
    return client;
  }

  private static JsonNode json(Object value) {
    if (value == null) {
      return JSON.nullNode();
    }
    if (value instanceof Long number) {
      return JSON.numberNode(number);
    }
    if (value instanceof Integer number) {
      return JSON.numberNode(number);
    }
    if (value instanceof Short number) {
      return JSON.numberNode(number);
    }
    if (value instanceof Byte number) {
      return JSON.numberNode(number);
    }
    if (value instanceof Double number) {
      return Double.isFinite(number) ? JSON.numberNode(number) : JSON.textNode(number.toString());
    }
    if (value instanceof Float number) {
      return Float.isFinite(number) ? JSON.numberNode(number) : JSON.textNode(number.toString());
    }
    if (value instanceof java.math.BigDecimal number) {
      return JSON.numberNode(number);
    }
    if (value instanceof Boolean bool) {
      return JSON.booleanNode(bool);
    }
    if (value instanceof byte[] bytes) {
      return JSON.textNode(Base64.getEncoder().encodeToString(bytes));
    }
    return JSON.textNode(value.toString());
  }

  private record Located(String warehouse, TableIdentifier identifier, TableMetadata metadata) {}

  private Located locate(Principal principal, Map<String, String> query) {
    String namespace = query.get("namespace");
    String name = query.get("table");
    if (namespace == null || namespace.isBlank() || name == null || name.isBlank()) {
      throw new BadRequestException("Name a table with ?namespace=...&table=...");
    }
    String warehouse = query.getOrDefault("warehouse", warehouses.defaultWarehouse());
    if (!warehouses.names().contains(warehouse)) {
      throw new BadRequestException("No warehouse %s", warehouse);
    }
    WarehouseCatalog catalog = warehouses.catalog(warehouse);
    TableIdentifier identifier = TableIdentifier.of(Namespace.of(namespace.split("\\.", -1)), name);
    authorizer.check(principal, Privilege.READ, catalog.name(), identifier.namespace());
    TableMetadata metadata =
        catalog
            .currentTableMetadata(identifier)
            .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", identifier));
    return new Located(warehouse, identifier, metadata);
  }

  private TablePath path(String warehouse, TableIdentifier identifier) {
    return new TablePath(
        warehouse.equals(warehouses.defaultWarehouse()) ? null : warehouse,
        Arrays.asList(identifier.namespace().levels()),
        identifier.name());
  }

  private static int intParameter(
      Map<String, String> query, String name, int fallback, int min, int max) {
    String value = query.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed < min || parsed > max) {
        throw new BadRequestException(
            "%s must be between %s and %s, not %s", name, min, max, value);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new BadRequestException("%s must be a number, not %s", name, value);
    }
  }

  /** Query parameters, percent-decoded; the first value of a repeated name wins. */
  static Map<String, String> query(String queryString) {
    Map<String, String> query = new HashMap<>();
    if (queryString == null || queryString.isEmpty()) {
      return query;
    }
    for (String pair : queryString.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      try {
        String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), UTF8);
        String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), UTF8);
        query.putIfAbsent(name, value);
      } catch (IllegalArgumentException e) {
        throw new BadRequestException("Malformed percent-encoding in query: %s", pair);
      }
    }
    return query;
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  /** Bytes of Arrow memory the console's reads hold now. */
  public long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  @Override
  public void close() throws Exception {
    FlightClient client = flight;
    if (client != null) {
      client.close();
    }
    allocator.close();
  }
}
