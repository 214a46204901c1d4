package io.lakestream.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.LakestreamExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code auth.mode=oauth2} every console endpoint needs a bearer token and shows only the
 * namespaces the principal may read; the assets stay open (they hold no data).
 */
class ConsoleAuthTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .oauth2(
              "writer:w-secret,analyst:a-secret",
              "writer:write:default,analyst:read:default.secure")
          .catalogCredential("writer:w-secret")
          .build();

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static HttpClient http;
  private static String analyst;

  @BeforeAll
  static void writeRows() throws Exception {
    http = HttpClient.newHttpClient();
    RESTCatalog catalog = LAKESTREAM.catalog();
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    for (String namespace : List.of("secure", "other")) {
      catalog.createNamespace(Namespace.of(namespace), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of(namespace, "events"),
          schema,
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log")));
    }
    try (Connection writer = LAKESTREAM.connect(LAKESTREAM.token("writer", "w-secret"));
        AppendWriter append =
            writer.table(TablePath.of("secure.events")).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < 7; id++) {
        append.append(id);
      }
      append.flush();
    }
    analyst = LAKESTREAM.token("analyst", "a-secret");
  }

  private static HttpResponse<String> send(String path, String token, String sql) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(LAKESTREAM.base() + path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (sql != null) {
      request.header("Content-Type", "application/json");
      request.POST(
          HttpRequest.BodyPublishers.ofString(
              MAPPER.createObjectNode().put("sql", sql).toString()));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyEndpointNeedsAToken() throws Exception {
    for (String path :
        List.of(
            "/ui/api/tables",
            "/ui/api/table?namespace=secure&table=events",
            "/ui/api/tail?namespace=secure&table=events")) {
      HttpResponse<String> response = send(path, null, null);
      assertThat(response.statusCode()).as(path).isEqualTo(401);
      assertThat(response.headers().firstValue("www-authenticate")).isPresent();
      assertThat(send(path, "not-a-token", null).statusCode()).as(path).isEqualTo(401);
    }
    assertThat(send("/ui/api/sql", null, "SELECT 1").statusCode()).isEqualTo(401);
    assertThat(send("/ui/", null, null).statusCode()).isEqualTo(200);
  }

  @Test
  void showsOnlyReadableNamespaces() throws Exception {
    HttpResponse<String> response = send("/ui/api/tables", analyst, null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<String> namespaces = new ArrayList<>();
    MAPPER
        .readTree(response.body())
        .get("namespaces")
        .forEach(node -> namespaces.add(node.get("namespace").asText()));
    assertThat(namespaces).containsExactly("secure");
    JsonNode events =
        ConsoleApiTest.findTable(MAPPER.readTree(response.body()), "secure", "events");
    assertThat(events.get("rows").asLong()).isEqualTo(7);

    HttpResponse<String> writer =
        send("/ui/api/tables", LAKESTREAM.token("writer", "w-secret"), null);
    List<String> all = new ArrayList<>();
    MAPPER
        .readTree(writer.body())
        .get("namespaces")
        .forEach(node -> all.add(node.get("namespace").asText()));
    assertThat(all).contains("secure", "other");
  }

  @Test
  void refusesTablesOutsideTheGrants() throws Exception {
    assertThat(send("/ui/api/table?namespace=other&table=events", analyst, null).statusCode())
        .isEqualTo(403);
    assertThat(send("/ui/api/tail?namespace=other&table=events", analyst, null).statusCode())
        .isEqualTo(403);
    assertThat(send("/ui/api/table?namespace=secure&table=events", analyst, null).statusCode())
        .isEqualTo(200);
  }

  @Test
  void runsSqlAsTheCaller() throws Exception {
    HttpResponse<String> allowed =
        send("/ui/api/sql", analyst, "SELECT count(*) AS n FROM secure.events");
    assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
    assertThat(MAPPER.readTree(allowed.body()).get("rows").toString()).isEqualTo("[[7]]");
    HttpResponse<String> refused = send("/ui/api/sql", analyst, "SELECT * FROM other.events");
    assertThat(refused.statusCode()).as(refused.body()).isIn(403, 404);
  }
}
