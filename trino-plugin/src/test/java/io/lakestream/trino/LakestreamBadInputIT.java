package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import io.trino.client.FailureException;
import io.trino.execution.QueryState;
import io.trino.server.BasicQueryInfo;
import io.trino.spi.TrinoException;
import io.trino.testing.QueryFailedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad input through the {@code lakestream} connector fails with a clear Trino error and never
 * hangs: unknown schemas and tables, catalog files with a wrong {@code lakestream.*} property, a
 * server that dies during a query, and an expired token (while client credentials keep working as
 * their tokens expire). No credential or token appears in a log record or an error message.
 *
 * <p>The dead and the authenticating servers are this class's own processes, each behind a catalog
 * of its own added to the shared query runner.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamBadInputIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration LOG_READ_TIMEOUT = Duration.ofSeconds(5);
  // A dead server fails a query within the client's reconnect timeout plus the log-read timeout,
  // and planning's own attempts; this is that with room for a loaded machine.
  private static final Duration DEAD_SERVER_BOUND =
      Connection.RECONNECT_TIMEOUT.plus(LOG_READ_TIMEOUT).plus(Duration.ofSeconds(40));
  private static final Duration TOKEN_LIFETIME = Duration.ofSeconds(10);
  private static final String CLIENT_ID = "trino33";
  private static final String CLIENT_SECRET = "s3cret-of-trino33-do-not-log";
  private static final String SIGNING_KEY = "0123456789abcdef0123456789abcdef-signing-key-33";
  private static final Schema EVENTS =
      new Schema(
          Types.NestedField.required(1, "b0", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));

  private final SharedTrino shared;
  private final List<String> logged = new ArrayList<>();
  private final List<ServerProcess> servers = new ArrayList<>();
  private final List<String> catalogs = new ArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          StringBuilder text = new StringBuilder(String.valueOf(record.getMessage()));
          if (record.getParameters() != null) {
            for (Object parameter : record.getParameters()) {
              text.append(' ').append(parameter);
            }
          }
          if (record.getThrown() != null) {
            text.append(' ').append(stackTrace(record.getThrown()));
          }
          synchronized (logged) {
            logged.add(text.toString());
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  LakestreamBadInputIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void captureLogs() {
    Logger.getLogger("").addHandler(capture);
  }

  @AfterAll
  void stop() throws InterruptedException {
    Logger.getLogger("").removeHandler(capture);
    // The shared runner outlives this class: its catalogs must not point at servers gone.
    for (String catalog : catalogs) {
      try {
        shared.rows("DROP CATALOG IF EXISTS " + catalog);
      } catch (RuntimeException e) {
        System.out.printf("Catalog %s stays in the shared runner: %s%n", catalog, e);
      }
    }
    for (ServerProcess server : servers) {
      server.close();
    }
  }

  private void createCatalog(String catalog, Map<String, String> properties) {
    shared.trino().createCatalog(catalog, LakestreamConnectorFactory.NAME, properties);
    catalogs.add(catalog);
  }

  /** Proves that unknown schemas and tables fail as not found, naming what is missing. */
  @Test
  void unknownSchemaAndTableFailAsNotFound() {
    QueryFailure schema =
        failure("SELECT count(*) FROM " + LAKESTREAM_CATALOG + ".no_such_schema_33.events");
    assertThat(schema.code()).isEqualTo("SCHEMA_NOT_FOUND");
    assertThat(schema.message()).contains("no_such_schema_33").contains("does not exist");

    QueryFailure listing = failure("SHOW TABLES FROM " + LAKESTREAM_CATALOG + ".no_such_schema_33");
    assertThat(listing.code()).isEqualTo("SCHEMA_NOT_FOUND");
    assertThat(listing.message()).contains("no_such_schema_33");

    shared.rows("CREATE SCHEMA IF NOT EXISTS " + LAKESTREAM_CATALOG + ".bad_input");
    QueryFailure table =
        failure("SELECT count(*) FROM " + LAKESTREAM_CATALOG + ".bad_input.no_such_table_33");
    assertThat(table.code()).isEqualTo("TABLE_NOT_FOUND");
    assertThat(table.message()).contains("bad_input.no_such_table_33").contains("does not exist");
  }

  /**
   * Proves that a catalog with a wrong {@code lakestream.*} property is not created, with a
   * one-line message that names the property and never echoes a secret.
   */
  @Test
  void catalogWithBadPropertyFailsCreationNamingIt() throws Exception {
    String uri = shared.server().baseUri();
    Map<String, String> good = SharedTrino.lakestreamCatalogProperties(uri, shared.rpcPort());
    assertCreationFails(
        "bad_unknown_key",
        with(good, "lakestream.log-read-timout", "5s"),
        "lakestream.log-read-timout");
    assertCreationFails(
        "bad_timeout",
        with(good, LakestreamConfig.LOG_READ_TIMEOUT, "soon"),
        LakestreamConfig.LOG_READ_TIMEOUT);
    assertCreationFails(
        "bad_rpc_address",
        with(good, LakestreamConfig.RPC_ADDRESS, "127.0.0.1"),
        LakestreamConfig.RPC_ADDRESS);
    assertCreationFails(
        "bad_rpc_port",
        with(good, LakestreamConfig.RPC_ADDRESS, "127.0.0.1:99999"),
        LakestreamConfig.RPC_ADDRESS);
    assertCreationFails(
        "bad_uri",
        with(good, LakestreamConfig.URI_KEY, "thrift://127.0.0.1:9083"),
        LakestreamConfig.URI_KEY);
    Map<String, String> noUri = new HashMap<>(good);
    noUri.remove(LakestreamConfig.URI_KEY);
    assertCreationFails("bad_no_uri", noUri, LakestreamConfig.URI_KEY);
    assertCreationFails(
        "bad_credential",
        with(good, LakestreamConfig.CREDENTIAL, CLIENT_SECRET),
        LakestreamConfig.CREDENTIAL);
    Map<String, String> both =
        with(good, LakestreamConfig.CREDENTIAL, CLIENT_ID + ":" + CLIENT_SECRET);
    both.put(LakestreamConfig.TOKEN, SIGNING_KEY);
    assertCreationFails("bad_both_secrets", both, LakestreamConfig.TOKEN);
    assertNoSecretLogged(CLIENT_SECRET, SIGNING_KEY);
  }

  /**
   * Proves that a query fails within a bounded time with a clear error when its server dies while
   * it runs (the log part still to read), and that the next query fails as clearly instead of
   * waiting.
   */
  @Test
  void deadServerFailsQueryWithinBoundedTime() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("trino-dead-");
    int rpcPort = ServerProcess.freePort();
    ServerProcess server = startServer(run, rpcPort, List.of());
    Map<String, String> properties =
        with(
            SharedTrino.lakestreamCatalogProperties(server.baseUri(), rpcPort),
            LakestreamConfig.LOG_READ_TIMEOUT,
            LOG_READ_TIMEOUT.toSeconds() + "s");
    createCatalog("lakestream_dead", properties);

    long rows = 400_000;
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      connection.admin().createNamespace(null, List.of("dead"));
      TablePath path = TablePath.of("dead.events");
      connection.admin().createTable(path, TableDescriptor.logTable(EVENTS, 3).withBucketKey("b0"));
      try (AppendWriter writer = connection.table(path).newAppendWriter(WriterOptions.defaults())) {
        for (long n = 0; n < rows; n++) {
          writer.append(n, "payload of row " + n);
        }
        writer.flush();
      }
    }
    String query = "SELECT count(*), sum(length(payload)) FROM lakestream_dead.dead.events";
    assertThat(shared.rows("SELECT count(*) FROM lakestream_dead.dead.events"))
        .containsExactly(List.of(rows));

    CompletableFuture<List<List<Object>>> running =
        CompletableFuture.supplyAsync(() -> shared.rows(query));
    BasicQueryInfo info = awaitRunning(query, Duration.ofSeconds(60));
    assertThat(info.getState())
        .as("the query must still run when the server is killed; make the table bigger")
        .isEqualTo(QueryState.RUNNING);
    server.kill();
    long killed = System.nanoTime();
    Throwable thrown;
    try {
      running.get(DEAD_SERVER_BOUND.toSeconds(), TimeUnit.SECONDS);
      thrown = null;
    } catch (ExecutionException e) {
      thrown = e.getCause();
    }
    Duration failedAfter = Duration.ofNanos(System.nanoTime() - killed);
    assertThat(thrown)
        .as("the query over the killed server")
        .isInstanceOf(QueryFailedException.class);
    QueryFailure during = QueryFailure.of((QueryFailedException) thrown);
    System.out.printf("Query failed %s after the kill: %s%n", failedAfter, during);
    assertThat(during.code()).isIn("SERVER_UNAVAILABLE", "LOG_READ_TIMEOUT");
    // The query plans its log ranges in the background while it runs, so the kill may find it
    // planning (the catalog's address in the message) or reading (the stream RPC's).
    assertThat(during.message())
        .contains("dead.events")
        .containsAnyOf("127.0.0.1:" + rpcPort, server.baseUri());

    long before = System.nanoTime();
    QueryFailure after = failure(query);
    Duration afterTook = Duration.ofNanos(System.nanoTime() - before);
    System.out.printf("Query on the dead server failed after %s: %s%n", afterTook, after);
    assertThat(afterTook).isLessThan(DEAD_SERVER_BOUND);
    assertThat(after.code()).isEqualTo("SERVER_UNAVAILABLE");
    assertThat(after.message()).contains("dead.events").contains("Connection refused");
  }

  /**
   * Proves that an expired token fails a query as not authenticated, that client credentials keep
   * working after the tokens they were exchanged for expire (the connector renews them), and that
   * neither the secret nor a token shows in a log record or an error message.
   */
  @Test
  void expiredTokenFailsAndCredentialsRenew() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("trino-auth-");
    int rpcPort = ServerProcess.freePort();
    ServerProcess server =
        startServer(
            run,
            rpcPort,
            List.of(
                "--auth-mode", "oauth2",
                "--auth-clients", CLIENT_ID + ":" + CLIENT_SECRET,
                "--auth-grants", CLIENT_ID + ":admin:*",
                "--auth-token-signing-key", SIGNING_KEY,
                "--auth-token-lifetime", TOKEN_LIFETIME.toSeconds() + "s"));
    String base = server.baseUri();
    long rows = 1_000;
    try (Connection connection = Connection.openRenewing("127.0.0.1", rpcPort, () -> token(base))) {
      connection.admin().createNamespace(null, List.of("authed"));
      TablePath path = TablePath.of("authed.events");
      connection.admin().createTable(path, TableDescriptor.logTable(EVENTS, 2));
      try (AppendWriter writer = connection.table(path).newAppendWriter(WriterOptions.defaults())) {
        for (long n = 0; n < rows; n++) {
          writer.append(n, "row " + n);
        }
        writer.flush();
      }
    }

    String expired = token(base);
    awaitExpired(base, expired);
    createCatalog(
        "lakestream_expired",
        with(
            SharedTrino.lakestreamCatalogProperties(base, rpcPort),
            LakestreamConfig.TOKEN,
            expired));
    QueryFailure refused = failure("SELECT count(*) FROM lakestream_expired.authed.events");
    System.out.println("Query with an expired token: " + refused);
    assertThat(refused.code()).isEqualTo("NOT_AUTHENTICATED");
    assertThat(refused.message().toLowerCase(java.util.Locale.ROOT))
        .containsAnyOf("not authenticated", "not authorized", "401", "expired");
    assertThat(refused.everything()).doesNotContain(expired);

    createCatalog(
        "lakestream_credential",
        with(
            SharedTrino.lakestreamCatalogProperties(base, rpcPort),
            LakestreamConfig.CREDENTIAL,
            CLIENT_ID + ":" + CLIENT_SECRET));
    String count = "SELECT count(*), count(DISTINCT b0) FROM lakestream_credential.authed.events";
    assertThat(shared.rows(count)).containsExactly(List.of(rows, rows));
    // Every token issued until now expires; the catalog's next queries need fresh ones.
    awaitExpired(base, token(base));
    assertThat(shared.rows(count)).containsExactly(List.of(rows, rows));
    awaitExpired(base, token(base));
    assertThat(shared.rows(count)).containsExactly(List.of(rows, rows));

    assertNoSecretLogged(CLIENT_SECRET, expired, SIGNING_KEY);
  }

  private ServerProcess startServer(Path run, int rpcPort, List<String> extraFlags)
      throws IOException, InterruptedException {
    int httpPort = ServerProcess.freePort();
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--data-dir", run.resolve("data").toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(rpcPort),
                "--flight-port", Integer.toString(ServerProcess.freePort())));
    flags.addAll(extraFlags);
    ServerProcess server = ServerProcess.launch(run.resolve("logs"), httpPort, flags);
    servers.add(server);
    server.awaitReady(SERVER_START_TIMEOUT);
    return server;
  }

  private static String token(String base) {
    try {
      return CatalogTokens.clientCredentials(base, CLIENT_ID, CLIENT_SECRET);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Polls the catalog's config route with the token until the server answers 401. */
  private static void awaitExpired(String base, String token) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TOKEN_LIFETIME.multipliedBy(10).toNanos();
    while (true) {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/v1/config"))
                  .header("Authorization", "Bearer " + token)
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() == 401) {
        return;
      }
      assertThat(response.statusCode()).as("GET /v1/config with a token").isEqualTo(200);
      if (System.nanoTime() > deadline) {
        fail("A token issued for %s is still accepted after %s", TOKEN_LIFETIME.multipliedBy(10));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
  }

  /** Waits until the coordinator lists the query as running or done, and returns its state. */
  private BasicQueryInfo awaitRunning(String sql, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<BasicQueryInfo> found =
          shared.trino().getCoordinator().getQueryManager().getQueries().stream()
              .filter(query -> query.getQuery().equals(sql))
              .filter(query -> query.getState() == QueryState.RUNNING || query.getState().isDone())
              .findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      assertThat(System.nanoTime()).as("query %s running", sql).isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private void assertCreationFails(
      String catalog, Map<String, String> properties, String property) {
    assertThatThrownBy(
            () ->
                shared.trino().createCatalog(catalog, LakestreamConnectorFactory.NAME, properties))
        .satisfies(
            thrown -> {
              System.out.printf("Catalog %s: %s%n", catalog, thrown);
              Throwable cause = thrown;
              while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
                cause = cause.getCause();
              }
              assertThat(cause.getMessage())
                  .as("catalog %s", catalog)
                  .contains(property)
                  .doesNotContain("\n");
              assertThat(stackTrace(thrown))
                  .doesNotContain(CLIENT_SECRET)
                  .doesNotContain(SIGNING_KEY);
            });
  }

  private void assertNoSecretLogged(String... secrets) {
    List<String> records;
    synchronized (logged) {
      records = List.copyOf(logged);
    }
    for (String record : records) {
      for (String secret : secrets) {
        assertThat(record).as("a log record").doesNotContain(secret);
      }
    }
  }

  private static Map<String, String> with(
      Map<String, String> properties, String key, String value) {
    Map<String, String> copy = new HashMap<>(properties);
    copy.put(key, value);
    return copy;
  }

  private QueryFailure failure(String sql) {
    try {
      shared.rows(sql);
    } catch (QueryFailedException e) {
      return QueryFailure.of(e);
    }
    throw new AssertionError("Query did not fail: " + sql);
  }

  private static String stackTrace(Throwable thrown) {
    StringWriter text = new StringWriter();
    thrown.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  /** A failed query's error code name, message, and the whole failure as text. */
  private record QueryFailure(String code, String message, String everything) {
    static QueryFailure of(QueryFailedException e) {
      String code = "(none)";
      // The testing client's exception carries the error as the client protocol reports it.
      for (Throwable cause = e; cause != null; cause = cause.getCause()) {
        if (cause instanceof FailureException failure
            && failure.getFailureInfo().getErrorInfo() != null) {
          code = failure.getFailureInfo().getErrorInfo().getName();
          break;
        }
        if (cause instanceof TrinoException trino) {
          code = trino.getErrorCode().getName();
          break;
        }
      }
      return new QueryFailure(code, e.getMessage(), stackTrace(e));
    }

    @Override
    public String toString() {
      return code + ": " + message;
    }
  }
}
