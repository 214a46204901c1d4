package io.lakestream.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.LakestreamExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The console's assets and JSON endpoints against a real server with {@code auth.mode=none}. */
class ConsoleApiTest {
  private static final int ROWS = 25;
  private static final int TIERED_ROWS = 12;

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM = LakestreamExtension.builder().build();

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static HttpClient http;

  @BeforeAll
  static void writeRows() throws Exception {
    http = HttpClient.newHttpClient();
    RESTCatalog catalog = LAKESTREAM.catalog();
    catalog.createNamespace(Namespace.of("console"), new HashMap<>());
    catalog.createTable(
        TableIdentifier.of("console", "events"),
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    catalog.createTable(
        TableIdentifier.of("console", "users"),
        new Schema(
            List.of(
                Types.NestedField.required(1, "_user", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1)),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "1")));
    catalog.createTable(
        TableIdentifier.of("console", "plain"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
        PartitionSpec.unpartitioned());
    catalog.createTable(
        TableIdentifier.of("console", "tiered"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.tiering.interval", "1s")));
    Connection connection = LAKESTREAM.connection();
    try (AppendWriter writer =
        connection
            .table(TablePath.of("console.tiered"))
            .newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < TIERED_ROWS; id++) {
        writer.append(id);
      }
      writer.flush();
    }
    try (UpsertWriter users =
        connection.table(TablePath.of("console.users")).newUpsertWriter(WriterOptions.defaults())) {
      users.upsert(1L, "ada");
      users.upsert(1L, "ada lovelace");
      users.delete(1L);
      users.flush();
    }
    try (AppendWriter writer =
        connection
            .table(TablePath.of("console.events"))
            .newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < ROWS; id++) {
        writer.append(id, "event-" + id);
      }
      writer.flush();
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(LAKESTREAM.base() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(LAKESTREAM.base() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return MAPPER.readTree(response.body());
  }

  @Test
  void servesAssetsWithTheirContentTypes() throws Exception {
    HttpResponse<String> index = get("/ui/");
    assertThat(index.statusCode()).isEqualTo(200);
    assertThat(index.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(index.body()).contains("<title>Lakestream console</title>");
    HttpResponse<String> script = get("/ui/app.js");
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.headers().firstValue("content-type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(get("/ui/app.css").headers().firstValue("content-type"))
        .hasValue("text/css; charset=utf-8");
    HttpResponse<String> chart = get("/ui/lib/chart.umd.js");
    assertThat(chart.statusCode()).isEqualTo(200);
    assertThat(chart.body()).contains("Chart.js v4.4.1");
    assertThat(chart.headers().firstValue("cache-control")).hasValue("public, max-age=86400");
    assertThat(get("/ui/missing.js").statusCode()).isEqualTo(404);
  }

  @Test
  void redirectsTheRootToTheConsole() throws Exception {
    HttpResponse<String> root = get("/");
    assertThat(root.statusCode()).isEqualTo(302);
    assertThat(root.headers().firstValue("location")).hasValue("/ui/");
    assertThat(get("/ui").headers().firstValue("location")).hasValue("/ui/");
  }

  @Test
  void refusesPathsThatLeaveTheConsole() throws Exception {
    for (String path :
        List.of(
            "/ui/../health",
            "/ui/%2e%2e/health",
            "/ui/%2E%2E/%2E%2E/etc/passwd",
            "/ui/lib/../../health",
            "/ui/lib/../app.js",
            "/ui/./index.html",
            "/ui/lib//chart.umd.js",
            "/ui/lib/..%2f..%2fapp.js",
            "/ui/META-INF/MANIFEST.MF",
            "/ui/lib/META-INF/resources/webjars/chart.js/4.4.1/package.json",
            "/ui/io/lakestream/ui/Console.class")) {
      HttpResponse<String> response = rawGet(path);
      assertThat(response.statusCode()).as(path).isIn(400, 404);
      assertThat(response.body()).as(path).doesNotContain("\"status\":\"up\"", "root:", "Manifest");
    }
  }

  /** Sends the path as written: java.net.http keeps dot segments and percent escapes. */
  private static HttpResponse<String> rawGet(String path) throws Exception {
    return get(path);
  }

  @Test
  void listsTablesWithRowsAndLag() throws Exception {
    HttpResponse<String> response = get("/ui/api/tables");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode table = findTable(json(response), "console", "events");
    assertThat(table.get("kind").asText()).isEqualTo("log");
    assertThat(table.get("rows").asLong()).isEqualTo(ROWS);
    assertThat(table.get("lag").asLong()).isBetween(0L, (long) ROWS);
    assertThat(table.get("freshness-ms").asLong())
        .isBetween(System.currentTimeMillis() - 600_000, System.currentTimeMillis());
  }

  /**
   * Pages of 3 tables over a namespace of 7 and an empty one: every table once, in name order, each
   * page but the last naming the next; bad page sizes and tokens are 400s.
   */
  @Test
  void listsTablesAPageAtATime() throws Exception {
    RESTCatalog catalog = LAKESTREAM.catalog();
    catalog.createNamespace(Namespace.of("paged"), new HashMap<>());
    catalog.createNamespace(Namespace.of("paged_empty"), new HashMap<>());
    List<String> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      String name = "t" + i;
      expected.add(name);
      catalog.createTable(
          TableIdentifier.of("paged", name),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log")));
    }
    List<String> seen = new java.util.ArrayList<>();
    boolean sawEmpty = false;
    String token = null;
    int pages = 0;
    do {
      HttpResponse<String> response =
          get("/ui/api/tables?page-size=3" + (token == null ? "" : "&page-token=" + token));
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode page = json(response);
      int tablesOnPage = 0;
      for (JsonNode namespace : page.get("namespaces")) {
        tablesOnPage += namespace.get("tables").size();
        for (JsonNode table : namespace.get("tables")) {
          if (namespace.get("namespace").asText().equals("paged")) {
            seen.add(table.get("name").asText());
            assertThat(table.get("rows").asLong()).isZero();
          }
        }
        if (namespace.get("namespace").asText().equals("paged_empty")) {
          assertThat(sawEmpty).as("empty namespace listed once").isFalse();
          assertThat(namespace.get("tables").size()).isZero();
          sawEmpty = true;
        }
      }
      assertThat(tablesOnPage).isLessThanOrEqualTo(3);
      token = page.has("next-page-token") ? page.get("next-page-token").asText() : null;
      if (token != null) {
        assertThat(tablesOnPage).as("a page that names a next one is full").isEqualTo(3);
      }
      pages++;
    } while (token != null && pages < 100);
    assertThat(token).as("the last page names no next one").isNull();
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(sawEmpty).isTrue();

    assertError(get("/ui/api/tables?page-size=0"), 400, "page-size");
    assertError(get("/ui/api/tables?page-size=1001"), 400, "page-size");
    assertError(get("/ui/api/tables?page-size=ten"), 400, "page-size");
    assertError(get("/ui/api/tables?page-token=bm90LWEtdG9rZW4"), 400, "page-token");
    assertError(get("/ui/api/tables?page-token=%25%25"), 400, "page-token");
  }

  static JsonNode findTable(JsonNode tables, String namespace, String name) {
    for (JsonNode node : tables.get("namespaces")) {
      if (node.get("namespace").asText().equals(namespace)) {
        for (JsonNode table : node.get("tables")) {
          if (table.get("name").asText().equals(name)) {
            return table;
          }
        }
      }
    }
    throw new AssertionError("No " + namespace + "." + name + " in " + tables);
  }

  @Test
  void describesATable() throws Exception {
    HttpResponse<String> response = get("/ui/api/table?namespace=console&table=events");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode table = json(response);
    List<String> columns = new ArrayList<>();
    table.get("schema").forEach(column -> columns.add(column.get("name").asText()));
    assertThat(columns).containsExactly("id", "name");
    assertThat(table.get("schema").get(0).get("type").asText()).isEqualTo("long");
    assertThat(table.get("properties").get("lakestream.kind").asText()).isEqualTo("log");
    assertThat(table.get("buckets")).hasSize(2);
    long latest = 0;
    for (JsonNode bucket : table.get("buckets")) {
      latest += bucket.get("latest-offset").asLong();
      assertThat(bucket.get("earliest-offset").asLong()).isZero();
    }
    assertThat(latest).isEqualTo(ROWS);
    assertThat(table.get("rows").asLong()).isEqualTo(ROWS);
    assertThat(table.get("snapshots").isArray()).isTrue();
    assertThat(table.get("tiering").isArray()).isTrue();
  }

  @Test
  void tailsTheNewestRows() throws Exception {
    HttpResponse<String> response = get("/ui/api/tail?namespace=console&table=events&limit=5");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode tail = json(response);
    assertThat(tail.get("columns").toString()).isEqualTo("[\"id\",\"name\"]");
    assertThat(tail.get("rows")).hasSize(5);
    for (JsonNode row : tail.get("rows")) {
      long id = row.get("values").get(0).asLong();
      assertThat(row.get("values").get(1).asText()).isEqualTo("event-" + id);
      assertThat(row.get("change").asText()).isEqualTo("INSERT");
    }
  }

  @Test
  void tailsAChangelogWithItsChangeTypes() throws Exception {
    HttpResponse<String> response = get("/ui/api/tail?namespace=console&table=users&limit=10");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode tail = json(response);
    assertThat(tail.get("columns").toString()).isEqualTo("[\"_user\",\"name\"]");
    List<String> changes = new ArrayList<>();
    for (JsonNode row : tail.get("rows")) {
      changes.add(row.get("change").asText() + ":" + row.get("values").toString());
    }
    // newest first: the delete, the update's after and before images, the insert
    assertThat(changes)
        .containsExactly(
            "DELETE:[1,\"ada lovelace\"]",
            "UPDATE_AFTER:[1,\"ada lovelace\"]",
            "UPDATE_BEFORE:[1,\"ada\"]",
            "INSERT:[1,\"ada\"]");
  }

  @Test
  void showsPlainIcebergTablesWithoutATail() throws Exception {
    JsonNode plain = findTable(json(get("/ui/api/tables")), "console", "plain");
    assertThat(plain.get("kind").asText()).isEqualTo("iceberg");
    assertThat(plain.get("rows").asLong()).isZero();
    assertThat(plain.get("lag").isNull()).isTrue();
    assertThat(plain.get("lake-size-bytes").asLong()).isZero();
    assertError(get("/ui/api/tail?namespace=console&table=plain"), 400, "not a streaming table");
  }

  @Test
  void recordsTieringRoundsAndTheLagTheyClose() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    JsonNode table;
    do {
      table = json(get("/ui/api/table?namespace=console&table=tiered"));
      if (table.get("lag").asLong() == 0 && !table.get("tiering").isEmpty()) {
        break;
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // poll, with the deadline above
    } while (System.nanoTime() < deadline);
    assertThat(table.get("lag").asLong()).as(table.toString()).isZero();
    long tiered = 0;
    for (JsonNode round : table.get("tiering")) {
      tiered += round.get("rows").asLong();
      assertThat(round.get("timestamp-ms").asLong()).isPositive();
    }
    assertThat(tiered).isEqualTo(TIERED_ROWS);
    assertThat(table.get("buckets").get(0).get("tiered-offset").asLong()).isEqualTo(TIERED_ROWS);
    JsonNode snapshot = table.get("snapshots").get(table.get("snapshots").size() - 1);
    assertThat(snapshot.get("tiered").asBoolean()).isTrue();
    assertThat(snapshot.get("operation").asText()).isEqualTo("append");
    assertThat(snapshot.get("summary").has("lakestream.offsets")).isFalse();
    assertThat(table.get("lake-size-bytes").asLong()).isPositive();
  }

  @Test
  void runsSqlThroughFlightSql() throws Exception {
    HttpResponse<String> response =
        post(
            "/ui/api/sql",
            "{\"sql\":\"SELECT count(*) AS n, max(id) AS top FROM console.events\"}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode result = json(response);
    assertThat(result.get("columns").toString()).isEqualTo("[\"n\",\"top\"]");
    assertThat(result.get("rows").toString()).isEqualTo("[[" + ROWS + "," + (ROWS - 1) + "]]");
    assertThat(result.get("truncated").asBoolean()).isFalse();
  }

  @Test
  void answersClientMistakesWith4xx() throws Exception {
    assertError(get("/ui/api/table?namespace=console&table=nope"), 404, "nope");
    assertError(get("/ui/api/table?namespace=console"), 400, "namespace=");
    assertError(get("/ui/api/tail?namespace=console&table=events&limit=x"), 400, "limit");
    assertError(get("/ui/api/tail?namespace=console&table=events&limit=100000"), 400, "limit");
    assertError(get("/ui/api/nothing"), 404, "nothing");
    assertError(post("/ui/api/tables", "{}"), 405, "GET");
    assertError(post("/ui/api/sql", "not json"), 400, "JSON");
    assertError(post("/ui/api/sql", "{\"sql\":\"\"}"), 400, "sql");
    HttpResponse<String> badSql = post("/ui/api/sql", "{\"sql\":\"SELEKT 1 FROM\"}");
    assertThat(badSql.statusCode()).as(badSql.body()).isBetween(400, 499);
    assertThat(json(badSql).get("message").asText()).isNotBlank();
    HttpResponse<String> unknownTable =
        post("/ui/api/sql", "{\"sql\":\"SELECT * FROM console.nope\"}");
    assertThat(unknownTable.statusCode()).as(unknownTable.body()).isBetween(400, 499);
  }

  private static void assertError(HttpResponse<String> response, int status, String mentions)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(json(response).get("message").asText()).contains(mentions);
  }
}
