package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.client.rpc.Messages.ProduceResponse;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import io.lakestream.testing.TestBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Log tables end to end through the server's stream RPC: tables created through the Iceberg REST
 * API, batches appended and fetched by the Java client, typed errors for every kind of bad input.
 */
class StreamRpcTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "url", Types.StringType.get()));

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM = LakestreamExtension.builder().build();

  private static LakestreamServer server;
  private static RESTCatalog catalog;
  private static Connection connection;

  @BeforeAll
  static void start() {
    server = LAKESTREAM.server();
    catalog = LAKESTREAM.catalog();
    catalog.createNamespace(Namespace.of("web"), new HashMap<>());
    catalog.createTable(
        TableIdentifier.of("web", "clicks"),
        SCHEMA,
        org.apache.iceberg.PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    catalog.createTable(TableIdentifier.of("web", "plain"), SCHEMA);
    connection = LAKESTREAM.connection();
  }

  private static LogBatch batch(Table table, String text, int records) {
    return batch(table.schemaId(), text, records, LogBatch.NO_WRITER, 0);
  }

  private static final org.apache.arrow.vector.types.pojo.Schema ARROW_SCHEMA =
      IcebergArrowSchemas.toArrowSchema(SCHEMA);

  /** A batch of {@code records} rows whose url is {@code text}, as the Java client writes it. */
  private static LogBatch batch(int schemaId, String text, int records, long writer, int sequence) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      rows.add(new Object[] {(long) i, text});
    }
    return TestBatches.batch(ARROW_SCHEMA, schemaId, rows, writer, sequence);
  }

  /** The url of each batch's first row. */
  private static List<String> payloads(ByteBuffer batches) {
    List<String> texts = new ArrayList<>();
    while (batches.hasRemaining()) {
      int size = LogBatch.LOG_OVERHEAD + batches.getInt(batches.position() + LogBatch.LENGTH);
      LogBatch batch = LogBatch.wrap(batches.slice(batches.position(), size));
      assertThat(batch.isValid()).isTrue();
      texts.add((String) TestBatches.rows(batch, ARROW_SCHEMA).get(0).get(1));
      batches.position(batches.position() + size);
    }
    return texts;
  }

  private static RpcException rpcError(ThrowingCall call) {
    try {
      call.run();
    } catch (ExecutionException e) {
      return (RpcException) e.getCause();
    } catch (RpcException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("Expected an RpcException, got " + e, e);
    }
    throw new AssertionError("Expected an RpcException");
  }

  private interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void logTablesAreIcebergTablesWithStreamProperties() {
    Table table = connection.table(TablePath.of("web.clicks"));
    assertThat(table.kind()).isEqualTo("log");
    assertThat(table.buckets()).isEqualTo(2);
    assertThat(table.id())
        .isEqualTo(catalog.loadTable(TableIdentifier.of("web", "clicks")).uuid().toString());
    assertThat(table.schemaJson()).contains("\"url\"");
    assertThat(rpcError(() -> connection.table(TablePath.of("web.plain"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(rpcError(() -> connection.table(TablePath.of("web.missing"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_TABLE);
  }

  @Test
  void tablesLookedUpAgainShareTheirParsedArrowSchema() {
    Table first = connection.table(TablePath.of("web.clicks"));
    Table again = connection.table(TablePath.of("web.clicks"));
    assertThat(again).isNotSameAs(first);
    org.apache.arrow.vector.types.pojo.Schema schema = first.arrowSchema(first.schemaId());
    assertThat(schema.getFields().stream().map(field -> field.getName()).toList())
        .containsExactly("id", "url");
    assertThat(again.arrowSchema(again.schemaId())).isSameAs(schema);
  }

  @Test
  void invalidStreamPropertiesAreRefusedAtCreation() {
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    TableIdentifier.of("web", "bad"),
                    SCHEMA,
                    org.apache.iceberg.PartitionSpec.unpartitioned(),
                    new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "0"))))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.buckets");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    TableIdentifier.of("web", "bad"),
                    SCHEMA,
                    org.apache.iceberg.PartitionSpec.unpartitioned(),
                    new HashMap<>(Map.of("lakestream.kind", "queue"))))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("Invalid lakestream.kind 'queue'");
    assertThat(catalog.tableExists(TableIdentifier.of("web", "bad"))).isFalse();
  }

  @Test
  void appendedBatchesAreFetchedInOrderPerBucket() throws Exception {
    catalog.createTable(
        TableIdentifier.of("web", "ordered"),
        SCHEMA,
        org.apache.iceberg.PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    Table table = connection.table(TablePath.of("web.ordered"));
    List<CompletableFuture<ProduceResponse>> acks = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      acks.add(table.append(i % 2, batch(table, "batch-" + i, 5)));
    }
    for (CompletableFuture<ProduceResponse> ack : acks) {
      ack.get(30, TimeUnit.SECONDS);
    }
    assertThat(acks.get(0).get().baseOffset()).isZero();
    assertThat(acks.get(2).get().baseOffset()).isEqualTo(5);
    assertThat(table.latestOffset(0)).isEqualTo(25);
    assertThat(table.earliestOffset(1)).isZero();
    FetchResponse bucket1 = table.fetch(1, 0, 1 << 20, 0, new int[0], ByteBuffer.allocate(0)).get();
    assertThat(payloads(bucket1.batches()))
        .containsExactly("batch-1", "batch-3", "batch-5", "batch-7", "batch-9");
    assertThat(bucket1.highWatermark()).isEqualTo(25);
    assertThat(bucket1.nextOffset()).isEqualTo(25);
    FetchResponse middle = table.fetch(0, 12, 1 << 20, 0, new int[0], ByteBuffer.allocate(0)).get();
    assertThat(payloads(middle.batches())).startsWith("batch-4");
    assertThat(table.offsetForTimestamp(0, 0)).isZero();
    assertThat(table.offsetForTimestamp(0, Long.MAX_VALUE)).isEqualTo(25);
  }

  @Test
  void aWaitingFetchReturnsAsSoonAsABatchArrives() throws Exception {
    catalog.createTable(
        TableIdentifier.of("web", "live"),
        SCHEMA,
        org.apache.iceberg.PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log")));
    Table table = connection.table(TablePath.of("web.live"));
    CompletableFuture<FetchResponse> waiting =
        table.fetch(0, 0, 1 << 20, 20_000, new int[0], ByteBuffer.allocate(0));
    assertThat(waiting).isNotDone();
    table.append(0, batch(table, "fresh", 1)).get(30, TimeUnit.SECONDS);
    FetchResponse response = waiting.get(15, TimeUnit.SECONDS);
    assertThat(payloads(response.batches())).containsExactly("fresh");
  }

  @Test
  void retriedBatchesAreDeduplicatedOverTheWire() throws Exception {
    Table table = connection.table(TablePath.of("web.clicks"));
    ProduceResponse first = table.append(1, batch(table.schemaId(), "once", 3, 77, 0)).get();
    ProduceResponse retry = table.append(1, batch(table.schemaId(), "once", 3, 77, 0)).get();
    assertThat(first.duplicate()).isFalse();
    assertThat(retry.duplicate()).isTrue();
    assertThat(retry.baseOffset()).isEqualTo(first.baseOffset());
    assertThat(
            rpcError(() -> table.append(1, batch(table.schemaId(), "gap", 1, 77, 9)).get()).error())
        .isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE);
  }

  /**
   * A client whose batch's statistics leave out one of its values (here the smallest url, last in a
   * batch whose urls otherwise rise) is refused, so that no filtered read skips a batch holding
   * rows it asks for; the same rows with true statistics are taken.
   */
  @Test
  void aBatchWhoseStatisticsLeaveOutAValueIsRefused() throws Exception {
    Table table = connection.table(TablePath.of("web.clicks"));
    long before = table.latestOffset(0);
    List<Object[]> rows = new ArrayList<>();
    List<Object[]> claimed = new ArrayList<>();
    for (int i = 1; i < 100; i++) {
      Object[] row = {(long) i, String.format("https://example.com/page/%04d", i)};
      rows.add(row);
      claimed.add(row);
    }
    rows.add(new Object[] {100L, "https://example.com/page/0000"});
    claimed.add(new Object[] {100L, "https://example.com/page/0050"});
    LogBatch lying =
        LogBatch.create(
            rows.size(),
            table.schemaId(),
            LogBatch.NO_WRITER,
            0,
            (short) Compression.NONE.ordinal(),
            TestBatches.payloadClaiming(ARROW_SCHEMA, rows, claimed, Compression.NONE));
    RpcException refused = rpcError(() -> table.append(0, lying).get());
    assertThat(refused.error()).isEqualTo(ErrorCode.INVALID_BATCH);
    assertThat(refused.getMessage()).contains("statistics of column url");
    assertThat(table.latestOffset(0)).isEqualTo(before);
    table
        .append(0, TestBatches.batch(ARROW_SCHEMA, table.schemaId(), rows, LogBatch.NO_WRITER, 0))
        .get();
    assertThat(table.latestOffset(0)).isEqualTo(before + rows.size());
  }

  @Test
  void badInputGetsTypedErrorsAndWritesNothing() throws Exception {
    Table table = connection.table(TablePath.of("web.clicks"));
    long before = table.latestOffset(0);
    assertThat(rpcError(() -> table.append(5, batch(table, "x", 1)).get()).error())
        .isEqualTo(ErrorCode.UNKNOWN_BUCKET);
    RpcException schema = rpcError(() -> table.append(0, batch(99, "x", 1, -1, 0)).get());
    assertThat(schema.error()).isEqualTo(ErrorCode.SCHEMA_MISMATCH);
    assertThat(schema.getMessage()).contains("no schema 99");
    LogBatch corrupt = batch(table, "payload", 1);
    ByteBuffer bytes = corrupt.buffer();
    bytes.put(bytes.limit() - 1, (byte) (bytes.get(bytes.limit() - 1) ^ 0x10));
    assertThat(rpcError(() -> table.append(0, LogBatch.wrap(bytes)).get()).error())
        .isEqualTo(ErrorCode.INVALID_BATCH);
    assertThat(
            rpcError(
                    () ->
                        table
                            .fetch(0, before + 100, 1024, 0, new int[0], ByteBuffer.allocate(0))
                            .get())
                .error())
        .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
    assertThat(table.latestOffset(0)).isEqualTo(before);
    assertThat(connection.isOpen()).isTrue();
  }

  @Test
  void droppingATableDropsItsStream() throws Exception {
    catalog.createTable(
        TableIdentifier.of("web", "doomed"),
        SCHEMA,
        org.apache.iceberg.PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log")));
    Table table = connection.table(TablePath.of("web.doomed"));
    table.append(0, batch(table, "x", 1)).get();
    Path streams = LAKESTREAM.dataDir().resolve("streams").resolve(table.id());
    assertThat(Files.exists(streams)).isTrue();
    catalog.dropTable(TableIdentifier.of("web", "doomed"), false);
    assertThat(Files.exists(streams)).isFalse();
    assertThat(rpcError(() -> table.append(0, batch(table, "y", 1)).get()).error())
        .isEqualTo(ErrorCode.UNKNOWN_TABLE);
  }
}
