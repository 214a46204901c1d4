package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.lakestream.config.Configuration;
import io.lakestream.server.LakestreamServer;
import io.lakestream.server.ServerConfig;
import io.lakestream.testing.RestCatalogs;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Walks every REST route with missing, malformed, expired and forged tokens (401), with a read-only
 * principal (403 on every change), and with the right principal (allowed), for tokens issued by the
 * server's own token endpoint and by an external issuer through its JWKS.
 */
class RestAuthTest {
  private static final String SIGNING_KEY = "test-signing-key-0123456789abcdef-0123";
  private static final String ISSUER = "https://idp.example.test";

  @TempDir static Path data;
  private static LakestreamServer server;
  private static HttpServer jwks;
  private static RSAKey issuerKey;
  private static HttpClient http;
  private static String base;

  /** One concrete request per route; the table below must name every route. */
  private record Call(String method, String path, String body) {}

  private static final Map<Route, Call> CALLS = new EnumMap<>(Route.class);

  static {
    String schema =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"type\":\"long\",\"required\":true}]}";
    String view =
        "{\"name\":\"v2\",\"schema\":"
            + schema
            + ",\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},"
            + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"trino\"}],"
            + "\"default-namespace\":[\"db\"]},\"properties\":{}}";
    CALLS.put(Route.CONFIG, new Call("GET", "/v1/config", null));
    CALLS.put(Route.LIST_NAMESPACES, new Call("GET", "/v1/namespaces", null));
    CALLS.put(
        Route.CREATE_NAMESPACE,
        new Call("POST", "/v1/namespaces", "{\"namespace\":[\"db\",\"child\"]}"));
    CALLS.put(Route.LOAD_NAMESPACE, new Call("GET", "/v1/namespaces/db", null));
    CALLS.put(Route.NAMESPACE_EXISTS, new Call("HEAD", "/v1/namespaces/db", null));
    CALLS.put(
        Route.UPDATE_NAMESPACE,
        new Call(
            "POST", "/v1/namespaces/db/properties", "{\"updates\":{\"a\":\"b\"},\"removals\":[]}"));
    CALLS.put(Route.LIST_TABLES, new Call("GET", "/v1/namespaces/db/tables", null));
    CALLS.put(
        Route.CREATE_TABLE,
        new Call(
            "POST", "/v1/namespaces/db/tables", "{\"name\":\"t2\",\"schema\":" + schema + "}"));
    CALLS.put(
        Route.REGISTER_TABLE,
        new Call(
            "POST",
            "/v1/namespaces/db/register",
            "{\"name\":\"r\",\"metadata-location\":\"file:/nonexistent/v1.metadata.json\"}"));
    CALLS.put(Route.LOAD_TABLE, new Call("GET", "/v1/namespaces/db/tables/t", null));
    CALLS.put(Route.TABLE_EXISTS, new Call("HEAD", "/v1/namespaces/db/tables/t", null));
    CALLS.put(
        Route.UPDATE_TABLE,
        new Call(
            "POST",
            "/v1/namespaces/db/tables/t",
            "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"a\":\"b\"}}]}"));
    CALLS.put(Route.REPORT_METRICS, new Call("POST", "/v1/namespaces/db/tables/t/metrics", "{}"));
    CALLS.put(
        Route.TABLE_CREDENTIALS, new Call("GET", "/v1/namespaces/db/tables/t/credentials", null));
    CALLS.put(
        Route.COMMIT_TRANSACTION,
        new Call(
            "POST",
            "/v1/transactions/commit",
            "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"db\"],\"name\":\"t\"},"
                + "\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"c\":\"d\"}}]}]}"));
    CALLS.put(
        Route.RENAME_TABLE,
        new Call(
            "POST",
            "/v1/tables/rename",
            "{\"source\":{\"namespace\":[\"db\"],\"name\":\"t2\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"t3\"}}"));
    CALLS.put(Route.DROP_TABLE, new Call("DELETE", "/v1/namespaces/db/tables/t3", null));
    CALLS.put(Route.LIST_VIEWS, new Call("GET", "/v1/namespaces/db/views", null));
    CALLS.put(Route.CREATE_VIEW, new Call("POST", "/v1/namespaces/db/views", view));
    CALLS.put(Route.LOAD_VIEW, new Call("GET", "/v1/namespaces/db/views/v", null));
    CALLS.put(Route.VIEW_EXISTS, new Call("HEAD", "/v1/namespaces/db/views/v", null));
    CALLS.put(
        Route.REPLACE_VIEW,
        new Call(
            "POST",
            "/v1/namespaces/db/views/v2",
            "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"a\":\"b\"}}]}"));
    CALLS.put(
        Route.RENAME_VIEW,
        new Call(
            "POST",
            "/v1/views/rename",
            "{\"source\":{\"namespace\":[\"db\"],\"name\":\"v2\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"v3\"}}"));
    CALLS.put(Route.DROP_VIEW, new Call("DELETE", "/v1/namespaces/db/views/v3", null));
    CALLS.put(
        Route.REGISTER_VIEW,
        new Call(
            "POST",
            "/v1/namespaces/db/register-view",
            "{\"name\":\"rv\",\"metadata-location\":\"file:/nonexistent/v1.metadata.json\"}"));
    // The warehouse is local: an authorized sign request is a 400, never a 401 or 403.
    CALLS.put(
        Route.REMOTE_SIGN,
        new Call(
            "POST",
            "/v1/namespaces/db/tables/t/sign",
            "{\"region\":\"us-east-1\",\"method\":\"GET\","
                + "\"uri\":\"http://127.0.0.1:9/lake/db/t/a.parquet\",\"headers\":{}}"));
    CALLS.put(Route.TABLE_TIERING, new Call("GET", "/v1/namespaces/db/tables/t/tiering", null));
    CALLS.put(Route.DROP_NAMESPACE, new Call("DELETE", "/v1/namespaces/db%1Fchild", null));
  }

