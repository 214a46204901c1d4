package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stream RPC takes the catalog's tokens and enforces its grants. */
class StreamRpcAuthTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .oauth2(
              "writer:w-secret,reader:r-secret,outsider:o-secret",
              "writer:write:default,reader:read:default,outsider:read:default.elsewhere")
          .catalogCredential("writer:w-secret")
          .setting("tiering.discovery-interval", "1s")
          .build();

  private static LakestreamServer server;
  private static String base;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() {
    server = LAKESTREAM.server();
    base = LAKESTREAM.base();
    catalog = LAKESTREAM.catalog();
    catalog.createNamespace(Namespace.of("secure"), new HashMap<>());
    catalog.createTable(
        TableIdentifier.of("secure", "events"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log")));
  }

  private static LogBatch batch(Table table) {
    return io.lakestream.testing.TestBatches.batch(
        table.arrowSchema(table.schemaId()),
        table.schemaId(),
        java.util.List.<Object[]>of(new Object[] {1L}),
        LogBatch.NO_WRITER,
        0);
  }

  @Test
  void connectionsWithoutAValidTokenAreRefused() {
    try (Connection anonymous = Connection.open("127.0.0.1", server.rpcPort(), null)) {
      assertThatThrownBy(() -> anonymous.table(TablePath.of("secure.events")))
          .isInstanceOf(RpcException.class)
          .extracting(e -> ((RpcException) e).error())
          .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
    }
    assertThatThrownBy(() -> Connection.open("127.0.0.1", server.rpcPort(), "forged.token.value"))
        .isInstanceOf(RpcException.class)
        .extracting(e -> ((RpcException) e).error())
        .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
  }

  @Test
  void aPrincipalWithoutReadOnTheNamespaceCannotTellWhichTablesExist() throws Exception {
    try (Connection outsider =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("outsider", "o-secret"))) {
      for (String name : java.util.List.of("secure.events", "secure.no_such_table")) {
        assertThatThrownBy(() -> outsider.table(TablePath.of(name)))
            .as(name)
            .isInstanceOf(RpcException.class)
            .extracting(e -> ((RpcException) e).error())
            .isEqualTo(ErrorCode.NOT_AUTHORIZED);
      }
    }
    try (Connection reader =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("reader", "r-secret"))) {
      assertThatThrownBy(() -> reader.table(TablePath.of("secure.no_such_table")))
          .isInstanceOf(RpcException.class)
          .extracting(e -> ((RpcException) e).error())
          .isEqualTo(ErrorCode.UNKNOWN_TABLE);
    }
  }

  @Test
  void grantsDecideWhoMayReadAndWrite() throws Exception {
    try (Connection reader =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("reader", "r-secret"))) {
      Table table = reader.table(TablePath.of("secure.events"));
      assertThat(table.latestOffset(0)).isGreaterThanOrEqualTo(0);
      ExecutionException refused =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> table.append(0, batch(table)).get());
      assertThat(((RpcException) refused.getCause()).error()).isEqualTo(ErrorCode.NOT_AUTHORIZED);
    }
    try (Connection writer =
        Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"))) {
      Table table = writer.table(TablePath.of("secure.events"));
      long before = table.latestOffset(0);
      assertThat(table.append(0, batch(table)).get().baseOffset()).isEqualTo(before);
    }
  }

  @Test
  void aReaderLooksUpEveryAcknowledgedUpsert() throws Exception {
    catalog.createTable(
        TableIdentifier.of("secure", "scores"),
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "score", Types.LongType.get())),
            Set.of(1)),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "primary-key")));
    try (Connection writer =
            Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"));
        Connection reader =
            Connection.open(
                "127.0.0.1", server.rpcPort(), LAKESTREAM.token("reader", "r-secret"))) {
      Lookuper lookuper = reader.table(TablePath.of("secure.scores")).newLookuper();
      assertThat(lookuper.lookup(1L).get()).isNull();
      try (UpsertWriter upserts = writer.table(TablePath.of("secure.scores")).newUpsertWriter()) {
        // Each lookup after an acknowledged upsert sees it, whichever thread answers it.
        for (long score = 0; score < 20; score++) {
          upserts.upsert(1L, score);
          upserts.flush();
          assertThat(lookuper.lookup(1L).get()).containsExactly(1L, score);
        }
      }
    }
  }

  @Test
  void theEmbeddedTiererReadsStreamsWithItsOwnCredentials() throws Exception {
    catalog.createTable(
        TableIdentifier.of("secure", "tiered"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.tiering.interval", "1s")));
    try (Connection writer =
            Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"));
        AppendWriter rows = writer.table(TablePath.of("secure.tiered")).newAppendWriter()) {
      for (long id = 0; id < 100; id++) {
        rows.append(id);
      }
      rows.flush();
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Snapshot snapshot =
          catalog.loadTable(TableIdentifier.of("secure", "tiered")).currentSnapshot();
      if (snapshot != null && "100".equals(snapshot.summary().get("total-records"))) {
        break;
      }
      assertThat(System.nanoTime() - deadline)
          .as("the tiered table holds the 100 rows within 60 s; it holds %s", snapshot)
          .isNegative();
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
