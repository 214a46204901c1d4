package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flight SQL endpoint's settings seen through the real JDBC driver: TLS with a certificate the
 * client must trust, the per-query memory limit as a clear error that leaves the server serving,
 * and the XDBC type info behind {@code DatabaseMetaData.getTypeInfo()}.
 */
class FlightSqlServerSettingsTest {
  private static final String PASSWORD = "changeit";

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static Path trustStore;
  private static Path chain;

  @BeforeAll
  static void start() throws Exception {
    Path keyStore = data.resolve("server.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "lakestream",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=localhost",
        "-ext",
        "SAN=ip:127.0.0.1,dns:localhost",
        "-validity",
        "2",
        "-keystore",
        keyStore.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(keyStore.toFile())) {
      store.load(in, PASSWORD.toCharArray());
    }
    Key key = store.getKey("lakestream", PASSWORD.toCharArray());
    Certificate certificate = store.getCertificate("lakestream");
    chain =
        Files.writeString(data.resolve("chain.pem"), pem("CERTIFICATE", certificate.getEncoded()));
    Path privateKey =
        Files.writeString(data.resolve("key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    trustStore = data.resolve("trust.p12");
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("lakestream", certificate);
    try (var out = Files.newOutputStream(trustStore)) {
      trust.store(out, PASSWORD.toCharArray());
    }
    lakestream =
        EmbeddedLakestream.start(
            data.resolve("server"),
            Map.of(
                "tiering.enabled", "false",
                "flight.tls.certificate-chain", chain.toString(),
                "flight.tls.private-key", privateKey.toString(),
                "flight.query-memory-limit", "32mb",
                "flight.query-threads", "1"));
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static void keytool(String... args) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = new ArrayList<>(List.of(keytool.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
    assertThat(process.exitValue()).as("keytool: %s", output).isZero();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private static String url(String options) {
    return "jdbc:arrow-flight-sql://localhost:" + lakestream.server().flightPort() + "?" + options;
  }

  private static Connection trusted() throws SQLException {
    return DriverManager.getConnection(
        url(
            "useEncryption=true&useSystemTrustStore=false&trustStore="
                + trustStore
                + "&trustStorePassword="
                + PASSWORD));
  }

  private static long single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      assertThat(result.next()).isTrue();
      return result.getLong(1);
    }
  }

  @Test
  void clientsThatTrustTheCertificateQueryOverTls() throws SQLException {
    try (Connection connection = trusted()) {
      assertThat(single(connection, "SELECT 6 * 7")).isEqualTo(42);
    }
  }

  @Test
  void plaintextAndUntrustingClientsAreTurnedAway() {
    assertThatThrownBy(
            () -> {
              try (Connection connection =
                  DriverManager.getConnection(url("useEncryption=false"))) {
                single(connection, "SELECT 1");
              }
            })
        .isInstanceOf(SQLException.class);
    assertThatThrownBy(
            () -> {
              try (Connection connection =
                  DriverManager.getConnection(url("useEncryption=true&useSystemTrustStore=true"))) {
                single(connection, "SELECT 1");
              }
            })
        .isInstanceOf(SQLException.class);
  }

  @Test
  void queriesRunWithoutPushingPartialAggregatesBelowJoins() throws SQLException {
    // Over union views (lake files UNION ALL the log tail) DuckDB pushed TPC-H Q5's aggregate below
    // its joins and grouped all of lineitem first: 1.3 s against 0.68 s without that rule.
    try (Connection connection = trusted()) {
      assertThat(
              single(
                  connection,
                  "SELECT count(*) FROM (SELECT current_setting('disabled_optimizers') AS s)"
                      + " WHERE s LIKE '%partial_aggregate_pushdown%'"))
          .isEqualTo(1);
    }
  }

  @Test
  void aQueryOverItsMemoryLimitFailsClearlyAndTheServerGoesOn() throws SQLException {
    try (Connection connection = trusted()) {
      assertThatThrownBy(
              () ->
                  single(
                      connection,
                      "SELECT length(list(range::VARCHAR || 'padding padding padding'))"
                          + " FROM range(20000000)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("memory limit");
      assertThat(single(connection, "SELECT count(*) FROM range(1000)")).isEqualTo(1000);
    }
  }

  @Test
  void typeInfoListsTypesTheEngineReturnsWithTheCodesTheDriverReports() throws Exception {
    List<String> names = new ArrayList<>();
    List<Integer> codes = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        InputStream certificate = Files.newInputStream(chain);
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        allocator,
                        Location.forGrpcTls("localhost", lakestream.server().flightPort()))
                    .trustedCertificates(certificate)
                    .build())) {
      FlightInfo info = client.getXdbcTypeInfo();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            VectorSchemaRoot root = stream.getRoot();
            for (int row = 0; row < root.getRowCount(); row++) {
              names.add(root.getVector("type_name").getObject(row).toString());
              codes.add((Integer) root.getVector("data_type").getObject(row));
            }
          }
        }
      }
      FlightInfo bigints = client.getXdbcTypeInfo(java.sql.Types.BIGINT);
      try (FlightStream stream = client.getStream(bigints.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        assertThat(stream.getRoot().getRowCount()).isEqualTo(1);
        assertThat(stream.getRoot().getVector("type_name").getObject(0).toString())
            .isEqualTo("BIGINT");
      }
    }
    assertThat(names).contains("BIGINT", "VARCHAR", "DECIMAL", "TIMESTAMP", "BOOLEAN");
    assertThat(codes).as("ordered by DATA_TYPE").isSorted();
    try (Connection connection = trusted()) {
      for (int i = 0; i < names.size(); i++) {
        try (Statement statement = connection.createStatement();
            ResultSet result =
                statement.executeQuery("SELECT CAST(NULL AS " + names.get(i) + ") AS v")) {
          assertThat(result.getMetaData().getColumnType(1))
              .as("JDBC type of a %s result", names.get(i))
              .isEqualTo(codes.get(i));
        }
      }
    }
  }
}
