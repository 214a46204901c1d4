package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ServerAddress;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.config.Configuration;
import io.lakestream.server.LakestreamServer;
import io.lakestream.server.ServerConfig;
import io.lakestream.testing.LakestreamExtension;
import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connecting by URI (one address or several bootstrap addresses, bad URIs refused with the problem
 * named) and subscribing to a whole table: every bucket, every partition including those created
 * after the subscription, and the caught-up signal.
 */
class ClientSubscribeTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("app").build();

  private static Table create(String name, PartitionSpec spec, int buckets) {
    LAKESTREAM
        .catalog()
        .createTable(
            TableIdentifier.of("app", name),
            SCHEMA,
            spec,
            new HashMap<>(
                Map.of(
                    "lakestream.kind", "log",
                    "lakestream.buckets", Integer.toString(buckets),
                    "lakestream.bucket-key", "id")));
    return LAKESTREAM.connection().table(TablePath.of("app." + name));
  }

  private static void write(Table table, long fromId, long toId, String region) {
    try (AppendWriter writer = table.newAppendWriter(WriterOptions.defaults().withBatchRows(100))) {
      for (long id = fromId; id < toId; id++) {
        writer.append(id, region);
      }
      writer.flush();
    }
  }

  private static int rpcPort() {
    return LAKESTREAM.server().rpcPort();
  }

  /** A port nothing listens on: bound, then released. */
  private static int deadPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Reads into {@code ids} (id to region), polling until {@code done} holds or 30 s passed. */
  private static void pollUntil(
      LogScanner scanner, Map<Long, String> ids, Predicate<LogScanner> done) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.test(scanner)) {
      assertThat(System.nanoTime())
          .as("polling timed out with %s rows", ids.size())
          .isLessThan(deadline);
      read(scanner.poll(Duration.ofMillis(500)), ids);
    }
  }

  private static void read(List<ScanBatch> batches, Map<Long, String> ids) {
    for (ScanBatch batch : batches) {
      try (batch) {
        for (Object[] row : batch.rows()) {
          String previous = ids.put((Long) row[0], (String) row[1]);
          assertThat(previous).as("row %s read twice", row[0]).isNull();
        }
      }
    }
  }

  private static Map<Long, String> expected(long fromId, long toId, String region) {
    Map<Long, String> rows = new TreeMap<>();
    for (long id = fromId; id < toId; id++) {
      rows.put(id, region);
    }
    return rows;
  }

  @Test
  void connectsByUriWithAndWithoutTokenAndByHostAndPort() {
    Table table = create("uri_forms", PartitionSpec.unpartitioned(), 1);
    write(table, 0, 5, "eu");
    String uri = "lakestream://127.0.0.1:" + rpcPort();
    try (Connection byUri = Connection.open(uri);
        Connection byUriAndNullToken = Connection.open(uri + "/", null);
        Connection byHostAndPort = Connection.open("127.0.0.1", rpcPort());
        Connection byUpperCaseScheme = Connection.open("LAKESTREAM://localhost:" + rpcPort())) {
      for (Connection connection :
          List.of(byUri, byUriAndNullToken, byHostAndPort, byUpperCaseScheme)) {
        assertThat(connection.table(TablePath.of("app.uri_forms")).latestOffset(0)).isEqualTo(5);
      }
      assertThat(byUri.addresses()).containsExactly(new ServerAddress("127.0.0.1", rpcPort()));
      assertThat(byUpperCaseScheme.addresses())
          .containsExactly(new ServerAddress("localhost", rpcPort()));
    }
  }

  @Test
  void parsesSeveralAddressesAndIpv6() {
    assertThat(ServerAddress.parseUri("lakestream://a.example:1, b.example:9123,[::1]:65535"))
        .containsExactly(
            new ServerAddress("a.example", 1),
            new ServerAddress("b.example", 9123),
            new ServerAddress("::1", 65535));
    assertThat(new ServerAddress("::1", 9123)).hasToString("[::1]:9123");
  }

  @Test
  void badUrisFailNamingTheProblem() {
    Map<String, String> problems = new TreeMap<>();
    problems.put("http://127.0.0.1:9123", "must start with lakestream://");
    problems.put("127.0.0.1:9123", "must start with lakestream://");
    problems.put("lakestream://", "names no server");
    problems.put("lakestream://host", "address 'host' has no port");
    problems.put("lakestream://host:", "port '' of address 'host:'");
    problems.put("lakestream://host:abc", "port 'abc' of address 'host:abc'");
    problems.put("lakestream://host:0", "port '0' of address 'host:0'");
    problems.put("lakestream://host:70000", "is not a number between 1 and 65535");
    problems.put("lakestream://:9123", "address ':9123' has an empty host");
    problems.put("lakestream://a:1,,b:2", "has an empty address");
    problems.put("lakestream://a:1,", "has an empty address");
    problems.put("lakestream://host:9123/db", "has a path");
    problems.put("lakestream://host:9123?token=secret", "has a query");
    problems.put("lakestream://user@host:9123", "has a user part");
    problems.put("lakestream://::1:9123", "write an IPv6 address as [address]:port");
    problems.put("lakestream://[::1]", "must be [IPv6 address]:port");
    problems.forEach(
        (uri, problem) ->
            assertThatThrownBy(() -> Connection.open(uri))
                .as(uri)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem));
    assertThatThrownBy(() -> Connection.open((String) null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void aDeadFirstAddressIsSkippedForALiveOne() throws IOException {
    Table table = create("bootstrap", PartitionSpec.unpartitioned(), 1);
    write(table, 0, 3, "eu");
    int dead = deadPort();
    try (Connection connection =
        Connection.open("lakestream://127.0.0.1:" + dead + ",127.0.0.1:" + rpcPort())) {
      assertThat(connection.table(TablePath.of("app.bootstrap")).latestOffset(0)).isEqualTo(3);
    }
    int otherDead = deadPort();
    assertThatThrownBy(
            () -> Connection.open("lakestream://127.0.0.1:" + dead + ",127.0.0.1:" + otherDead))
        .isInstanceOfSatisfying(
            RpcException.class, e -> assertThat(e.error()).isEqualTo(ErrorCode.NETWORK_ERROR))
        .hasMessageContaining("127.0.0.1:" + dead + ": ")
        .hasMessageContaining("127.0.0.1:" + otherDead + ": ");
  }

  @Test
  void aReconnectWalksTheAddressList(@TempDir Path otherData) throws IOException {
    create("walk", PartitionSpec.unpartitioned(), 1);
    TablePath walk = TablePath.of("app.walk");
    Map<String, String> settings =
        Map.of(
            "data-dir",
            otherData.toString(),
            "http.port",
            Integer.toString(ServerProcess.freePort()),
            "rpc.port",
            Integer.toString(ServerProcess.freePort()),
            "flight.port",
            Integer.toString(ServerProcess.freePort()));
    LakestreamServer other =
        LakestreamServer.start(
            ServerConfig.from(
                Configuration.builder(ServerConfig.allKeys()).layer("test", settings).build()));
    try (Connection connection =
        Connection.open("lakestream://127.0.0.1:" + other.rpcPort() + ",127.0.0.1:" + rpcPort())) {
      // Connected to the first address, a server without the table.
      assertThatThrownBy(() -> connection.table(walk))
          .isInstanceOfSatisfying(
              RpcException.class, e -> assertThat(e.error()).isEqualTo(ErrorCode.UNKNOWN_TABLE));
      other.close();
      other = null;
      // The first server is gone: the reconnect goes on to the second address, which has it.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      Table table = null;
      while (table == null) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        try {
          table = connection.table(walk);
        } catch (RpcException e) {
          // In flight when the first server closed: its outcome is unknown, so ask again.
          assertThat(e.error()).isIn(ErrorCode.NETWORK_ERROR, ErrorCode.UNKNOWN_TABLE);
        }
      }
      assertThat(table.latestOffset(0)).isZero();
    } finally {
      if (other != null) {
        other.close();
      }
    }
  }

  @Test
  void subscribeAllReadsEveryRowOfEveryBucketAndSaysWhenCaughtUp() {
    Table table = create("three_buckets", PartitionSpec.unpartitioned(), 3);
    int rows = 3_000;
    write(table, 0, rows, "eu");
    for (int bucket = 0; bucket < 3; bucket++) {
      assertThat(table.latestOffset(bucket)).as("bucket %s has rows", bucket).isPositive();
    }
    Map<Long, String> read = new TreeMap<>();
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribeAll(LogScanner.earliest());
      assertThat(scanner.caughtUp()).isFalse();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!scanner.caughtUp()) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        read(scanner.poll(Duration.ofMillis(500)), read);
        // Caught up exactly when every row written is read: never before.
        assertThat(scanner.caughtUp())
            .as("caught up at %s rows", read.size())
            .isEqualTo(read.size() == rows);
      }
      assertThat(read).isEqualTo(expected(0, rows, "eu"));
      assertThat(scanner.position(0) + scanner.position(1) + scanner.position(2)).isEqualTo(rows);

      // Rows written later: the scanner is no longer caught up once a fetch has seen them.
      write(table, rows, rows + 10, "us");
      pollUntil(scanner, read, s -> read.size() == rows + 10);
      pollUntil(scanner, read, LogScanner::caughtUp);
      assertThat(read).hasSize(rows + 10);
    }
    try (LogScanner fromLatest = table.newScanner()) {
      fromLatest.subscribeAll(LogScanner.latest());
      assertThat(fromLatest.caughtUp()).isTrue();
      assertThat(fromLatest.poll(Duration.ofMillis(200))).isEmpty();
    }
  }

  @Test
  void subscribeAllReadsPartitionsCreatedAfterIt() {
    Table table =
        create("by_region", PartitionSpec.builderFor(SCHEMA).identity("region").build(), 2);
    try (LogScanner fromEarliest = table.newScanner();
        LogScanner fromLatest = table.newScanner()) {
      // No partition yet: nothing to read, caught up.
      fromEarliest.subscribeAll(LogScanner.earliest());
      assertThat(fromEarliest.caughtUp()).isTrue();
      assertThat(fromEarliest.poll(Duration.ofMillis(100))).isEmpty();

      write(table, 0, 500, "eu");
      Map<Long, String> readFromEarliest = new TreeMap<>();
      pollUntil(fromEarliest, readFromEarliest, s -> readFromEarliest.size() >= 500);
      assertThat(readFromEarliest).isEqualTo(expected(0, 500, "eu"));

      // Existing partitions from their end, partitions created later from their start.
      fromLatest.subscribeAll(LogScanner.latest());
      assertThat(fromLatest.caughtUp()).isTrue();
      write(table, 500, 800, "us");
      write(table, 800, 900, "eu");
      Map<Long, String> readFromLatest = new TreeMap<>();
      pollUntil(fromLatest, readFromLatest, s -> readFromLatest.size() >= 400);
      pollUntil(fromLatest, readFromLatest, LogScanner::caughtUp);
      Map<Long, String> expectedFromLatest = expected(500, 800, "us");
      expectedFromLatest.putAll(expected(800, 900, "eu"));
      assertThat(readFromLatest).isEqualTo(expectedFromLatest);

      pollUntil(fromEarliest, readFromEarliest, s -> readFromEarliest.size() >= 900);
      pollUntil(fromEarliest, readFromEarliest, LogScanner::caughtUp);
      Map<Long, String> all = expected(0, 500, "eu");
      all.putAll(expectedFromLatest);
      assertThat(readFromEarliest).isEqualTo(all);
    }
  }

  @Test
  void aRangeReadsExactlyItsOffsetsAndWaitsForRowsNotYetWritten() {
    // One bucket: a row's offset is its id. Batches of 100 rows, so both ends cut a batch.
    Table table = create("ranges", PartitionSpec.unpartitioned(), 1);
    write(table, 0, 1_000, "eu");
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribeRange(0, 150, 730);
      assertThat(scanner.caughtUp()).isFalse();
      Map<Long, String> read = new TreeMap<>();
      pollUntil(scanner, read, LogScanner::caughtUp);
      assertThat(read).isEqualTo(expected(150, 730, "eu"));
      assertThat(scanner.position(0)).isEqualTo(730);
      assertThat(scanner.poll(Duration.ofMillis(200))).isEmpty();

      // Beyond the high watermark: the rows there now, then the rest once written.
      scanner.subscribeRange(0, 990, 1_010);
      Map<Long, String> tail = new TreeMap<>();
      pollUntil(scanner, tail, s -> tail.size() >= 10);
      assertThat(scanner.poll(Duration.ofMillis(200))).isEmpty();
      assertThat(scanner.caughtUp()).isFalse();
      write(table, 1_000, 1_050, "us");
      pollUntil(scanner, tail, LogScanner::caughtUp);
      Map<Long, String> expectedTail = expected(990, 1_000, "eu");
      expectedTail.putAll(expected(1_000, 1_010, "us"));
      assertThat(tail).isEqualTo(expectedTail);

      scanner.subscribeRange(0, 5, 5);
      assertThat(scanner.caughtUp()).isTrue();
      assertThat(scanner.poll(Duration.ofMillis(100))).isEmpty();
      assertThatThrownBy(() -> scanner.subscribeRange(0, 10, 9))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("[10, 9)");
    }
  }
}
