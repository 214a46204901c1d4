package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcException;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlConnectionProperties;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code auth.mode=oauth2}, ingest over Flight needs an authenticated principal with a write
 * grant on the table's namespace; read-only principals and anonymous calls are refused and write
 * nothing.
 */
class FlightIngestAuthTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .oauth2(
              "writer:w-secret,analyst:a-secret",
              "writer:write:default,analyst:read:default.secure")
          .catalogCredential("writer:w-secret")
          .build();

  private static LakestreamServer server;
  private static String base;
  private static BufferAllocator allocator;
  private static FlightClient flight;

  @BeforeAll
  static void start() throws Exception {
    server = LAKESTREAM.server();
    base = LAKESTREAM.base();
    {
      RESTCatalog catalog = LAKESTREAM.catalog();
      catalog.createNamespace(Namespace.of("secure"), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of("secure", "events"),
          IngestRows.icebergSchema(),
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    }
    allocator = new RootAllocator();
    flight =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.flightPort()))
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    flight.close();
    allocator.close();
  }

  private static void put(long first, int count, CallOption... options) {
    try (VectorSchemaRoot root = IngestRows.batch(allocator, first, count)) {
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener stream =
          flight.startPut(FlightDescriptor.path("secure", "events"), root, listener, options);
      stream.putNext();
      stream.completed();
      stream.getResult();
      listener.close();
    }
  }

  private static long stored() throws Exception {
    try (Connection connection =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"))) {
      return IngestRows.stored(connection, "secure.events");
    }
  }

  /**
   * ADBC with client credentials, and with its cookie middleware: its Java driver sends no
   * credentials with a prepared statement's execution, the server's token cookie covers that call.
   */
  private static AdbcDatabase adbc(String user, String password) throws AdbcException {
    Map<String, Object> parameters = new HashMap<>();
    FlightSqlConnectionProperties.WITH_COOKIE_MIDDLEWARE.set(parameters, true);
    AdbcDriver.PARAM_URI.set(parameters, "grpc+tcp://127.0.0.1:" + server.flightPort());
    AdbcDriver.PARAM_USERNAME.set(parameters, user);
    AdbcDriver.PARAM_PASSWORD.set(parameters, password);
    return new FlightSqlDriver(allocator).open(parameters);
  }

  @Test
  void onlyPrincipalsWithAWriteGrantIngest() throws Exception {
    assertThatThrownBy(() -> put(0, 10))
        .isInstanceOf(FlightRuntimeException.class)
        .satisfies(
            e ->
                assertThat(((FlightRuntimeException) e).status().code())
                    .isEqualTo(FlightStatusCode.UNAUTHENTICATED))
        .hasMessageContaining("Authentication required");

    CallOption analyst = flight.authenticateBasicToken("analyst", "a-secret").orElseThrow();
    assertThatThrownBy(() -> put(0, 10, analyst))
        .isInstanceOf(FlightRuntimeException.class)
        .satisfies(
            e ->
                assertThat(((FlightRuntimeException) e).status().code())
                    .isEqualTo(FlightStatusCode.UNAUTHORIZED))
        .hasMessageContaining("Principal analyst lacks write privilege on default.secure");
    try (AdbcDatabase database = adbc("analyst", "a-secret");
        AdbcConnection adbc = database.connect();
        VectorSchemaRoot root = IngestRows.batch(allocator, 0, 10);
        AdbcStatement ingest = adbc.bulkIngest("secure.events", BulkIngestMode.APPEND)) {
      ingest.bind(root);
      assertThatThrownBy(ingest::executeUpdate)
          .isInstanceOf(AdbcException.class)
          .hasStackTraceContaining("Principal analyst lacks write privilege on default.secure");
    }
    assertThat(stored()).isZero();

    // The writer ingests with a basic-to-bearer handshake, a catalog token, and through ADBC.
    put(0, 100, flight.authenticateBasicToken("writer", "w-secret").orElseThrow());
    FlightCallHeaders bearer = new FlightCallHeaders();
    bearer.insert("authorization", "Bearer " + LAKESTREAM.token("writer", "w-secret"));
    put(100, 100, new HeaderCallOption(bearer));
    try (AdbcDatabase database = adbc("writer", "w-secret");
        AdbcConnection adbc = database.connect();
        VectorSchemaRoot root = IngestRows.batch(allocator, 200, 50);
        AdbcStatement ingest = adbc.bulkIngest("secure.events", BulkIngestMode.APPEND)) {
      ingest.bind(root);
      assertThat(ingest.executeUpdate().getAffectedRows()).isEqualTo(50);
    }
    // The token cookie alone authenticates too; a forged one does not.
    FlightCallHeaders cookie = new FlightCallHeaders();
    cookie.insert("cookie", "other=1; lakestream-token=" + LAKESTREAM.token("writer", "w-secret"));
    put(250, 10, new HeaderCallOption(cookie));
    FlightCallHeaders forged = new FlightCallHeaders();
    forged.insert("cookie", "lakestream-token=forged.token.value");
    assertThatThrownBy(() -> put(260, 10, new HeaderCallOption(forged)))
        .isInstanceOf(FlightRuntimeException.class)
        .satisfies(
            e ->
                assertThat(((FlightRuntimeException) e).status().code())
                    .isEqualTo(FlightStatusCode.UNAUTHENTICATED))
        .hasMessageContaining("Cookie lakestream-token");
    assertThat(stored()).isEqualTo(260);
    try (Connection connection =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"))) {
      Map<Long, Object[]> rows = new TreeMap<>();
      for (IngestRows.Stored row : IngestRows.scanAll(connection, "secure.events")) {
        assertThat(rows.put((Long) row.values()[0], row.values())).isNull();
      }
      List<Long> ids = LongStream.range(0, 260).boxed().toList();
      assertThat(rows.keySet()).containsExactlyElementsOf(ids);
      ids.forEach(id -> assertThat(rows.get(id)).containsExactly(IngestRows.row(id)));
    }
  }
}
