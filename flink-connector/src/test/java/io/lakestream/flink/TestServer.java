package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.lake.iceberg.MetadataOnlyFileIO;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.SharedPerTestRun;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The packaged server a test class runs against, with what the tests of this module need around it:
 * a client connection, the options that point Flink at it, and the tiered offsets of its lake
 * tables (read from table metadata alone).
 */
final class TestServer implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  private final PackagedServer server;
  private final Connection client;
  private final RESTCatalog lake;

  private TestServer(PackagedServer server) {
    this.server = server;
    this.client = Connection.open("127.0.0.1", server.rpcPort(), null);
    this.lake = new RESTCatalog();
    lake.initialize(
        "tiered-offsets",
        Map.of("uri", server.baseUri(), "io-impl", MetadataOnlyFileIO.class.getName()));
  }

  /**
   * Starts {@code bin/lakestream server} with {@code arguments} in a new run directory named after
   * {@code name}.
   */
  static TestServer start(String name, String... arguments) throws Exception {
    return new TestServer(
        PackagedServer.start(
            SharedPerTestRun.newRunDirectory(name + "-"), START_TIMEOUT, arguments));
  }

  PackagedServer server() {
    return server;
  }

  /** A connection to the server's stream RPC, without a token. */
  Connection client() {
    return client;
  }

  /** {@code CREATE CATALOG name WITH (...)} of the {@code lakestream} catalog over this server. */
  String catalogDdl(String name) {
    return "CREATE CATALOG "
        + name
        + " WITH ('type'='lakestream', 'uri'='"
        + server.baseUri()
        + "', 'rpc-address'='127.0.0.1:"
        + server.rpcPort()
        + "')";
  }

  /** The {@code WITH} options of a {@code 'connector'='lakestream'} table over {@code table}. */
  String connectorOptions(String table) {
    return "'connector'='lakestream', 'uri'='"
        + server.baseUri()
        + "', 'rpc-address'='127.0.0.1:"
        + server.rpcPort()
        + "', 'table'='"
        + table
        + "'";
  }

  /** How many rows of the table's log its lake table's current snapshot holds. */
  long tieredRows(TablePath path) {
    org.apache.iceberg.Table table =
        lake.loadTable(
            TableIdentifier.of(Namespace.of(path.namespace().toArray(String[]::new)), path.name()));
    TieredOffsets offsets =
        TieredOffsets.committedIn(((HasTableOperations) table).operations().current());
    return offsets.partitions().values().stream()
        .flatMap(buckets -> buckets.values().stream())
        .mapToLong(Long::longValue)
        .sum();
  }

  /** Waits until the lake table's current snapshot holds exactly {@code rows} rows of the log. */
  void awaitTiered(TablePath path, long rows, Duration timeout) {
    long tiered = awaitTieredRows(path, rows, timeout);
    assertThat(tiered).as("log rows of %s in its lake snapshot", path).isEqualTo(rows);
  }

  /** Waits until the lake table's current snapshot holds at least {@code rows} rows of the log. */
  void awaitTieredAtLeast(TablePath path, long rows, Duration timeout) {
    long tiered = awaitTieredRows(path, rows, timeout);
    assertThat(tiered).as("log rows of %s in its lake snapshot", path).isGreaterThanOrEqualTo(rows);
  }

  private long awaitTieredRows(TablePath path, long rows, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long tiered = tieredRows(path);
    while (tiered < rows && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(POLL_INTERVAL.toNanos());
      tiered = tieredRows(path);
    }
    return tiered;
  }

  /** The lake table's REST catalog, reading metadata only (no data files). */
  RESTCatalog lake() {
    return lake;
  }

  @Override
  public void close() throws Exception {
    try (PackagedServer stopped = server;
        Connection closed = client;
        RESTCatalog lakeClosed = lake) {
      // Closed in reverse order.
    }
  }
}
