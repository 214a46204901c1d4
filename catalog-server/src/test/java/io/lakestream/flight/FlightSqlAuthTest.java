package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * With {@code auth.mode=oauth2} the Flight SQL endpoint takes the catalog's client credentials
 * (user and password, answered with a bearer token) or its tokens, and enforces read grants.
 */
class FlightSqlAuthTest {
  private static final int ROWS = 10;

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .oauth2(
              "writer:w-secret,analyst:a-secret,outsider:o-secret",
              "writer:write:default,analyst:read:default.secure,outsider:read:default.other")
          .catalogCredential("writer:w-secret")
          .build();

  private static LakestreamServer server;
  private static String base;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    server = LAKESTREAM.server();
    base = LAKESTREAM.base();
    url = "jdbc:arrow-flight-sql://127.0.0.1:" + server.flightPort() + "?useEncryption=false";
    {
      RESTCatalog catalog = LAKESTREAM.catalog();
      catalog.createNamespace(Namespace.of("secure"), new HashMap<>());
      catalog.createNamespace(Namespace.of("other"), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of("secure", "events"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log")));
    }
    try (Connection writer =
            Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"));
        AppendWriter append =
            writer.table(TablePath.of("secure.events")).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < ROWS; id++) {
        append.append(id);
      }
      append.flush();
    }
  }

  private static long count(String connectionUrl) throws SQLException {
    try (java.sql.Connection connection = DriverManager.getConnection(connectionUrl);
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT count(*) FROM secure.events")) {
      result.next();
      return result.getLong(1);
    }
  }

  @Test
  void theRightClientSecretWorksAndAWrongOneIsRefused() throws SQLException {
    assertThat(count(url + "&user=analyst&password=a-secret")).isEqualTo(ROWS);
    assertThatThrownBy(() -> count(url + "&user=analyst&password=wrong"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("Invalid client credentials");
    assertThatThrownBy(() -> count(url))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("Authentication required");
  }

  @Test
  void catalogTokensWork() throws Exception {
    assertThat(count(url + "&token=" + LAKESTREAM.token("analyst", "a-secret"))).isEqualTo(ROWS);
    assertThatThrownBy(() -> count(url + "&token=forged.token.value"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("bearer token");
  }

  @Test
  void principalsWithoutAReadGrantAreRefusedAndSeeNoTables() throws SQLException {
    String outsider = url + "&user=outsider&password=o-secret";
    assertThatThrownBy(() -> count(outsider))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("outsider lacks read privilege on default.secure");
    try (java.sql.Connection connection = DriverManager.getConnection(outsider)) {
      List<String> tables = new ArrayList<>();
      try (ResultSet result = connection.getMetaData().getTables(null, null, "%", null)) {
        while (result.next()) {
          tables.add(result.getString("TABLE_SCHEM") + "." + result.getString("TABLE_NAME"));
        }
      }
      assertThat(tables).isEmpty();
    }
    try (java.sql.Connection connection =
        DriverManager.getConnection(url + "&user=analyst&password=a-secret")) {
      List<String> tables = new ArrayList<>();
      try (ResultSet result = connection.getMetaData().getTables(null, null, "%", null)) {
        while (result.next()) {
          tables.add(result.getString("TABLE_SCHEM") + "." + result.getString("TABLE_NAME"));
        }
      }
      assertThat(tables).containsExactly("secure.events");
    }
  }

  /**
   * Two principals take turns on the server's few query databases with the same statement texts: a
   * statement that names no table (which a database keeps prepared for the next query of its text)
   * answers each with its own parameters, and a statement naming a table one of them may read is
   * refused to the other every time, also right after the first ran it in the same database.
   */
  @Test
  void principalsTakingTurnsWithTheSameTextsGetOnlyTheirOwnAnswers() throws SQLException {
    String tableQuery = "SELECT count(*) FROM secure.events";
    String tableless = "SELECT CAST(? AS BIGINT) * 10 + 1";
    try (java.sql.Connection analyst =
            DriverManager.getConnection(url + "&user=analyst&password=a-secret");
        java.sql.Connection outsider =
            DriverManager.getConnection(url + "&user=outsider&password=o-secret");
        PreparedStatement analystRead = analyst.prepareStatement(tableQuery);
        PreparedStatement analystOwn = analyst.prepareStatement(tableless);
        PreparedStatement outsiderOwn = outsider.prepareStatement(tableless)) {
      for (int round = 0; round < 20; round++) {
        try (ResultSet result = analystRead.executeQuery()) {
          assertThat(result.next()).isTrue();
          assertThat(result.getLong(1)).isEqualTo(ROWS);
        }
        assertThat(single(analystOwn, round)).isEqualTo(round * 10L + 1);
        assertThat(single(outsiderOwn, 1000 + round)).isEqualTo((1000L + round) * 10 + 1);
        try (Statement statement = outsider.createStatement()) {
          assertThatThrownBy(() -> statement.executeQuery(tableQuery))
              .isInstanceOf(SQLException.class)
              .hasMessageContaining("outsider lacks read privilege on default.secure");
        }
        // The driver wraps a failed prepare in a message of its own, the server's in its cause.
        assertThatThrownBy(() -> outsider.prepareStatement(tableQuery))
            .isInstanceOf(SQLException.class)
            .hasStackTraceContaining("outsider lacks read privilege on default.secure");
      }
    }
  }

  private static long single(PreparedStatement statement, long parameter) throws SQLException {
    statement.setLong(1, parameter);
    try (ResultSet result = statement.executeQuery()) {
      assertThat(result.next()).isTrue();
      long value = result.getLong(1);
      assertThat(result.next()).isFalse();
      return value;
    }
  }
}
