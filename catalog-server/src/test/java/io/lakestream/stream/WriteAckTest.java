package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriteAck;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-row acknowledgements of the writers: each {@code append}, {@code upsert} and {@code delete}
 * returns the future of its batch's {@link WriteAck}; a refused batch fails its rows' futures and
 * no others; batches are cut by rows or by bytes as {@link WriterOptions} says.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriteAckTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("acks").build();

  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  // Batches are cut only when full or flushed: the linger never runs out during a test.
  private static final WriterOptions NO_LINGER =
      WriterOptions.defaults().withLinger(Duration.ofHours(1));

  private static Table create(String name, TableDescriptor descriptor) {
    TablePath path = TablePath.of("acks." + name);
    LAKESTREAM.connection().admin().createTable(path, descriptor);
    return LAKESTREAM.connection().table(path);
  }

  private static WriteAck await(CompletableFuture<WriteAck> ack) throws Exception {
    return ack.get(60, TimeUnit.SECONDS);
  }

  /** The offset of each row of bucket 0, by the id in its first column, as a scanner reads it. */
  private static Map<Long, Long> offsetsById(Table table, long end) {
    Map<Long, Long> offsets = new HashMap<>();
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribe(0, LogScanner.earliest());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (scanner.position(0) < end) {
        assertThat(System.nanoTime() - deadline).as("scan deadline").isNegative();
        for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
          try (batch) {
            List<Object[]> rows = batch.rows();
            for (int i = 0; i < rows.size(); i++) {
              offsets.put((Long) rows.get(i)[0], batch.baseOffset() + i);
            }
          }
        }
      }
    }
    return offsets;
  }

  @Test
  void eachRowsFutureCompletesWithTheOffsetsOfItsBatchOnceDurable() throws Exception {
    Table table = create("log_acks", TableDescriptor.logTable(SCHEMA, 1));
    List<CompletableFuture<WriteAck>> acks = new ArrayList<>();
    try (AppendWriter writer = table.newAppendWriter(NO_LINGER.withBatchRows(4))) {
      for (long id = 0; id < 10; id++) {
        acks.add(writer.append(id, "row-" + id));
      }
      // Two full batches went out; the last two rows wait in the open batch until a flush.
      await(acks.get(7));
      assertThat(acks.get(8)).isNotDone();
      assertThat(acks.get(9)).isNotDone();
      writer.flush();
      assertThat(acks).allMatch(CompletableFuture::isDone);
    }
    // Rows of a batch share its future; other batches have their own.
    assertThat(acks.subList(0, 4)).allMatch(ack -> ack == acks.get(0));
    assertThat(acks.subList(4, 8)).allMatch(ack -> ack == acks.get(4));
    assertThat(acks.get(9)).isSameAs(acks.get(8));
    assertThat(acks.get(4)).isNotSameAs(acks.get(0));
    assertThat(acks.get(8)).isNotSameAs(acks.get(4));

    // What a reader finds: each row at an offset inside its acknowledgement's range.
    Map<Long, Long> offsets = offsetsById(table, table.latestOffset(0));
    assertThat(offsets).hasSize(10);
    for (int id = 0; id < 10; id++) {
      WriteAck ack = await(acks.get(id));
      assertThat(ack.bucket()).isEqualTo(new TableBucket("", 0));
      assertThat(ack.duplicate()).isFalse();
      assertThat(offsets.get((long) id)).isBetween(ack.baseOffset(), ack.lastOffset());
    }
    assertThat(await(acks.get(0)).rows()).isEqualTo(4);
    assertThat(await(acks.get(0)).recordCount()).isEqualTo(4);
    assertThat(await(acks.get(8)).rows()).isEqualTo(2);
    assertThat(await(acks.get(8)).lastOffset()).isEqualTo(table.latestOffset(0) - 1);
  }

  @Test
  void aBatchIsCutAtItsByteLimitAndARowLargerThanTheLimitGoesAlone() throws Exception {
    Table table = create("byte_acks", TableDescriptor.logTable(SCHEMA, 1));
    // A row counts 8 bytes for the long, 4 for the string's offset and 100 for its 100 chars:
    // 112 bytes, so a 1,000-byte batch is full at its ninth row (1,008 bytes).
    String hundredChars = "x".repeat(100);
    List<CompletableFuture<WriteAck>> acks = new ArrayList<>();
    CompletableFuture<WriteAck> large;
    try (AppendWriter writer =
        table.newAppendWriter(NO_LINGER.withBatchRows(1000).withBatchBytes(1000))) {
      for (long id = 0; id < 18; id++) {
        acks.add(writer.append(id, hundredChars));
      }
      await(acks.get(17));
      large = writer.append(18L, "y".repeat(5000));
      await(large);
      acks.add(writer.append(19L, hundredChars));
      writer.flush();
    }
    assertThat(await(acks.get(0)).rows()).isEqualTo(9);
    assertThat(acks.subList(0, 9)).allMatch(ack -> ack == acks.get(0));
    assertThat(await(acks.get(9)).rows()).isEqualTo(9);
    assertThat(acks.get(9)).isNotSameAs(acks.get(0));
    assertThat(await(large).rows()).isEqualTo(1);
    assertThat(await(acks.get(18)).rows()).isEqualTo(1);
    assertThat(offsetsById(table, table.latestOffset(0))).hasSize(20);
  }

  @Test
  void aBatchTheServerRefusesFailsItsRowsFuturesAndNoOthers() throws Exception {
    Table table = create("pk_acks", TableDescriptor.primaryKeyTable(SCHEMA, List.of("id"), 2));
    List<Long> inBucket0 = new ArrayList<>();
    List<Long> inBucket1 = new ArrayList<>();
    for (long key = 1; inBucket0.size() < 2 || inBucket1.size() < 5; key++) {
      int bucket = AppendWriter.bucketOf(new Object[] {key, null}, new int[] {0}, 2);
      List<Long> keys = bucket == 0 ? inBucket0 : inBucket1;
      if (keys.size() < (bucket == 0 ? 2 : 5)) {
        keys.add(key);
      }
    }
    UpsertWriter writer = table.newUpsertWriter(NO_LINGER.withBatchRows(3));
    // Batch A: three good rows of bucket 1, sent when full and acknowledged.
    List<CompletableFuture<WriteAck>> batchA = new ArrayList<>();
    for (long key : inBucket1.subList(0, 3)) {
      batchA.add(writer.upsert(key, "a-" + key));
    }
    WriteAck ackA = await(batchA.get(2));
    assertThat(ackA.bucket()).isEqualTo(new TableBucket("", 1));
    // Batch C opens in bucket 1 with two rows; it is sent only by the flush below.
    List<CompletableFuture<WriteAck>> batchC = new ArrayList<>();
    for (long key : inBucket1.subList(3, 5)) {
      batchC.add(writer.upsert(key, "c-" + key));
    }
    // Batch B: two good rows of bucket 0 and one without its key (a null hashes to bucket 0), which
    // the server refuses, and with it the whole batch.
    List<CompletableFuture<WriteAck>> batchB = new ArrayList<>();
    for (long key : inBucket0) {
      batchB.add(writer.upsert(key, "b-" + key));
    }
    batchB.add(writer.upsert(null, "no key"));
    for (CompletableFuture<WriteAck> ack : batchB) {
      assertThatThrownBy(() -> ack.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(RpcException.class)
          .satisfies(
              e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.INVALID_MUTATION));
    }
    assertThat(batchC).noneMatch(CompletableFuture::isDone);

    // flush() sends the open batch C, then reports the failure; C keeps its own outcome.
    assertThatThrownBy(writer::flush)
        .isInstanceOf(RpcException.class)
        .satisfies(
            e -> assertThat(((RpcException) e).error()).isEqualTo(ErrorCode.INVALID_MUTATION));
    WriteAck ackC = await(batchC.get(0));
    assertThat(batchC.get(1)).isSameAs(batchC.get(0));
    assertThat(ackC.bucket()).isEqualTo(new TableBucket("", 1));
    assertThat(ackC.rows()).isEqualTo(2);
    assertThat(batchA).allMatch(ack -> ack.isDone() && !ack.isCompletedExceptionally());
    // A failed writer takes no more rows.
    assertThatThrownBy(() -> writer.upsert(inBucket1.get(0), "late"))
        .isInstanceOf(RpcException.class);
    assertThatThrownBy(writer::close).isInstanceOf(RpcException.class);

    Lookuper lookuper = table.newLookuper();
    for (long key : inBucket1.subList(0, 3)) {
      assertThat(lookuper.lookup(key).get(30, TimeUnit.SECONDS)).containsExactly(key, "a-" + key);
    }
    for (long key : inBucket1.subList(3, 5)) {
      assertThat(lookuper.lookup(key).get(30, TimeUnit.SECONDS)).containsExactly(key, "c-" + key);
    }
    for (long key : inBucket0) {
      assertThat(lookuper.lookup(key).get(30, TimeUnit.SECONDS)).isNull();
    }

    // A delete is acknowledged like an upsert; once it is, lookups no longer see the key.
    try (UpsertWriter deleter = table.newUpsertWriter(NO_LINGER)) {
      CompletableFuture<WriteAck> deleted = deleter.delete(inBucket1.get(0));
      deleter.flush();
      WriteAck ack = await(deleted);
      assertThat(ack.bucket()).isEqualTo(new TableBucket("", 1));
      assertThat(ack.recordCount()).isEqualTo(1);
    }
    assertThat(lookuper.lookup(inBucket1.get(0)).get(30, TimeUnit.SECONDS)).isNull();
  }
}
