package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.testing.PackagedServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows a Flight {@code DoPut} acknowledged survive a SIGKILL of the packaged server, and an ingest
 * cut off by the kill, retried with its idempotency key after the restart, ends up stored exactly
 * once.
 */
class FlightIngestCrashIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final int BATCH_ROWS = 2_000;

  @TempDir Path temp;

  private static CallOption key(String key) {
    return IngestRows.idempotencyKey(key);
  }

  /** Sends batches {@code first..first+batches-1}; returns the server's answer. */
  private static String put(
      FlightClient flight, BufferAllocator allocator, int first, int batches, CallOption option)
      throws Exception {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IngestRows.arrowSchema(), allocator)) {
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener stream =
          flight.startPut(FlightDescriptor.path("crash", "events"), root, listener, option);
      for (int batch = first; batch < first + batches; batch++) {
        IngestRows.fill(root, (long) batch * BATCH_ROWS, BATCH_ROWS);
        stream.putNext();
      }
      return IngestRows.finishPut(stream, listener);
    }
  }

  private static void assertExactly(int rpcPort, long rows) {
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      Map<Long, Object[]> byId = new TreeMap<>();
      for (IngestRows.Stored row : IngestRows.scanAll(connection, "crash.events")) {
        assertThat(byId.put((Long) row.values()[0], row.values()))
            .as("id %s stored once", row.values()[0])
            .isNull();
      }
      List<Long> ids = LongStream.range(0, rows).boxed().toList();
      assertThat(byId.keySet()).containsExactlyElementsOf(ids);
      ids.forEach(id -> assertThat(byId.get(id)).containsExactly(IngestRows.row(id)));
    }
  }

  @Test
  void acknowledgedIngestSurvivesSigkillAndACutOffIngestRetriesExactlyOnce() throws Exception {
    PackagedServer server = PackagedServer.start(temp, START_TIMEOUT);
    int rpcPort = server.rpcPort();
    try (BufferAllocator allocator = new RootAllocator()) {
      try (RESTCatalog catalog = server.openCatalog()) {
        catalog.createNamespace(Namespace.of("crash"), new HashMap<>());
        catalog.createTable(
            TableIdentifier.of("crash", "events"),
            IngestRows.icebergSchema(),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "3")));
      }
      Location location = Location.forGrpcInsecure("127.0.0.1", server.flightPort());

      // 1. Acknowledged, then SIGKILL right after the acknowledgement.
      try (FlightClient flight = FlightClient.builder(allocator, location).build()) {
        assertThat(put(flight, allocator, 0, 10, key("first")))
            .isEqualTo(
                "{\"rows\":20000,\"appendedRows\":20000,\"duplicateRows\":0,\"batches\":10}");
      }
      server.kill();
      server.restart();
      assertExactly(rpcPort, 20_000);

      // 2. The same call again after the restart: the rebuilt writer state recognises every batch.
      try (FlightClient flight = FlightClient.builder(allocator, location).build()) {
        assertThat(put(flight, allocator, 0, 10, key("first")))
            .isEqualTo(
                "{\"rows\":20000,\"appendedRows\":0,\"duplicateRows\":20000,\"batches\":10}");
      }

      // 3. An ingest cut off by a SIGKILL while its batches stream in: outcome unknown. Its retry
      // with the same key after the restart stores every row once.
      try (FlightClient flight = FlightClient.builder(allocator, location).build();
          VectorSchemaRoot root = VectorSchemaRoot.create(IngestRows.arrowSchema(), allocator)) {
        SyncPutListener listener = new SyncPutListener();
        FlightClient.ClientStreamListener stream =
            flight.startPut(
                FlightDescriptor.path("crash", "events"), root, listener, key("second"));
        for (int batch = 10; batch < 20; batch++) {
          IngestRows.fill(root, (long) batch * BATCH_ROWS, BATCH_ROWS);
          stream.putNext();
        }
        // Half sent (and some of it possibly stored): kill before the call completes.
        server.kill();
        boolean failed;
        try {
          stream.completed();
          stream.getResult();
          failed = false;
        } catch (FlightRuntimeException e) {
          failed = true;
        } finally {
          listener.close();
        }
        assertThat(failed).as("the cut-off call is not acknowledged").isTrue();
      }
      server.restart();
      try (FlightClient flight = FlightClient.builder(allocator, location).build()) {
        String answer = put(flight, allocator, 10, 10, key("second"));
        assertThat(answer).startsWith("{\"rows\":20000,");
        System.out.println("FlightIngestCrashIT retry after the kill: " + answer);
      }
      assertExactly(rpcPort, 40_000);
    } finally {
      server.close();
    }
  }
}
