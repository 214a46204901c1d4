package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriteAck;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.LakestreamExtension;
import io.lakestream.testing.RecordingRpcProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A writer keeps filling its next batch while earlier ones are in flight: handing a batch off never
 * waits for an in-flight permit, and only opening a batch beyond the limit waits, without holding
 * the writer's lock. The server's answers are held back by a proxy to keep batches in flight.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriterPipeliningTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("pipelining").build();

  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  private static final long DEADLINE_SECONDS = 60;

  @Test
  void aFullBatchIsHandedOffWithoutAPermitAndOnlyTheBatchAfterItWaits() throws Exception {
    TablePath path = TablePath.of("pipelining.held");
    LAKESTREAM.connection().admin().createTable(path, TableDescriptor.logTable(SCHEMA, 1));
    WriterOptions options =
        WriterOptions.defaults()
            .withLinger(Duration.ofHours(1))
            .withBatchRows(2)
            .withMaxInFlightRequests(1);
    try (RecordingRpcProxy proxy = new RecordingRpcProxy(LAKESTREAM.server().rpcPort());
        Connection connection = Connection.open("127.0.0.1", proxy.port(), null)) {
      Table table = connection.table(path);
      try (AppendWriter writer = table.newAppendWriter(options)) {
        proxy.holdRequests();
        try {
          // The first batch is sent and its request held: it is in flight, the only one allowed.
          CompletableFuture<WriteAck> first = writer.append(0L, "row-0");
          writer.append(1L, "row-1");

          // The second batch fills and is handed off although no permit is free.
          CompletableFuture<CompletableFuture<WriteAck>> second =
              CompletableFuture.supplyAsync(
                  () -> {
                    writer.append(2L, "row-2");
                    return writer.append(3L, "row-3");
                  });
          CompletableFuture<WriteAck> secondAck = second.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
          assertThat(first).isNotDone();
          assertThat(secondAck).isNotDone();

          // A third batch would put two batches beyond the limit: its first row waits for room.
          CompletableFuture<WriteAck>[] thirdAck = newAckHolder();
          Thread third = Thread.ofPlatform().start(() -> thirdAck[0] = writer.append(4L, "row-4"));
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
          while (third.getState() != Thread.State.TIMED_WAITING
              && third.getState() != Thread.State.WAITING) {
            assertThat(third.isAlive()).as("the third batch's append waits").isTrue();
            assertThat(System.nanoTime() - deadline).as("waiting deadline").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
          }
          assertThat(thirdAck[0]).isNull();

          // The held requests go through: every batch is sent and acknowledged, in order.
          proxy.releaseRequests();
          third.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
          assertThat(third.isAlive()).isFalse();
          writer.flush();
          List<WriteAck> acks =
              List.of(
                  first.get(DEADLINE_SECONDS, TimeUnit.SECONDS),
                  secondAck.get(DEADLINE_SECONDS, TimeUnit.SECONDS),
                  thirdAck[0].get(DEADLINE_SECONDS, TimeUnit.SECONDS));
          assertThat(acks).extracting(WriteAck::baseOffset).containsExactly(0L, 2L, 4L);
          assertThat(acks).extracting(WriteAck::lastOffset).containsExactly(1L, 3L, 4L);
          assertThat(acks).extracting(WriteAck::duplicate).containsOnly(false);
        } finally {
          // Whatever failed, the writer's close() must not wait for answers the proxy holds.
          proxy.releaseRequests();
        }
      }
      assertThat(table.latestOffset(0)).isEqualTo(5);
    }
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<WriteAck>[] newAckHolder() {
    return new CompletableFuture[1];
  }
}
