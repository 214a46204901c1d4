package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.config.Configuration;
import io.lakestream.server.LakestreamServer;
import io.lakestream.server.ServerConfig;
import io.lakestream.testing.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-lived writer and scanner keep working across a restart of the server (same ports, same
 * data directory): the connection reconnects and authenticates again, the writer resends batches
 * whose outcome was in doubt, the scanner re-issues its fetches, and every acknowledged row is read
 * exactly once.
 */
class ClientReconnectTest {
  private static final Schema EVENTS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));

  @TempDir Path data;
  private Map<String, String> settings;
  private LakestreamServer server;

  @BeforeEach
  void start() throws Exception {
    settings =
        Map.of(
            "data-dir",
            data.toString(),
            "http.port",
            Integer.toString(ServerProcess.freePort()),
            "rpc.port",
            Integer.toString(ServerProcess.freePort()),
            "flight.port",
            Integer.toString(ServerProcess.freePort()),
            "auth.mode",
            "oauth2",
            "auth.clients",
            "writer:w-secret",
            "auth.grants",
            "writer:write:default",
            // Tokens issued before the restart stay valid after it.
            "auth.token-signing-key",
            "a-signing-key-of-at-least-32-characters");
    server = startServer();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private LakestreamServer startServer() {
    return LakestreamServer.start(
        ServerConfig.from(
            Configuration.builder(ServerConfig.allKeys()).layer("test", settings).build()));
  }

  private void restartServer() {
    server.close();
    server = null;
    server = startServer();
  }

  private String token() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/oauth/tokens"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "grant_type=client_credentials&client_id=writer&client_secret=w-secret"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body().replaceAll(".*\"access_token\":\"([^\"]+)\".*", "$1");
  }

  private static Object[] row(long id) {
    return new Object[] {id, "event-" + id};
  }

  /** Polls until {@code expected} rows arrived or 60 seconds passed; returns the ids seen. */
  private static void readInto(LogScanner scanner, List<Long> ids, int expected) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (ids.size() < expected && System.nanoTime() < deadline) {
      for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
        try (batch) {
          for (Object[] values : batch.rows()) {
            ids.add((Long) values[0]);
          }
        }
      }
    }
  }

  @Test
  void requestsAfterARestartGoThroughANewAuthenticatedConnection() throws Exception {
    try (Connection connection = Connection.open("127.0.0.1", server.rpcPort(), token())) {
      connection.admin().createNamespace(null, List.of("rs"));
      connection.admin().createTable(TablePath.of("rs.small"), TableDescriptor.logTable(EVENTS, 1));

      restartServer();

      // The old socket is gone; the next request reconnects and authenticates with the token.
      Table table = connection.table(TablePath.of("rs.small"));
      assertThat(table.buckets()).isEqualTo(1);
      assertThat(connection.isOpen()).isTrue();
      assertThat(connection.admin().listTables(null, List.of("rs"))).containsExactly("small");
    }
  }

  @Test
  void aWriterAndAScannerKeepWorkingAcrossARestart() throws Exception {
    Connection connection = Connection.open("127.0.0.1", server.rpcPort(), token());
    connection.admin().createNamespace(null, List.of("rs"));
    connection
        .admin()
        .createTable(
            TablePath.of("rs.events"), TableDescriptor.logTable(EVENTS, 3).withBucketKey("id"));
    Table table = connection.table(TablePath.of("rs.events"));
    List<Long> ids = new ArrayList<>();
    long written;
    try (AppendWriter writer =
            table.newAppendWriter(
                WriterOptions.defaults().withBatchRows(200).withLinger(Duration.ofMillis(5)));
        LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      for (long id = 0; id < 2_000; id++) {
        writer.append(row(id));
      }
      writer.flush();
      readInto(scanner, ids, 2_000);
      assertThat(ids).hasSize(2_000);

      // Another thread keeps appending while the server goes down and comes back.
      CountDownLatch writing = new CountDownLatch(1);
      AtomicBoolean restarted = new AtomicBoolean();
      AtomicLong next = new AtomicLong(2_000);
      CompletableFuture<Void> appends =
          CompletableFuture.runAsync(
              () -> {
                long afterRestart = -1;
                while (afterRestart < 0 || next.get() < afterRestart + 5_000) {
                  writer.append(row(next.getAndIncrement()));
                  if (next.get() == 7_000) {
                    writing.countDown();
                  }
                  if (afterRestart < 0 && restarted.get()) {
                    afterRestart = next.get();
                  }
                }
                writer.flush();
              });
      assertThat(writing.await(60, TimeUnit.SECONDS)).isTrue();
      restartServer();
      restarted.set(true);
      appends.get(120, TimeUnit.SECONDS);

      // Every row is acknowledged: flush() would have thrown otherwise.
      written = next.get();
      assertThat(written).isGreaterThan(12_000);
      readInto(scanner, ids, (int) written);
      // A duplicate would come after the last row; give it the chance to show up.
      for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
        try (batch) {
          batch.rows().forEach(values -> ids.add((Long) values[0]));
        }
      }
    } finally {
      connection.close();
    }
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < written; id++) {
      expected.add(id);
    }
    // Sorted, the ids must be exactly 0..written-1: none lost, none twice. (AssertJ's
    // containsExactlyInAnyOrder compares pairwise, which takes minutes for 100,000 ids.)
    List<Long> sorted = new ArrayList<>(ids);
    java.util.Collections.sort(sorted);
    assertThat(sorted).hasSize(expected.size());
    assertThat(sorted).isEqualTo(expected);
  }
}
