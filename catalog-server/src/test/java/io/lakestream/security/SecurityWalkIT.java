package io.lakestream.security;

import static io.lakestream.security.WalkClients.bearer;
import static io.lakestream.security.WalkClients.jdbcRows;
import static io.lakestream.security.WalkClients.jdbcUpdate;
import static io.lakestream.security.WalkClients.json;
import static io.lakestream.security.WalkClients.rpcError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages;
import io.lakestream.client.rpc.RpcConnection;
import io.lakestream.rest.Route;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.util.TableRef;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security walk of issue 30: one packaged server process with {@code auth.mode=oauth2} and
 * grants per namespace, a victim namespace {@code b} (log table {@code b.t} tiered into Iceberg,
 * primary-key table {@code b.kv}, view {@code b.v}), and four kinds of attacker against it on every
 * endpoint:
 *
 * <ol>
 *   <li>(a) no token;
 *   <li>(b) a forged token (signed with another key, or unsigned, or naming an internal component)
 *       and an expired token signed with the server's own key, each claiming the all-powerful
 *       {@code root};
 *   <li>(c) {@code areader}, who may read namespace {@code a} only;
 *   <li>(d) {@code awriter}, who may write namespace {@code a} only and tries to reach {@code
 *       b.t}'s files through table and namespace locations, {@code register} and {@code
 *       set-location}.
 * </ol>
 *
 * <p>Endpoints: every REST route of {@link Route} (with and without the warehouse prefix; the test
 * fails when a route has no case), the routes outside {@code /v1} ({@code /metrics}, {@code
 * /health}, {@code /ready}, {@code /v1/oauth/tokens}: these live as literals in {@code
 * CatalogHttpServer}, so this test keeps a literal list of them), every stream RPC {@link ApiKey},
 * and Flight SQL through the real JDBC driver and the raw Flight SQL client (queries, prepared
 * statements, updates, metadata commands, DoPut ingest, result tickets).
 *
 * <p>After each walk the victim must be unchanged: its namespace, tables, view, metadata files,
 * every file under its directory, its stream offsets, its primary-key rows and every row a query
 * returns. The last test lets the tiering orphan-file sweep run (orphan age 1 s) before that check.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecurityWalkIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);
  private static final String SIGNING_KEY = "security-walk-signing-key-0123456789abcdef";
  private static final String MARKER = "victim-marker-5e1f";

  /** Where a table located at {@code file:/} would put its metadata. */
  private static final Path FILE_SYSTEM_ROOT_METADATA = Path.of("/metadata");

  private static final int LOG_ROWS = 100;
  private static final int KV_ROWS = VictimState.KV_KEYS;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get())),
          Set.of(1));

  @TempDir static Path temp;
  private static ServerProcess server;
  private static int rpcPort;
  private static int flightPort;
  private static WalkClients clients;
  private static RESTCatalog rootCatalog;
  private static Path warehouse;
  private static Path outside;
  private static String victimLocation;
  private static String victimMetadata;
  private static VictimRoutes routes;
  private static VictimStreamRequests streamRequests;
  private static ForgedTokens forger;
  private static VictimState before;
  private static final Map<String, String> TOKENS = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path data = temp.resolve("data");
    warehouse = data.resolve("warehouse");
    outside = Path.of("/tmp", "lakestream-walk-" + UUID.randomUUID());
    int httpPort = ServerProcess.freePort();
    rpcPort = ServerProcess.freePort();
    flightPort = ServerProcess.freePort();
    List<String> flags =
        List.of(
            "--data-dir",
            data.toString(),
            "--http-port",
            Integer.toString(httpPort),
            "--rpc-port",
            Integer.toString(rpcPort),
            "--flight-port",
            Integer.toString(flightPort),
            "--auth-mode",
            "oauth2",
            "--auth-clients",
            "root:root-secret,bowner:bowner-secret,awriter:awriter-secret,"
                + "areader:areader-secret",
            "--auth-grants",
            "root:admin:*,bowner:write:default.b,awriter:write:default.a,"
                + "areader:read:default.a",
            "--auth-token-signing-key",
            SIGNING_KEY,
            "--tiering-discovery-interval",
            "1s",
            "--tiering-orphan-file-age",
            "1s");
    server =
        ServerProcess.launchReady(temp.resolve("logs"), httpPort, flags, Map.of(), START_TIMEOUT);
    clients = new WalkClients(server.baseUri(), rpcPort, flightPort);
    for (String client : List.of("root", "bowner", "awriter", "areader")) {
      TOKENS.put(
          client, CatalogTokens.clientCredentials(server.baseUri(), client, client + "-secret"));
    }
    forger = new ForgedTokens(SIGNING_KEY);
    rootCatalog = clients.catalog("root:root-secret");
    rootCatalog.createNamespace(Namespace.of("a"), new HashMap<>());
    rootCatalog.createNamespace(Namespace.of("b"), new HashMap<>(Map.of("marker", MARKER)));
    rootCatalog.createTable(
        TableIdentifier.of("b", "t"),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind", "log",
                "lakestream.buckets", "1",
                "lakestream.tiering.interval", "1s",
                "marker", MARKER)));
    rootCatalog.createTable(
        TableIdentifier.of("b", "kv"),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind", "primary-key",
                "lakestream.buckets", "1",
                "lakestream.tiering.interval", "1s",
                "marker", MARKER)));
    rootCatalog
        .buildView(TableIdentifier.of("b", "v"))
        .withSchema(SCHEMA)
        .withDefaultNamespace(Namespace.of("b"))
        .withQuery("trino", "select id from b.t")
        .withProperty("marker", MARKER)
        .create();
    try (Connection owner = Connection.open("127.0.0.1", rpcPort, TOKENS.get("bowner"));
        AppendWriter rows = owner.table(TablePath.of("b.t")).newAppendWriter();
        UpsertWriter upserts = owner.table(TablePath.of("b.kv")).newUpsertWriter()) {
      for (long id = 0; id < LOG_ROWS; id++) {
        rows.append(id, "row-" + id + "-" + MARKER);
      }
      rows.flush();
      for (long id = 0; id < KV_ROWS; id++) {
        upserts.upsert(id, "kv-" + id + "-" + MARKER);
      }
      upserts.flush();
    }
    awaitTiered("b", "t", 1);
    awaitTiered("b", "kv", 1);

    JsonNode table =
        json(clients.send("GET", "/v1/namespaces/b/tables/t", null, TOKENS.get("root")));
    victimMetadata = table.path("metadata-location").asText();
    victimLocation = table.path("metadata").path("location").asText();
    JsonNode view = json(clients.send("GET", "/v1/namespaces/b/views/v", null, TOKENS.get("root")));
    routes = new VictimRoutes(victimMetadata, view.path("metadata-location").asText());
    try (Connection owner = Connection.open("127.0.0.1", rpcPort, TOKENS.get("bowner"))) {
      Table log = owner.table(TablePath.of("b.t"));
      Table kv = owner.table(TablePath.of("b.kv"));
      streamRequests =
          new VictimStreamRequests(
              log.id(), kv.id(), firstBatch(log), firstBatch(kv), SchemaParser.toJson(SCHEMA));
    }
    before =
        VictimState.capture(
            clients, rootCatalog, warehouse, TOKENS.get("root"), TOKENS.get("bowner"));
    assertThat(before.logRows()).startsWith(LOG_ROWS + " rows");
    assertThat(before.kvRows()).startsWith(KV_ROWS + " rows");
    assertThat(before.dataFiles()).isNotEmpty();
  }

  @AfterAll
  static void stop() throws Exception {
    if (rootCatalog != null) {
      rootCatalog.close();
    }
    if (clients != null) {
      clients.close();
    }
    if (server != null) {
      server.close();
    }
    deleteRecursively(outside);
  }

  // ---- (a) and (b): no token, forged and expired tokens

  @Test
  @Order(1)
  void everyHttpRouteRefusesCallersWithoutAValidToken() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    Map<String, String> badHeaders = new LinkedHashMap<>();
    badHeaders.put("no token", null);
    forger.all("root").forEach((kind, token) -> badHeaders.put(kind, "Bearer " + token));
    badHeaders.put("basic credentials", basic("root", "root-secret"));
    badHeaders.put("bearer garbage", "Bearer not-a-token");

    // Every variant on the paths without a prefix; the main two on the paths with one.
    Map<String, String> prefixedHeaders = new LinkedHashMap<>();
    prefixedHeaders.put("no token", null);
    prefixedHeaders.put("forged", badHeaders.get("forged"));
    prefixedHeaders.put("expired", badHeaders.get("expired"));
    Set<Route> covered = EnumSet.noneOf(Route.class);
    for (String prefix : new String[] {null, "default"}) {
      for (Route route : Route.values()) {
        VictimRoutes.Call call = routes.call(route, prefix);
        covered.add(route);
        for (Map.Entry<String, String> header :
            (prefix == null ? badHeaders : prefixedHeaders).entrySet()) {
          HttpResponse<String> response =
              clients.sendWithHeader(call.method(), call.path(), call.body(), header.getValue());
          softly
              .assertThat(response.statusCode())
              .as("%s %s with %s", call.method(), call.path(), header.getKey())
              .isEqualTo(401);
          softly
              .assertThat(response.body())
              .as("%s %s with %s", call.method(), call.path(), header.getKey())
              .doesNotContain(MARKER);
        }
      }
    }
    softly.assertThat(covered).as("REST routes walked").isEqualTo(EnumSet.allOf(Route.class));

    // The routes outside /v1 (literals in CatalogHttpServer; keep in step with it).
    for (Map.Entry<String, String> header : badHeaders.entrySet()) {
      HttpResponse<String> metrics =
          clients.sendWithHeader("GET", "/metrics", null, header.getValue());
      softly
          .assertThat(metrics.statusCode())
          .as("/metrics with %s", header.getKey())
          .isEqualTo(401);
    }
    for (String open : List.of("/health", "/ready")) {
      HttpResponse<String> response = clients.sendWithHeader("GET", open, null, null);
      softly.assertThat(response.statusCode()).as("%s is public", open).isEqualTo(200);
      softly.assertThat(response.body()).as(open).doesNotContain(MARKER).doesNotContain("\"b\"");
    }
    softly
        .assertThat(clients.tokenEndpoint("grant_type=client_credentials").statusCode())
        .as("token endpoint without credentials")
        .isEqualTo(401);
    softly
        .assertThat(
            clients
                .tokenEndpoint(
                    "grant_type=client_credentials&client_id=root&client_secret=bowner-secret")
                .statusCode())
        .as("token endpoint with another client's secret")
        .isEqualTo(401);
    for (Map.Entry<String, String> bad : forger.all("root").entrySet()) {
      HttpResponse<String> exchanged =
          clients.tokenEndpoint(
              "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
                  + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
                  + "&subject_token="
                  + URLEncoder.encode(bad.getValue(), StandardCharsets.UTF_8));
      softly
          .assertThat(exchanged.statusCode())
          .as("token exchange of a %s token", bad.getKey())
          .isEqualTo(401);
      softly.assertThat(exchanged.body()).doesNotContain("access_token");
    }
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(2)
  void everyRpcKeyRefusesCallersWithoutAValidToken() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    Set<ApiKey> covered = EnumSet.noneOf(ApiKey.class);
    try (RpcConnection anonymous = clients.rpc()) {
      for (ApiKey key : ApiKey.values()) {
        covered.add(key);
        softly
            .assertThat(rpcError(anonymous, key, streamRequests.body(key, "")))
            .as("%s without a token", key)
            .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
      }
    }
    for (Map.Entry<String, String> bad : forger.all("root").entrySet()) {
      try (RpcConnection connection = clients.rpc()) {
        for (ApiKey key : ApiKey.values()) {
          // AUTHENTICATE presents the bad token; every later key goes on the same connection.
          softly
              .assertThat(rpcError(connection, key, streamRequests.body(key, bad.getValue())))
              .as("%s after authenticating with a %s token", key, bad.getKey())
              .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
        }
      }
    }
    softly.assertThat(covered).as("RPC keys walked").isEqualTo(EnumSet.allOf(ApiKey.class));
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(3)
  void flightSqlRefusesCallersWithoutAValidToken() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    Map<String, CallOption[]> bad = new LinkedHashMap<>();
    bad.put("no token", new CallOption[0]);
    forger.all("root").forEach((kind, token) -> bad.put(kind, bearer(token)));
    for (Map.Entry<String, CallOption[]> caller : bad.entrySet()) {
      String who = caller.getKey();
      CallOption[] options = caller.getValue();
      expectFlightStatus(
          softly,
          who + ": query",
          FlightStatusCode.UNAUTHENTICATED,
          () ->
              clients.rows(
                  clients.flightSql().execute("SELECT count(*) FROM b.t", options), options));
      expectFlightStatus(
          softly,
          who + ": prepared query",
          FlightStatusCode.UNAUTHENTICATED,
          () -> clients.flightSql().prepare("SELECT * FROM b.t", options).execute(options));
      expectFlightStatus(
          softly,
          who + ": update",
          FlightStatusCode.UNAUTHENTICATED,
          () -> clients.flightSql().executeUpdate("INSERT INTO b.t VALUES (1000, 'x')", options));
      expectFlightStatus(
          softly,
          who + ": getTables",
          FlightStatusCode.UNAUTHENTICATED,
          () ->
              clients.rows(
                  clients.flightSql().getTables(null, null, null, null, false, options), options));
      expectFlightStatus(
          softly,
          who + ": getSchemas",
          FlightStatusCode.UNAUTHENTICATED,
          () -> clients.rows(clients.flightSql().getSchemas(null, null, options), options));
      expectFlightStatus(
          softly,
          who + ": DoPut ingest",
          FlightStatusCode.UNAUTHENTICATED,
          () -> clients.putRows(FlightDescriptor.path("b", "t"), options));
      expectFlightStatus(
          softly,
          who + ": bulk ingest command",
          FlightStatusCode.UNAUTHENTICATED,
          () -> clients.bulkIngest(options));
    }
    for (Map.Entry<String, String> token : forger.all("root").entrySet()) {
      softly
          .assertThatThrownBy(
              () -> jdbcRows(clients.jdbcUrl(token.getValue()), "SELECT * FROM b.t"))
          .as("JDBC with a %s token", token.getKey())
          .isInstanceOf(SQLException.class);
    }
    softly
        .assertThatThrownBy(() -> jdbcRows(clients.jdbcUrl(null), "SELECT * FROM b.t"))
        .as("JDBC without a token")
        .isInstanceOf(SQLException.class);
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  // ---- (c): a principal who may read another namespace only

  @Test
  @Order(4)
  void aReaderOfAnotherNamespaceIsForbiddenOnEveryHttpRoute() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    String reader = TOKENS.get("areader");
    String root = TOKENS.get("root");
    for (String prefix : new String[] {null, "default"}) {
      for (Route route : Route.values()) {
        VictimRoutes.Call call = routes.call(route, prefix);
        HttpResponse<String> response =
            clients.send(call.method(), call.path(), call.body(), reader);
        String what = call.method() + " " + call.path() + " as areader";
        // Grants are checked before the catalog is consulted: 403 whether or not the target
        // exists, so a forbidden principal cannot probe for names either (see below).
        softly
            .assertThat(response.statusCode())
            .as(what)
            .isEqualTo(route == Route.CONFIG ? 200 : 403);
        softly.assertThat(response.body()).as(what).doesNotContain(MARKER);
        if (call.body() == null && !call.method().equals("DELETE")) {
          // The same read with the right to it succeeds: the path above is a real route.
          softly
              .assertThat(clients.send(call.method(), call.path(), null, root).statusCode())
              .as("%s %s as root", call.method(), call.path())
              .isBetween(200, 204);
        }
      }
    }
    for (String missing :
        List.of(
            "/v1/namespaces/b/tables/ghost", "/v1/namespaces/ghost", "/v1/namespaces/b/views/x")) {
      softly
          .assertThat(clients.send("GET", missing, null, reader).statusCode())
          .as("GET %s (does not exist) as areader: same answer as for one that does", missing)
          .isEqualTo(403);
    }
    HttpResponse<String> namespaces = clients.send("GET", "/v1/namespaces", null, reader);
    if (namespaces.statusCode() == 200) {
      softly.assertThat(namespaces.body()).as("top-level namespaces").doesNotContain("\"b\"");
    } else {
      softly.assertThat(namespaces.statusCode()).as("GET /v1/namespaces as areader").isEqualTo(403);
    }
    HttpResponse<String> metrics = clients.send("GET", "/metrics", null, reader);
    softly
        .assertThat(metrics.statusCode())
        .as("/metrics as areader, who holds no grant for it (issue 30: metrics need a grant)")
        .isIn(403, 404);
    softly.assertThat(metrics.body()).as("/metrics as areader").doesNotContain("# HELP");
    softly
        .assertThat(clients.send("GET", "/metrics", null, root).statusCode())
        .as("/metrics as root (admin on every warehouse)")
        .isEqualTo(200);
    // Refreshing its own token gives areader a token of areader, nothing more.
    HttpResponse<String> exchanged =
        clients.tokenEndpoint(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
                + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
                + "&subject_token="
                + reader);
    softly
        .assertThat(exchanged.statusCode())
        .as("token exchange of areader's token")
        .isEqualTo(200);
    softly
        .assertThat(subject(json(exchanged).path("access_token").asText()))
        .as("principal of the exchanged token")
        .isEqualTo("areader");
    softly.assertThat(tablesOf("a")).as("tables of a (a rename target)").isEmpty();
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(5)
  void aReaderOfAnotherNamespaceIsRefusedOnEveryRpcKey() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    try (RpcConnection connection = clients.rpc()) {
      Messages.AuthenticateResponse authenticated =
          Messages.AuthenticateResponse.decode(
              connection
                  .send(
                      ApiKey.AUTHENTICATE,
                      streamRequests.body(ApiKey.AUTHENTICATE, TOKENS.get("areader")))
                  .get(10, TimeUnit.SECONDS));
      assertThat(authenticated.principal()).isEqualTo("areader");
      // A forged root token on an authenticated connection is refused and changes nothing.
      softly
          .assertThat(
              rpcError(
                  connection,
                  ApiKey.AUTHENTICATE,
                  streamRequests.body(ApiKey.AUTHENTICATE, forger.forged("root"))))
          .as("AUTHENTICATE with a forged root token after areader's")
          .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
      for (ApiKey key : ApiKey.values()) {
        if (key == ApiKey.AUTHENTICATE) {
          continue;
        }
        softly
            .assertThat(rpcError(connection, key, streamRequests.body(key, null)))
            .as("%s on namespace b as areader", key)
            .isEqualTo(ErrorCode.NOT_AUTHORIZED);
      }
    }
    // The same reads succeed for the victim's owner: the requests above are well formed.
    try (RpcConnection connection = clients.rpc()) {
      connection
          .send(ApiKey.AUTHENTICATE, streamRequests.body(ApiKey.AUTHENTICATE, TOKENS.get("bowner")))
          .get(10, TimeUnit.SECONDS);
      for (ApiKey key :
          EnumSet.of(
              ApiKey.METADATA,
              ApiKey.FETCH,
              ApiKey.LIST_OFFSETS,
              ApiKey.LIST_TABLES,
              ApiKey.DESCRIBE_TABLE,
              ApiKey.LIST_PARTITIONS,
              ApiKey.LOOKUP,
              ApiKey.PREFIX_LOOKUP,
              ApiKey.SCAN_KV)) {
        softly
            .assertThat(rpcError(connection, key, streamRequests.body(key, null)))
            .as("%s on namespace b as bowner", key)
            .isEqualTo(ErrorCode.NONE);
      }
    }
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(6)
  void aReaderOfAnotherNamespaceCannotReadOrWriteTheVictimThroughFlightSql() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    CallOption[] reader = bearer(TOKENS.get("areader"));
    String url = clients.jdbcUrl(TOKENS.get("areader"));
    Path victimDirectory = Path.of(URI.create(victimLocation));
    List<String> queries =
        List.of(
            "SELECT * FROM b.t",
            "SELECT * FROM \"b\".\"t\"",
            "SELECT count(*) FROM b.kv",
            "SELECT * FROM b.v",
            "WITH x AS (SELECT * FROM b.t) SELECT * FROM x",
            "SELECT 1 WHERE EXISTS (SELECT 1 FROM b.t)",
            // The engine's file functions must not read around the views (issue 30).
            "SELECT * FROM read_parquet('" + victimDirectory + "/data/*.parquet')",
            "SELECT * FROM read_parquet('" + victimDirectory + "/**/*.parquet')",
            "SELECT * FROM glob('" + victimDirectory + "/**')",
            "SELECT * FROM read_text('" + victimMetadata.replaceFirst("^file:", "") + "')",
            "SELECT * FROM read_blob('" + victimDirectory + "/**')");
    for (String sql : queries) {
      softly
          .assertThatThrownBy(() -> jdbcRows(url, sql))
          .as("JDBC: %s", sql)
          .isInstanceOf(SQLException.class);
      softly
          .assertThatThrownBy(() -> clients.rows(clients.flightSql().execute(sql, reader), reader))
          .as("Flight SQL: %s", sql)
          .isInstanceOf(FlightRuntimeException.class);
    }
    softly
        .assertThatThrownBy(
            () -> {
              try (FlightSqlClient.PreparedStatement prepared =
                  clients.flightSql().prepare("SELECT * FROM b.t", reader)) {
                clients.rows(prepared.execute(reader), reader);
              }
            })
        .as("prepared SELECT * FROM b.t")
        .isInstanceOf(FlightRuntimeException.class);
    for (String update :
        List.of(
            "INSERT INTO b.t VALUES (1000, 'attacker')",
            "INSERT INTO b.kv VALUES (1, 'attacker')",
            "DELETE FROM b.kv WHERE id = 1",
            "UPDATE b.kv SET name = 'attacker'")) {
      softly
          .assertThatThrownBy(() -> clients.flightSql().executeUpdate(update, reader))
          .as("Flight SQL update: %s", update)
          .isInstanceOf(FlightRuntimeException.class);
      softly
          .assertThatThrownBy(() -> jdbcUpdate(url, update))
          .as("JDBC update: %s", update)
          .isInstanceOf(SQLException.class);
    }
    expectFlightStatus(
        softly,
        "DoPut ingest into b.t",
        FlightStatusCode.UNAUTHORIZED,
        () -> clients.putRows(FlightDescriptor.path("b", "t"), reader));
    softly
        .assertThatThrownBy(() -> clients.bulkIngest(reader))
        .as("bulk ingest command into b.t")
        .isInstanceOf(FlightRuntimeException.class);
    softly
        .assertThatThrownBy(
            () ->
                clients.rows(
                    clients.flightSql().getPrimaryKeys(TableRef.of(null, "b", "kv"), reader),
                    reader))
        .as("getPrimaryKeys of b.kv")
        .isInstanceOf(FlightRuntimeException.class);

    List<List<String>> tables =
        clients.rows(clients.flightSql().getTables(null, null, null, null, true, reader), reader);
    softly
        .assertThat(tables)
        .as("getTables")
        .allSatisfy(row -> assertThat(row.get(1)).isNotEqualTo("b"));
    List<List<String>> filtered =
        clients.rows(clients.flightSql().getTables(null, "b", "%", null, false, reader), reader);
    softly.assertThat(filtered).as("getTables in schema b").isEmpty();
    CallOption[] owner = bearer(TOKENS.get("bowner"));
    softly
        .assertThat(
            clients.rows(clients.flightSql().getTables(null, "b", "%", null, false, owner), owner))
        .as("getTables in schema b as bowner, who may read it")
        .extracting(row -> row.get(2))
        .contains("t", "kv");
    List<List<String>> schemas =
        clients.rows(clients.flightSql().getSchemas(null, null, reader), reader);
    softly
        .assertThat(schemas)
        .as("getSchemas")
        .allSatisfy(row -> assertThat(row.get(1)).isNotEqualTo("b"));
    try (java.sql.Connection connection = DriverManager.getConnection(url)) {
      List<String> names = new ArrayList<>();
      try (ResultSet result = connection.getMetaData().getTables(null, null, "%", null)) {
        while (result.next()) {
          names.add(result.getString("TABLE_SCHEM") + "." + result.getString("TABLE_NAME"));
        }
      }
      try (ResultSet result = connection.getMetaData().getSchemas()) {
        while (result.next()) {
          names.add(result.getString("TABLE_SCHEM"));
        }
      }
      softly
          .assertThat(names)
          .as("JDBC metadata")
          .noneMatch(name -> name.equals("b") || name.startsWith("b."));
    }

    // A result ticket belongs to whoever ran the query.
    FlightInfo ownersQuery = clients.flightSql().execute("SELECT * FROM b.t", owner);
    for (FlightEndpoint endpoint : ownersQuery.getEndpoints()) {
      softly
          .assertThatThrownBy(
              () -> drain(clients.flightSql().getStream(endpoint.getTicket(), reader)))
          .as("areader fetching bowner's result ticket")
          .isInstanceOf(FlightRuntimeException.class);
      // ... and cannot take it from its owner by trying.
      long rows = 0;
      try (FlightStream stream = clients.flightSql().getStream(endpoint.getTicket(), owner)) {
        while (stream.next()) {
          rows += stream.getRoot().getRowCount();
        }
      }
      softly
          .assertThat(rows)
          .as("bowner's rows after areader tried the ticket")
          .isEqualTo(LOG_ROWS);
    }
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  // ---- (d): a writer of another namespace aims table and namespace locations at the victim

  @Test
  @Order(7)
  void aWriterOfAnotherNamespaceCannotPlaceATableOnOrAroundTheVictimsFiles() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    String writer = TOKENS.get("awriter");
    String victim = stripSlash(victimLocation);
    String warehouseUri = stripSlash(warehouse.toUri().toString());
    boolean rootMetadataExisted = Files.isDirectory(FILE_SYSTEM_ROOT_METADATA);
    Set<Path> rootMetadataBefore = filesIn(FILE_SYSTEM_ROOT_METADATA);
    Map<String, String> locations = new LinkedHashMap<>();
    locations.put("evil", victim); // the victim's own directory
    locations.put("inside", victim + "/data/inner");
    locations.put("around", warehouseUri + "/b");
    locations.put("warehouseroot", warehouseUri);
    locations.put("dotdot", warehouseUri + "/a/x/../../b/t");
    locations.put("tmpuri", outside.toUri().toString());
    locations.put("tmppath", outside.resolve("plain").toString());
    locations.put("fsroot", "file:/");
    for (Map.Entry<String, String> location : locations.entrySet()) {
      for (boolean staged : new boolean[] {false, true}) {
        String name = location.getKey() + (staged ? "staged" : "");
        HttpResponse<String> response =
            clients.send(
                "POST",
                "/v1/namespaces/a/tables",
                "{\"name\":\""
                    + name
                    + "\",\"schema\":"
                    + VictimRoutes.SCHEMA
                    + ",\"location\":\""
                    + location.getValue()
                    + "\",\"stage-create\":"
                    + staged
                    + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\","
                    + "\"lakestream.tiering.interval\":\"1s\"}}",
                writer);
        softly
            .assertThat(response.statusCode())
            .as(
                "awriter creates a.%s at %s%s",
                name, location.getValue(), staged ? " (staged)" : "")
            .isBetween(400, 499);
      }
    }
    for (String property : List.of("write.data.path", "write.metadata.path")) {
      String name = property.replace('.', '_');
      HttpResponse<String> response =
          clients.send(
              "POST",
              "/v1/namespaces/a/tables",
              "{\"name\":\""
                  + name
                  + "\",\"schema\":"
                  + VictimRoutes.SCHEMA
                  + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\","
                  + "\"lakestream.tiering.interval\":\"1s\",\""
                  + property
                  + "\":\""
                  + victim
                  + (property.equals("write.data.path") ? "/data" : "/metadata")
                  + "\"}}",
              writer);
      softly
          .assertThat(response.statusCode())
          .as("awriter creates a.%s with %s inside b.t", name, property)
          .isBetween(400, 499);
    }
    try (RpcConnection connection = clients.rpc()) {
      connection
          .send(ApiKey.AUTHENTICATE, new Messages.AuthenticateRequest(writer).encode())
          .get(10, TimeUnit.SECONDS);
      ByteBuffer create =
          new io.lakestream.client.rpc.AdminMessages.CreateTableRequest(
                  null,
                  List.of("a"),
                  "rpcdatapath",
                  SchemaParser.toJson(SCHEMA),
                  "",
                  Map.of("lakestream.kind", "log", "write.data.path", victim + "/data"))
              .encode();
      softly
          .assertThat(rpcError(connection, ApiKey.CREATE_TABLE, new ByteBuffer[] {create}))
          .as("awriter creates a.rpcdatapath over RPC with write.data.path inside b.t")
          .isIn(
              ErrorCode.INVALID_TABLE_DEFINITION,
              ErrorCode.NOT_AUTHORIZED,
              ErrorCode.INVALID_REQUEST);
    }
    softly.assertThat(tablesOf("a")).as("tables of a after the refused creations").isEmpty();
    softly.assertThat(outside).as("directory outside the warehouse").doesNotExist();
    Set<Path> rootMetadataWritten = new TreeSet<>(filesIn(FILE_SYSTEM_ROOT_METADATA));
    rootMetadataWritten.removeAll(rootMetadataBefore);
    softly
        .assertThat(rootMetadataWritten)
        .as("metadata files the server wrote at the root of the file system")
        .isEmpty();
    for (Path written : rootMetadataWritten) {
      Files.deleteIfExists(written); // this test's own garbage, where no test should write
    }
    if (!rootMetadataExisted && filesIn(FILE_SYSTEM_ROOT_METADATA).isEmpty()) {
      Files.deleteIfExists(FILE_SYSTEM_ROOT_METADATA);
    }
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(8)
  void aWriterOfAnotherNamespaceCannotRegisterTheVictimsMetadata() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    String writer = TOKENS.get("awriter");
    HttpResponse<String> response =
        clients.send(
            "POST",
            "/v1/namespaces/a/register",
            "{\"name\":\"stolen\",\"metadata-location\":\"" + victimMetadata + "\"}",
            writer);
    softly
        .assertThat(response.statusCode())
        .as("awriter registers b.t's metadata as a.stolen")
        .isBetween(400, 499);
    softly.assertThat(response.body()).as("the answer to that register").doesNotContain(MARKER);
    softly
        .assertThatThrownBy(() -> jdbcRows(clients.jdbcUrl(writer), "SELECT * FROM a.stolen"))
        .as("awriter reads a.stolen through Flight SQL")
        .isInstanceOf(SQLException.class);
    softly.assertThat(tablesOf("a")).as("tables of a").doesNotContain("stolen");
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(9)
  void aWriterOfAnotherNamespaceCannotMoveItsOwnTableOntoTheVictim() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    String writer = TOKENS.get("awriter");
    String victim = stripSlash(victimLocation);
    HttpResponse<String> own =
        clients.send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"own\",\"schema\":"
                + VictimRoutes.SCHEMA
                + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\","
                + "\"lakestream.tiering.interval\":\"1s\"}}",
            writer);
    assertThat(own.statusCode()).as("awriter creates a.own in its own namespace").isEqualTo(200);
    String ownMetadata = json(own).path("metadata-location").asText();
    Map<String, String> updates = new LinkedHashMap<>();
    updates.put(
        "set-location to b.t", "{\"action\":\"set-location\",\"location\":\"" + victim + "\"}");
    updates.put(
        "set-location inside b.t",
        "{\"action\":\"set-location\",\"location\":\"" + victim + "/data/inner\"}");
    updates.put(
        "set-location outside the warehouse",
        "{\"action\":\"set-location\",\"location\":\"" + outside.toUri() + "\"}");
    updates.put(
        "set-location with ..",
        "{\"action\":\"set-location\",\"location\":\""
            + stripSlash(warehouse.toUri().toString())
            + "/a/own/../../b/t\"}");
    updates.put(
        "write.data.path into b.t",
        "{\"action\":\"set-properties\",\"updates\":{\"write.data.path\":\""
            + victim
            + "/data\"}}");
    for (Map.Entry<String, String> update : updates.entrySet()) {
      String body = "{\"requirements\":[],\"updates\":[" + update.getValue() + "]}";
      softly
          .assertThat(
              clients.send("POST", "/v1/namespaces/a/tables/own", body, writer).statusCode())
          .as("awriter commits %s on a.own", update.getKey())
          .isBetween(400, 499);
      String transaction =
          "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"a\"],\"name\":\"own\"},"
              + "\"requirements\":[],\"updates\":["
              + update.getValue()
              + "]}]}";
      softly
          .assertThat(
              clients.send("POST", "/v1/transactions/commit", transaction, writer).statusCode())
          .as("awriter commits %s on a.own in a transaction", update.getKey())
          .isBetween(400, 499);
    }
    JsonNode after = json(clients.send("GET", "/v1/namespaces/a/tables/own", null, writer));
    softly
        .assertThat(after.path("metadata-location").asText())
        .as("a.own's metadata after the refused commits")
        .isEqualTo(ownMetadata);
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(10)
  void aWriterOfAnotherNamespaceCannotGiveANamespaceTheVictimsLocation() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    String writer = TOKENS.get("awriter");
    String victim = stripSlash(victimLocation);
    Map<String, String> locations = new LinkedHashMap<>();
    locations.put("victim", victim);
    locations.put("outside", outside.toUri().toString());
    locations.put("dotdot", stripSlash(warehouse.toUri().toString()) + "/a/../b/t");
    for (Map.Entry<String, String> location : locations.entrySet()) {
      softly
          .assertThat(
              clients
                  .send(
                      "POST",
                      "/v1/namespaces",
                      "{\"namespace\":[\"a\",\""
                          + location.getKey()
                          + "\"],\"properties\":{\"location\":\""
                          + location.getValue()
                          + "\"}}",
                      writer)
                  .statusCode())
          .as("awriter creates namespace a.%s at %s", location.getKey(), location.getValue())
          .isBetween(400, 499);
      softly
          .assertThat(
              clients
                  .send(
                      "POST",
                      "/v1/namespaces/a/properties",
                      "{\"removals\":[],\"updates\":{\"location\":\""
                          + location.getValue()
                          + "\"}}",
                      writer)
                  .statusCode())
          .as("awriter sets namespace a's location to %s", location.getValue())
          .isBetween(400, 499);
    }
    // Whatever the namespace says, a table created in it afterwards must not land on the victim.
    HttpResponse<String> placed =
        clients.send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"t\",\"schema\":"
                + VictimRoutes.SCHEMA
                + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\"}}",
            writer);
    if (placed.statusCode() == 200) {
      String location = json(placed).path("metadata").path("location").asText();
      Path directory = Path.of(URI.create(location)).normalize();
      softly
          .assertThat(directory.startsWith(Path.of(URI.create(victimLocation)).normalize()))
          .as("directory of a.t (%s), created after the namespace attempts, is in b.t's", location)
          .isFalse();
      softly
          .assertThat(directory)
          .as("directory of a.t (%s), created after the namespace attempts", location)
          .startsWithRaw(warehouse.resolve("a"));
    }
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  @Test
  @Order(11)
  void theVictimsFilesAndRowsSurviveTheOrphanFileSweep() throws Exception {
    // A canary table in a: once tiering committed a second round for it, a whole tiering tick,
    // with its orphan sweep of every streaming table (orphan age 1 s), ran after all attempts
    // above.
    HttpResponse<String> canary =
        clients.send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"canary\",\"schema\":"
                + VictimRoutes.SCHEMA
                + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\","
                + "\"lakestream.tiering.interval\":\"1s\"}}",
            TOKENS.get("awriter"));
    assertThat(canary.statusCode()).as(canary.body()).isEqualTo(200);
    for (int round = 1; round <= 2; round++) {
      try (Connection writer = Connection.open("127.0.0.1", rpcPort, TOKENS.get("awriter"));
          AppendWriter rows = writer.table(TablePath.of("a.canary")).newAppendWriter()) {
        rows.append((long) round, "canary");
        rows.flush();
      }
      awaitTiered("a", "canary", round);
    }
    SoftAssertions softly = new SoftAssertions();
    // No table here has files tiering wrote and never committed: a sweep that deletes any deleted
    // another table's files.
    softly
        .assertThat(server.stdout().lines().filter(line -> line.contains("that tiering wrote")))
        .as("orphan sweeps that deleted files")
        .isEmpty();
    checkVictimUnchanged(softly);
    softly.assertAll();
  }

  // ---- the victim

  /** Adds to {@code softly} every difference between the victim now and at the start. */
  private static void checkVictimUnchanged(SoftAssertions softly) throws Exception {
    before.checkUnchanged(
        VictimState.capture(
            clients, rootCatalog, warehouse, TOKENS.get("root"), TOKENS.get("bowner")),
        softly);
  }

  private static List<String> tablesOf(String namespace) throws Exception {
    return VictimState.names(
        json(
            clients.send(
                "GET", "/v1/namespaces/" + namespace + "/tables", null, TOKENS.get("root"))));
  }

  /** Waits until tiering has committed at least {@code rounds} rounds of a table and has no lag. */
  private static void awaitTiered(String namespace, String table, int rounds) throws Exception {
    long deadline = System.nanoTime() + TIERING_TIMEOUT.toNanos();
    String path = "/v1/namespaces/" + namespace + "/tables/" + table + "/tiering";
    while (true) {
      HttpResponse<String> response = clients.send("GET", path, null, TOKENS.get("root"));
      JsonNode status = response.statusCode() == 200 ? json(response) : JSON.createObjectNode();
      if (status.path("rounds").path("committed").asLong() >= rounds
          && status.path("lag-rows").asLong(-1) == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail(
            "%s.%s not tiered %d rounds within %s: %s",
            namespace, table, rounds, TIERING_TIMEOUT, response.body());
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  private static ByteBuffer firstBatch(Table table) throws Exception {
    ByteBuffer batches =
        table
            .fetch(0, 0, 1 << 20, 0, new int[0], ByteBuffer.allocate(0))
            .get(10, TimeUnit.SECONDS)
            .batches();
    int size = LogBatch.wrap(batches.duplicate()).sizeInBytes();
    ByteBuffer copy = ByteBuffer.allocate(size);
    copy.put(batches.duplicate().limit(batches.position() + size));
    return copy.flip();
  }

  // ---- helpers

  private static String basic(String client, String secret) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((client + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  /** The subject of a JWT, read without checking it. */
  private static String subject(String token) throws IOException {
    String[] parts = token.split("\\.");
    return JSON.readTree(Base64.getUrlDecoder().decode(parts[1])).path("sub").asText();
  }

  private static String stripSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }

  /** A Flight call that must fail with one status code. */
  private interface FlightCall {
    Object run() throws Exception;
  }

  private static void expectFlightStatus(
      SoftAssertions softly, String what, FlightStatusCode expected, FlightCall call) {
    try {
      Object result = call.run();
      softly.fail("%s succeeded: %s", what, result);
    } catch (FlightRuntimeException e) {
      softly.assertThat(e.status().code()).as("%s: %s", what, e.getMessage()).isEqualTo(expected);
    } catch (Exception e) {
      softly.fail("%s failed with %s", what, e);
    }
  }

  private static void drain(FlightStream stream) throws Exception {
    try (stream) {
      while (stream.next()) {
        // Every batch is read, so that an error after the first reaches the caller.
      }
    }
  }

  /** The files directly in a directory, none when it does not exist. */
  private static Set<Path> filesIn(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.collect(java.util.stream.Collectors.toSet());
    }
  }

  private static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(directory)) {
      for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
