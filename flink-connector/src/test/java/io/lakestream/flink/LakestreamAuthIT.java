package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TablePath;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The catalog and the sink against a server with OAuth2: client credentials reach the REST endpoint
 * and, exchanged for tokens, the stream RPC; bad credentials fail {@code CREATE CATALOG} without
 * the secret in the message.
 */
class LakestreamAuthIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static final String CLIENT_ID = "flink34";
  private static final String CLIENT_SECRET = "s3cret-of-flink34-do-not-show";
  private static final String SIGNING_KEY = "0123456789abcdef0123456789abcdef-signing-key-34";

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(1);

  private static PackagedServer server;

  @BeforeAll
  static void startServer() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("flink-auth-it-");
    server =
        PackagedServer.start(
            run,
            SERVER_START_TIMEOUT,
            "--tiering-enabled",
            "false",
            "--auth-mode",
            "oauth2",
            "--auth-clients",
            CLIENT_ID + ":" + CLIENT_SECRET,
            "--auth-grants",
            CLIENT_ID + ":admin:*",
            "--auth-token-signing-key",
            SIGNING_KEY);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void credentialsReachCatalogAndStream() throws Exception {
    TableEnvironment flink = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    flink.executeSql(catalog("ls", CLIENT_ID + ":" + CLIENT_SECRET));
    flink.executeSql("CREATE DATABASE ls.authed");
    flink.executeSql("CREATE TABLE ls.authed.events (id BIGINT NOT NULL, body STRING)");
    flink.executeSql("INSERT INTO ls.authed.events VALUES (1, 'one'), (2, 'two')").await();

    List<Long> ids = new ArrayList<>();
    String token = CatalogTokens.clientCredentials(server.baseUri(), CLIENT_ID, CLIENT_SECRET);
    try (Connection client = Connection.open("127.0.0.1", server.rpcPort(), token)) {
      io.lakestream.client.Table table =
          client.table(new TablePath(null, List.of("authed"), "events"));
      try (LogScanner scanner = table.newScanner()) {
        for (int bucket = 0; bucket < table.buckets(); bucket++) {
          scanner.subscribe(bucket, LogScanner.earliest());
        }
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (ids.size() < 2 && System.nanoTime() < deadline) {
          for (ScanBatch batch : scanner.poll(Duration.ofMillis(200))) {
            try (batch) {
              batch.rows().forEach(row -> ids.add((Long) row[0]));
            }
          }
        }
      }
    }
    assertThat(ids).containsExactlyInAnyOrder(1L, 2L);
    flink.executeSql("DROP CATALOG ls");
  }

  @Test
  void badCredentialsFailWithoutShowingTheSecret() {
    TableEnvironment flink = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    String wrongSecret = "wrong-secret-do-not-show";
    assertThatThrownBy(() -> flink.executeSql(catalog("bad", CLIENT_ID + ":" + wrongSecret)))
        .hasStackTraceContaining("Cannot open catalog bad on Lakestream server")
        .satisfies(
            failure -> {
              // Flink's own wrapper ("Could not execute CREATE CATALOG") lists every option,
              // the credential among them; the connector's messages below it name no secret.
              StringBuilder messages = new StringBuilder();
              for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
                messages.append(cause.getMessage()).append('\n');
              }
              assertThat(messages.toString())
                  .contains("Cannot open catalog bad")
                  .doesNotContain(wrongSecret);
            });
    // Anonymous: the server refuses even the catalog's configuration.
    assertThatThrownBy(() -> flink.executeSql(catalog("anonymous", null)))
        .hasStackTraceContaining("Cannot open catalog anonymous on Lakestream server")
        .hasStackTraceContaining("Not authorized");
  }

  private static String catalog(String name, String credential) {
    return "CREATE CATALOG "
        + name
        + " WITH ('type'='lakestream', 'uri'='"
        + server.baseUri()
        + "', 'rpc-address'='127.0.0.1:"
        + server.rpcPort()
        + "'"
        + (credential == null ? "" : ", 'credential'='" + credential + "'")
        + ")";
  }
}
