package io.lakestream.tiering.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tiering job against a server with OAuth2 ({@code auth.mode=oauth2}) and tiering off: with
 * {@code --credential client-id:client-secret} its catalog client and its stream RPC connection
 * (tokens from the server's token endpoint) list, read and commit; the rows written show up in
 * Iceberg once each.
 */
class TieringJobAuthIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final String CLIENT_ID = "tierer34";
  private static final String CLIENT_SECRET = "s3cret-of-tierer34-do-not-show";
  private static final String SIGNING_KEY = "0123456789abcdef0123456789abcdef-signing-key-34";

  @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

  private static PackagedServer server;

  @BeforeAll
  static void startServer() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("tiering-job-auth-it-");
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
  void credentialsReachTheCatalogAndTheStreams() throws Exception {
    TablePath path = new TablePath(null, List.of("authed"), "events");
    List<Long> written = new ArrayList<>();
    String token = CatalogTokens.clientCredentials(server.baseUri(), CLIENT_ID, CLIENT_SECRET);
    try (Connection client = Connection.open("127.0.0.1", server.rpcPort(), token)) {
      client.admin().createNamespace(null, List.of("authed"));
      client
          .admin()
          .createTable(
              path,
              TableDescriptor.logTable(
                      new org.apache.iceberg.Schema(
                          Types.NestedField.required(1, "id", Types.LongType.get())),
                      2)
                  .withProperty("lakestream.tiering.interval", "1s"));
      try (AppendWriter writer = client.table(path).newAppendWriter()) {
        for (long id = 0; id < 500; id++) {
          writer.append(id);
          written.add(id);
        }
        writer.flush();
      }
    }

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    TieringJob.addTo(
        env,
        TieringJobOptions.parse(
            new String[] {
              "--uri",
              server.baseUri(),
              "--rpc-address",
              "127.0.0.1:" + server.rpcPort(),
              "--credential",
              CLIENT_ID + ":" + CLIENT_SECRET,
              "--interval",
              "500ms",
              "--parallelism",
              "1"
            },
            1),
        JobTieringHook.NONE);
    JobClient job = env.executeAsync(TieringJob.NAME);
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(
        "test",
        new HashMap<>(
            Map.of("uri", server.baseUri(), "credential", CLIENT_ID + ":" + CLIENT_SECRET)));
    try {
      List<Long> ids = new ArrayList<>();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (ids.size() < written.size() && System.nanoTime() < deadline) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        Table table = catalog.loadTable(TableIdentifier.of("authed", "events"));
        ids.clear();
        if (table.currentSnapshot() != null) {
          try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(record -> ids.add((Long) record.getField("id")));
          }
        }
      }
      assertThat(ids).as("ids in Iceberg").containsExactlyInAnyOrderElementsOf(written);
    } finally {
      catalog.close();
      job.cancel().get(60, TimeUnit.SECONDS);
    }
  }
}
