package io.lakestream.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.config.Configuration;
import io.lakestream.rest.Route;
import io.lakestream.server.LakestreamServer;
import io.lakestream.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the live server against the OpenAPI document: the document names exactly the server's own
 * routes, and every answer of those routes (success and error, tiering on and off) matches the
 * schema the document gives for its status code.
 */
class OpenApiContractTest {
  private static final String TIERING_PATH =
      "/v1/{prefix}/namespaces/{namespace}/tables/{table}/tiering";
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path data;
  private static LakestreamServer server;
  private static RESTCatalog catalog;
  private static HttpClient http;
  private static JsonNode document;
  private static SchemaChecker checker;

  @BeforeAll
  static void start() {
    document = LakestreamOpenApi.document();
    checker = new SchemaChecker(document);
    server = start(data, Map.of("tiering.discovery-interval", "1s"));
    catalog = catalog(server);
    catalog.createNamespace(Namespace.of("api"), new HashMap<>());
    http = HttpClient.newHttpClient();
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    catalog.close();
    server.close();
  }

  private static LakestreamServer start(Path directory, Map<String, String> settings) {
    Map<String, String> layer =
        new HashMap<>(
            Map.of(
                "data-dir",
                directory.toString(),
                "http.port",
                "0",
                "rpc.port",
                "0",
                "flight.port",
                "0"));
    layer.putAll(settings);
    return LakestreamServer.start(
        ServerConfig.from(
            Configuration.builder(ServerConfig.allKeys()).layer("test", layer).build()));
  }

  private static RESTCatalog catalog(LakestreamServer on) {
    RESTCatalog rest = new RESTCatalog();
    rest.initialize(
        "lakestream",
        new HashMap<>(
            Map.of(
                "uri",
                "http://127.0.0.1:" + on.httpPort(),
                "io-impl",
                LocalFileIO.class.getName())));
    return rest;
  }

  private static HttpResponse<String> get(LakestreamServer on, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Checks an answer against the document's schema for its route, method and status. */
  private static JsonNode assertMatchesDocument(HttpResponse<String> response) throws Exception {
    JsonNode schema =
        document
            .path("paths")
            .path(TIERING_PATH)
            .path("get")
            .path("responses")
            .path(Integer.toString(response.statusCode()))
            .path("content")
            .path("application/json")
            .path("schema");
    assertThat(schema.isMissingNode())
        .as("the document has no answer %s: %s", response.statusCode(), response.body())
        .isFalse();
    JsonNode body = JSON.readTree(response.body());
    assertThat(checker.problems(schema, body)).as(response.body()).isEmpty();
    return body;
  }

  @Test
  void theDocumentNamesExactlyTheServersOwnRoutes() {
    Set<String> documented = new HashSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      for (String method : Set.of("get", "put", "post", "delete", "head")) {
        if (path.getValue().has(method)) {
          documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
        }
      }
    }
    Set<String> served = new HashSet<>();
    for (Route route : Route.values()) {
      if (!route.iceberg()) {
        served.add(route.method() + " " + route.endpoint().path());
      }
    }
    assertThat(documented).isEqualTo(served);
  }

  @Test
  void tieringStatusAnswersMatchTheDocument() throws Exception {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.kind", "log");
    properties.put("lakestream.buckets", "2");
    properties.put("lakestream.tiering.interval", "1s");
    catalog.createTable(
        TableIdentifier.of("api", "events"), SCHEMA, PartitionSpec.unpartitioned(), properties);
    try (Connection connection = Connection.open("127.0.0.1", server.rpcPort(), null);
        AppendWriter writer = connection.table(TablePath.of("api.events")).newAppendWriter()) {
      for (long id = 0; id < 20; id++) {
        writer.append(id, "row " + id);
      }
      writer.flush();
    }

    // Before the first round: lagging, possibly not found by the service yet.
    JsonNode lagging =
        assertMatchesDocument(get(server, "/v1/namespaces/api/tables/events/tiering"));
    assertThat(lagging.path("state").asText()).isIn("pending", "active");

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode caughtUp;
    while (true) {
      caughtUp =
          assertMatchesDocument(get(server, "/v1/default/namespaces/api/tables/events/tiering"));
      if (caughtUp.path("lag-rows").asLong() == 0
          && caughtUp.path("rounds").path("committed").asLong() > 0) {
        break;
      }
      assertThat(System.nanoTime()).as("tiered in time: %s", caughtUp).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(caughtUp.path("last-snapshot").isObject()).isTrue();
    assertThat(caughtUp.path("rounds").path("last-commit").isObject()).isTrue();

    catalog.createTable(TableIdentifier.of("api", "plain"), SCHEMA);
    assertThat(
            assertMatchesDocument(get(server, "/v1/namespaces/api/tables/plain/tiering"))
                .path("error")
                .path("code")
                .asInt())
        .isEqualTo(400);
    assertThat(
            assertMatchesDocument(get(server, "/v1/namespaces/api/tables/missing/tiering"))
                .path("error")
                .path("type")
                .asText())
        .isEqualTo("NoSuchTableException");
  }

  @Test
  void theAnswerOfAServerThatDoesNotTierMatchesTheDocument(@TempDir Path otherData)
      throws Exception {
    try (LakestreamServer off = start(otherData, Map.of("tiering.enabled", "false"));
        RESTCatalog offCatalog = catalog(off)) {
      offCatalog.createNamespace(Namespace.of("api"), new HashMap<>());
      offCatalog.createTable(
          TableIdentifier.of("api", "events"),
          SCHEMA,
          PartitionSpec.unpartitioned(),
          Map.of("lakestream.kind", "log"));

      JsonNode status = assertMatchesDocument(get(off, "/v1/namespaces/api/tables/events/tiering"));

      assertThat(status.path("state").asText()).isEqualTo("off");
    }
  }

  @Test
  void theCheckerRejectsAnswersThatDriftFromTheDocument() {
    JsonNode schema = checker.resolve("#/components/schemas/TieringOff");
    ObjectNode good = JSON.createObjectNode();
    good.putArray("namespace").add("api");
    good.put("name", "events");
    good.put("kind", "log");
    good.put("state", "off");
    good.put("reason", "tiering.enabled=false");
    assertThat(checker.problems(schema, good)).isEmpty();

    ObjectNode extra = good.deepCopy().put("surprise", 1);
    assertThat(checker.problems(schema, extra)).singleElement().asString().contains("surprise");
    ObjectNode missing = good.deepCopy();
    missing.remove("reason");
    assertThat(checker.problems(schema, missing)).singleElement().asString().contains("reason");
    ObjectNode wrongType = good.deepCopy().put("name", 7);
    assertThat(checker.problems(schema, wrongType)).singleElement().asString().contains("name");
    ObjectNode wrongEnum = good.deepCopy().put("state", "on");
    assertThat(checker.problems(schema, wrongEnum)).singleElement().asString().contains("on");
  }
}