  @BeforeAll
  static void start() throws Exception {
    issuerKey = new RSAKeyGenerator(2048).keyID("test-key").generate();
    jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] keys = new JWKSet(issuerKey.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    jwks.createContext(
        "/jwks.json",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, keys.length);
          exchange.getResponseBody().write(keys);
          exchange.close();
        });
    jwks.start();
    // Register reads only metadata in the namespace's own directory: a missing file there is 404.
    CALLS.put(
        Route.REGISTER_TABLE,
        new Call(
            "POST",
            "/v1/namespaces/db/register",
            "{\"name\":\"r\",\"metadata-location\":\"file:"
                + data.resolve("warehouse/db/r/metadata/v1.metadata.json")
                + "\"}"));
    server =
        LakestreamServer.start(
            ServerConfig.from(
                Configuration.builder(ServerConfig.allKeys())
                    .layer(
                        "test",
                        Map.ofEntries(
                            Map.entry("data-dir", data.toString()),
                            Map.entry("http.port", "0"),
                            Map.entry("flight.port", "0"),
                            Map.entry("auth.mode", "oauth2"),
                            Map.entry(
                                "auth.clients",
                                "writer:writer-secret,reader:reader-secret,outsider:outsider-secret"),
                            Map.entry("auth.token-signing-key", SIGNING_KEY),
                            Map.entry(
                                "auth.jwks-url",
                                "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks.json"),
                            Map.entry("auth.jwt-issuer", ISSUER),
                            Map.entry("auth.jwt-audience", "lakestream"),
                            Map.entry("auth.grants", "writer:write:default,reader:read:default"),
                            Map.entry("auth.metrics-principals", "writer")))
                    .build()));
    base = "http://127.0.0.1:" + server.httpPort();
    http = HttpClient.newHttpClient();

    try (RESTCatalog writer = connect("writer:writer-secret")) {
      writer.createNamespace(Namespace.of("db"), new HashMap<>());
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      writer.createTable(TableIdentifier.of("db", "t"), schema);
      writer
          .buildView(TableIdentifier.of("db", "v"))
          .withSchema(schema)
          .withDefaultNamespace(Namespace.of("db"))
          .withQuery("trino", "select 1")
          .create();
    }
  }

  @AfterAll
  static void stop() {
    server.close();
    jwks.stop(0);
  }

  @Test
  void everyRouteIsCovered() {
    assertThat(CALLS.keySet()).containsExactlyInAnyOrder(Route.values());
  }

  @Test
  void everyRouteRefusesMissingMalformedExpiredAndForgedTokens() throws Exception {
    Map<String, String> badTokens =
        Map.of(
            "missing", "",
            "malformed", "Bearer not-a-jwt",
            "wrong scheme",
                "Basic "
                    + java.util.Base64.getEncoder()
                        .encodeToString("writer:writer-secret".getBytes(StandardCharsets.UTF_8)),
            "expired", "Bearer " + ownToken("writer", SIGNING_KEY, Instant.now().minusSeconds(60)),
            "forged",
                "Bearer "
                    + ownToken(
                        "writer",
                        "another-key-of-enough-length-0123456789",
                        Instant.now().plusSeconds(600)),
            "external, wrong issuer",
                "Bearer " + externalToken("writer", "https://evil.test", "lakestream"),
            "external, wrong audience",
                "Bearer " + externalToken("writer", ISSUER, "someone-else"));
    for (Map.Entry<Route, Call> entry : CALLS.entrySet()) {
      for (Map.Entry<String, String> bad : badTokens.entrySet()) {
        HttpResponse<String> response = send(entry.getValue(), bad.getValue());
        assertThat(response.statusCode())
            .as("%s with a %s token: %s", entry.getKey(), bad.getKey(), response.body())
            .isEqualTo(401);
        if (!entry.getValue().method().equals("HEAD")) {
          assertThat(response.body()).contains("NotAuthorizedException");
        }
        assertThat(response.headers().firstValue("WWW-Authenticate")).isPresent();
      }
    }
    assertThat(send(new Call("GET", "/metrics", null), "").statusCode()).isEqualTo(401);
  }

  @Test
  void readOnlyPrincipalsGet403OnEveryChangeAndReadFreely() throws Exception {
    List<String> readers =
        List.of(
            "Bearer " + token("reader", "reader-secret"),
            "Bearer " + externalToken("reader", ISSUER, "lakestream"));
    for (String reader : readers) {
      for (Map.Entry<Route, Call> entry : CALLS.entrySet()) {
        HttpResponse<String> response = send(entry.getValue(), reader);
        if (entry.getKey().mutating()) {
          assertThat(response.statusCode())
              .as("%s: %s", entry.getKey(), response.body())
              .isEqualTo(403);
          assertThat(response.body()).contains("ForbiddenException").contains("reader");
        } else {
          assertThat(response.statusCode())
              .as("%s: %s", entry.getKey(), response.body())
              .isNotIn(401, 403);
        }
      }
    }
    assertThat(send(CALLS.get(Route.LOAD_TABLE), readers.get(0)).statusCode()).isEqualTo(200);
    // Metrics describe every warehouse: a namespace grant is not enough to read them.
    HttpResponse<String> metrics = send(new Call("GET", "/metrics", null), readers.get(0));
    assertThat(metrics.statusCode()).isEqualTo(403);
    assertThat(metrics.body()).contains("ForbiddenException").contains("auth.metrics-principals");
    assertThat(
            send(new Call("GET", "/metrics", null), "Bearer " + token("writer", "writer-secret"))
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void principalsWithoutGrantsGet403EvenToRead() throws Exception {
    String outsider = "Bearer " + token("outsider", "outsider-secret");
    assertThat(send(CALLS.get(Route.LOAD_TABLE), outsider).statusCode()).isEqualTo(403);
    assertThat(send(CALLS.get(Route.LIST_NAMESPACES), outsider).statusCode()).isEqualTo(403);
    assertThat(send(CALLS.get(Route.CONFIG), outsider).statusCode()).isEqualTo(200);
  }

  /**
   * A loadTable answered from memory on the event loop, as every load after the first is, checks
   * the token and the grants as strictly as one answered on a worker.
   */
  @Test
  void repeatedLoadsCheckTokensAndGrantsEveryTime() throws Exception {
    Call load = CALLS.get(Route.LOAD_TABLE);
    String writer = "Bearer " + token("writer", "writer-secret");
    HttpResponse<String> first = send(load, writer);
    assertThat(first.statusCode()).isEqualTo(200);
    String etag = first.headers().firstValue("ETag").orElseThrow();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> again = send(load, writer);
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(again.headers().firstValue("ETag")).contains(etag);
      HttpResponse<String> reader = send(load, "Bearer " + token("reader", "reader-secret"));
      assertThat(reader.statusCode()).isEqualTo(200);
      assertThat(reader.body()).isEqualTo(first.body());
      assertThat(send(load, "Bearer " + token("outsider", "outsider-secret")).statusCode())
          .isEqualTo(403);
      String expired = ownToken("writer", SIGNING_KEY, Instant.now().minusSeconds(60));
      assertThat(send(load, "Bearer " + expired).statusCode()).isEqualTo(401);
      String forged =
          ownToken(
              "writer", "another-key-of-enough-length-0123456789", Instant.now().plusSeconds(60));
      assertThat(send(load, "Bearer " + forged).statusCode()).isEqualTo(401);
      assertThat(send(load, "").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void theRightPrincipalSucceedsOnEveryRoute() throws Exception {
    String writer = "Bearer " + token("writer", "writer-secret");
    for (Route route : Route.values()) {
      HttpResponse<String> response = send(CALLS.get(route), writer);
      assertThat(response.statusCode()).as("%s: %s", route, response.body()).isNotIn(401, 403);
    }
    String external = "Bearer " + externalToken("writer", ISSUER, "lakestream");
    assertThat(send(CALLS.get(Route.UPDATE_TABLE), external).statusCode()).isEqualTo(200);
  }

  @Test
  void tokenEndpointRefusesWrongSecretsAndIcebergClientsSeeIt() throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "grant_type=client_credentials&client_id=writer&client_secret=wrong"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).contains("invalid_client").doesNotContain("wrong");
    assertThatThrownBy(() -> connect("writer:wrong").listNamespaces())
        .isInstanceOf(NotAuthorizedException.class);
  }

  @Test
  void icebergClientsAuthenticateThroughTheTokenEndpoint() throws Exception {
    try (RESTCatalog reader = connect("reader:reader-secret")) {
      assertThat(reader.listTables(Namespace.of("db"))).contains(TableIdentifier.of("db", "t"));
      assertThatThrownBy(() -> reader.createNamespace(Namespace.of("nope"), new HashMap<>()))
          .isInstanceOf(org.apache.iceberg.exceptions.ForbiddenException.class);
    }
  }

  private static RESTCatalog connect(String credential) {
    return RestCatalogs.open(base, credential);
  }

  private static String token(String client, String secret) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "grant_type=client_credentials&client_id="
                            + client
                            + "&client_secret="
                            + secret
                            + "&scope=catalog"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");
  }

  private static String ownToken(String subject, String key, Instant expiry) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader(JWSAlgorithm.HS256),
            new JWTClaimsSet.Builder()
                .issuer("lakestream")
                .subject(subject)
                .issueTime(Date.from(expiry.minusSeconds(3600)))
                .expirationTime(Date.from(expiry))
                .build());
    jwt.sign(new MACSigner(key.getBytes(StandardCharsets.UTF_8)));
    return jwt.serialize();
  }

  private static String externalToken(String subject, String issuer, String audience)
      throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(issuerKey.getKeyID()).build(),
            new JWTClaimsSet.Builder()
                .issuer(issuer)
                .audience(audience)
                .subject(subject)
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build());
    jwt.sign(new RSASSASigner(issuerKey));
    return jwt.serialize();
  }

  private static HttpResponse<String> send(Call call, String authorization) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + call.path()))
            .method(
                call.method(),
                call.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(call.body()));
    if (call.body() != null) {
      request.header("Content-Type", "application/json");
    }
    if (!authorization.isEmpty()) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
