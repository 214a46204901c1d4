package io.lakestream.security;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcConnection;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.RestCatalogs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The ways the security walk talks to one server: raw HTTP (any method, path, body and {@code
 * Authorization} header), the raw stream RPC, the Flight SQL JDBC driver, and the raw Flight and
 * Flight SQL clients. Every call takes its credentials explicitly, so a test states who calls.
 */
final class WalkClients implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final int rpcPort;
  private final int flightPort;
  private final HttpClient http;
  private final BufferAllocator allocator;
  private final FlightClient flight;
  private final FlightSqlClient flightSql;

  /**
   * @param base the server's base URI, such as {@code http://127.0.0.1:8181}
   */
  WalkClients(String base, int rpcPort, int flightPort) {
    this.base = requireNonNull(base, "base is null");
    this.rpcPort = rpcPort;
    this.flightPort = flightPort;
    // HTTP/1.1 as the server speaks it: no h2c upgrade attempts, several times faster here.
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.allocator = new RootAllocator();
    this.flight =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", flightPort)).build();
    this.flightSql = new FlightSqlClient(flight);
  }

  int rpcPort() {
    return rpcPort;
  }

  FlightSqlClient flightSql() {
    return flightSql;
  }

  // ---- HTTP

  /** A request with a bearer token, or none when {@code token} is null. */
  HttpResponse<String> send(String method, String path, String body, String token)
      throws IOException, InterruptedException {
    return sendWithHeader(method, path, body, token == null ? null : "Bearer " + token);
  }

  /** A request with the given {@code Authorization} header, or none when it is null. */
  HttpResponse<String> sendWithHeader(String method, String path, String body, String authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A form posted to the OAuth2 token endpoint. */
  HttpResponse<String> tokenEndpoint(String form) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + "/v1/oauth/tokens"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON body of a response, failing the test unless the status is 2xx. */
  static JsonNode json(HttpResponse<String> response) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    return JSON.readTree(response.body());
  }

  /** An Iceberg REST client with client credentials ({@code id:secret}). */
  RESTCatalog catalog(String credential) {
    return RestCatalogs.open(base, credential);
  }

  // ---- RPC

  RpcConnection rpc() throws IOException {
    return RpcConnection.open("127.0.0.1", rpcPort, Duration.ofSeconds(5));
  }

  /** The error a request is answered with, {@link ErrorCode#NONE} if it succeeds. */
  static ErrorCode rpcError(RpcConnection connection, ApiKey key, ByteBuffer... body)
      throws InterruptedException, TimeoutException {
    try {
      connection.send(key, body).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause() instanceof RpcException rpc
          ? rpc.error()
          : ErrorCode.UNKNOWN_SERVER_ERROR;
    }
    return ErrorCode.NONE;
  }

  // ---- Flight SQL

  /** The JDBC URL with a token, or with no credentials when {@code token} is null. */
  String jdbcUrl(String token) {
    String url = "jdbc:arrow-flight-sql://127.0.0.1:" + flightPort + "?useEncryption=false";
    return token == null ? url : url + "&token=" + token;
  }

  /** Every row of a query through the JDBC driver, each as its values joined by {@code |}. */
  static List<String> jdbcRows(String url, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        StringBuilder row = new StringBuilder();
        for (int column = 1; column <= columns; column++) {
          row.append(column > 1 ? "|" : "").append(result.getString(column));
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }

  static void jdbcUpdate(String url, String sql) throws SQLException {
    try (java.sql.Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.executeUpdate(sql);
    }
  }

  /** The call option that sends a bearer token. */
  static CallOption[] bearer(String token) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("authorization", "Bearer " + token);
    return new CallOption[] {new HeaderCallOption(headers)};
  }

  /** Every row of a Flight SQL result, each value as text. */
  List<List<String>> rows(FlightInfo info, CallOption... options) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = flightSql.getStream(endpoint.getTicket(), options)) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          for (int row = 0; row < root.getRowCount(); row++) {
            List<String> values = new ArrayList<>();
            for (FieldVector vector : root.getFieldVectors()) {
              values.add(String.valueOf(vector.getObject(row)));
            }
            rows.add(values);
          }
        }
      }
    }
    return rows;
  }

  /** Sends one row ({@code 1000, 'attacker'}) by a plain DoPut to a path descriptor. */
  String putRows(FlightDescriptor descriptor, CallOption... options) throws Exception {
    try (VectorSchemaRoot root = attackRows()) {
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener stream =
          flight.startPut(descriptor, root, listener, options);
      stream.putNext();
      stream.completed();
      stream.getResult();
      listener.close();
      return "the put completed";
    }
  }

  /** Appends one row to {@code b.t} with the Flight SQL bulk ingest command. */
  long bulkIngest(CallOption... options) {
    try (VectorSchemaRoot root = attackRows()) {
      return flightSql.executeIngest(
          root,
          new FlightSqlClient.ExecuteIngestOptions(
              "t",
              TableDefinitionOptions.newBuilder()
                  .setIfNotExist(
                      TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
                  .setIfExists(TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
                  .build(),
              null,
              "b",
              Map.of()),
          options);
    }
  }

  private VectorSchemaRoot attackRows() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    id.allocateNew(1);
    name.allocateNew(1);
    id.set(0, 1000L);
    name.setSafe(0, "attacker".getBytes(StandardCharsets.UTF_8));
    root.setRowCount(1);
    return root;
  }

  @Override
  public void close() throws Exception {
    flight.close();
    allocator.close();
  }
}
