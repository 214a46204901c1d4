package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.stream.AckTrackingWriter.Ack;
import io.lakestream.stream.AckTrackingWriter.SentBatch;
import io.lakestream.testing.CrashRounds;
import io.lakestream.testing.PackagedServer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash consistency of log tables. The packaged server runs as a separate process; several
 * idempotent writers ({@link AckTrackingWriter}) append to every bucket and record what the server
 * acknowledged; the server is killed with SIGKILL at a random moment, restarted on the same data
 * directory and ports, and the writers resend what was in doubt with the same sequence before they
 * go on. After every restart, and once more after the last one with nothing left in doubt, every
 * bucket is read back from offset 0 and must hold each acknowledged batch exactly once, at its
 * acknowledged offset, with each writer's sequences in order without gaps or repeats, and with
 * contiguous offsets up to the high watermark.
 *
 * <p>The seed is printed; rerun a failure with {@code -Dlakestream.crash.seed=N}.
 */
class LogCrashConsistencyIT {
  private static final String HOST = "127.0.0.1";
  private static final TablePath TABLE = TablePath.of("crash.events");
  private static final int ROUNDS = 20;
  private static final int WRITERS = 4;
  private static final int BUCKETS = 3;
  private static final int MIN_ACKS_BEFORE_KILL = 5;
  private static final int ACKS_BEFORE_KILL_SPREAD = 60;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration WRITER_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path temp;

  /** Identifies a batch: writer ids and sequences are per bucket. */
  private record BatchKey(int bucket, long writerId, int sequence) {
    static BatchKey of(SentBatch batch) {
      return new BatchKey(batch.bucket(), batch.writerId(), batch.sequence());
    }
  }

  private record StoredBatch(
      long baseOffset, int recordCount, long writerId, int sequence, ByteBuffer payload) {}

  private record BucketContents(long highWatermark, List<StoredBatch> batches) {}

  @Test
  void acknowledgedBatchesSurviveSigkillExactlyOnceAndInOrder() throws Exception {
    long seed = Long.getLong("lakestream.crash.seed", System.nanoTime());
    System.out.println("LogCrashConsistencyIT seed " + seed);
    Random random = new Random(seed);
    long started = System.nanoTime();

    List<AckTrackingWriter> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      writers.add(new AckTrackingWriter(1_000 + i, BUCKETS, random.nextLong()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    PackagedServer server = PackagedServer.start(temp, START_TIMEOUT);
    int rpcPort = server.rpcPort();
    try {
      createLogTable(server);
      for (int round = 1; round <= ROUNDS; round++) {
        int killAfterAcks = MIN_ACKS_BEFORE_KILL + random.nextInt(ACKS_BEFORE_KILL_SPREAD);
        CountDownLatch acknowledged = new CountDownLatch(killAfterAcks);
        writers.forEach(writer -> writer.onAck(acknowledged::countDown));
        long roundStarted = System.nanoTime();
        try (Connection connection = Connection.open(HOST, rpcPort, null)) {
          Table table = connection.table(TABLE);
          if (round > 1) {
            verify(table, writers, true, seed, "after restart " + (round - 1));
          }
          List<Future<?>> running = new ArrayList<>();
          for (AckTrackingWriter writer : writers) {
            running.add(
                pool.submit(
                    () -> {
                      writer.writeUntilConnectionFails(connection, table);
                      return null;
                    }));
          }
          // A random kill moment: after a random number of new acknowledgements, with more
          // batches in flight.
          assertThat(acknowledged.await(60, TimeUnit.SECONDS))
              .as("round %d: %d acknowledgements within 60 s (seed %d)", round, killAfterAcks, seed)
              .isTrue();
          server.kill();
          CrashRounds.awaitWriters(running, WRITER_TIMEOUT, "kill", round, seed);
        }
        long restarting = System.nanoTime();
        server.restart();
        System.out.printf(
            Locale.ROOT,
            "round %d: killed after %d acknowledgements (%d ms), ready again after %d ms; %d"
                + " batches acknowledged,"
                + " %d in doubt%n",
            round,
            killAfterAcks,
            TimeUnit.NANOSECONDS.toMillis(restarting - roundStarted),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarting),
            writers.stream().mapToInt(writer -> writer.acks().size()).sum(),
            writers.stream().mapToInt(AckTrackingWriter::inDoubtCount).sum());
      }

      try (Connection connection = Connection.open(HOST, rpcPort, null)) {
        Table table = connection.table(TABLE);
        verify(table, writers, true, seed, "after restart " + ROUNDS);
        for (AckTrackingWriter writer : writers) {
          writer.resolveInDoubt(connection, table);
        }
        verify(table, writers, false, seed, "after resolving every in-doubt batch");
      }

      // One more crash with nothing in flight: the rebuilt writer state must still know every
      // writer's last batch, and nothing may change.
      server.kill();
      server.restart();
      long records;
      try (Connection connection = Connection.open(HOST, rpcPort, null)) {
        Table table = connection.table(TABLE);
        for (AckTrackingWriter writer : writers) {
          writer.replayLastAcknowledged(connection, table);
        }
        records = verify(table, writers, false, seed, "after the final restart");
      }

      int acked = writers.stream().mapToInt(writer -> writer.acks().size()).sum();
      int putInDoubt = writers.stream().mapToInt(AckTrackingWriter::batchesPutInDoubt).sum();
      int foundWritten = writers.stream().mapToInt(AckTrackingWriter::retriesFoundWritten).sum();
      int appended = writers.stream().mapToInt(AckTrackingWriter::retriesAppended).sum();
      int replays = writers.stream().mapToInt(AckTrackingWriter::replaysDeduplicated).sum();
      int abandoned = writers.stream().mapToInt(AckTrackingWriter::abandonedResponses).sum();
      System.out.printf(
          Locale.ROOT,
          "LogCrashConsistencyIT seed %d: %d rounds of SIGKILL while writing, %d writers x %d"
              + " buckets; %d batches (%d records) acknowledged; %d batches in doubt at a kill"
              + " (%d already written, %d appended on retry); %d replays deduplicated;"
              + " %d responses abandoned; %d s%n",
          seed,
          ROUNDS,
          WRITERS,
          BUCKETS,
          acked,
          records,
          putInDoubt,
          foundWritten,
          appended,
          replays,
          abandoned,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));

      assertThat(acked).as("acknowledged batches (seed %d)", seed).isGreaterThan(ROUNDS);
      assertThat(putInDoubt)
          .as("kills must catch batches in flight (seed %d)", seed)
          .isPositive()
          .isEqualTo(foundWritten + appended);
      assertThat(foundWritten)
          .as("in-doubt batches the killed server had written (seed %d)", seed)
          .isPositive();
      assertThat(appended)
          .as("in-doubt batches the killed server had not written (seed %d)", seed)
          .isPositive();
      assertThat(replays)
          .as("last batches replayed after the final restart (seed %d)", seed)
          .isEqualTo(WRITERS * BUCKETS);
    } finally {
      server.close();
      pool.shutdownNow();
    }
  }

  private static void createLogTable(PackagedServer server) throws IOException {
    try (RESTCatalog catalog = server.openCatalog()) {
      catalog.createNamespace(Namespace.of("crash"), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of("crash", "events"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
          PartitionSpec.unpartitioned(),
          new HashMap<>(
              Map.of("lakestream.kind", "log", "lakestream.buckets", Integer.toString(BUCKETS))));
    }
  }

  /**
   * Reads every bucket from offset 0 and checks it against what the writers know.
   *
   * @param allowInDoubt whether batches still in doubt may be present (at most once, last of their
   *     writer); otherwise every batch in the log must be acknowledged
   * @return the number of records in the table
   */
  private static long verify(
      Table table, List<AckTrackingWriter> writers, boolean allowInDoubt, long seed, String when)
      throws Exception {
    Map<BatchKey, Ack> acked = new HashMap<>();
    Map<BatchKey, SentBatch> inDoubt = new HashMap<>();
    for (AckTrackingWriter writer : writers) {
      for (Ack ack : writer.acks()) {
        if (acked.put(BatchKey.of(ack.batch()), ack) != null) {
          throw new AssertionError("Batch acknowledged twice by the writer: " + ack);
        }
      }
      if (allowInDoubt) {
        writer.inDoubtBatches().forEach(batch -> inDoubt.put(BatchKey.of(batch), batch));
      }
    }
    List<String> violations = new ArrayList<>();
    long records = 0;
    for (int bucket = 0; bucket < BUCKETS; bucket++) {
      BucketContents contents = read(table, bucket);
      records += contents.highWatermark();
      check(bucket, contents, acked, inDoubt, violations);
    }
    CrashRounds.assertNoViolations(violations, when, seed);
    return records;
  }

  private static void check(
      int bucket,
      BucketContents contents,
      Map<BatchKey, Ack> acked,
      Map<BatchKey, SentBatch> inDoubt,
      List<String> violations) {
    long expectedOffset = 0;
    long records = 0;
    Map<Long, Integer> nextSequence = new HashMap<>();
    Set<BatchKey> found = new HashSet<>();
    for (StoredBatch stored : contents.batches()) {
      String where =
          "bucket " + bucket + " offset " + stored.baseOffset() + " writer " + stored.writerId();
      if (stored.baseOffset() != expectedOffset) {
        violations.add(where + ": offsets not contiguous, expected " + expectedOffset);
      }
      expectedOffset = stored.baseOffset() + stored.recordCount();
      records += stored.recordCount();
      int expectedSequence = nextSequence.getOrDefault(stored.writerId(), 0);
      if (stored.sequence() != expectedSequence) {
        violations.add(
            where + ": sequence " + stored.sequence() + " where " + expectedSequence + " is next");
      }
      nextSequence.put(stored.writerId(), stored.sequence() + 1);
      BatchKey key = new BatchKey(bucket, stored.writerId(), stored.sequence());
      if (!found.add(key)) {
        violations.add(where + ": sequence " + stored.sequence() + " stored twice");
      }
      Ack ack = acked.get(key);
      SentBatch sent = ack != null ? ack.batch() : inDoubt.get(key);
      if (sent == null) {
        violations.add(
            where + ": sequence " + stored.sequence() + " was neither acknowledged nor in doubt");
        continue;
      }
      if (ack != null && ack.baseOffset() != stored.baseOffset()) {
        violations.add(where + ": " + sent + " was acknowledged at " + ack.baseOffset());
      }
      if (stored.recordCount() != sent.recordCount() || !stored.payload().equals(sent.payload())) {
        violations.add(where + ": contents differ from the " + sent + " that was sent");
      }
    }
    if (expectedOffset != contents.highWatermark() || records != contents.highWatermark()) {
      violations.add(
          "bucket "
              + bucket
              + ": batches end at "
              + expectedOffset
              + " and hold "
              + records
              + " records, high watermark is "
              + contents.highWatermark());
    }
    acked.forEach(
        (key, ack) -> {
          if (key.bucket() == bucket && !found.contains(key)) {
            violations.add("bucket " + bucket + ": acknowledged " + ack + " is missing");
          }
        });
  }

  private static BucketContents read(Table table, int bucket) throws Exception {
    long highWatermark = table.latestOffset(bucket);
    List<StoredBatch> batches = new ArrayList<>();
    long offset = 0;
    while (offset < highWatermark) {
      FetchResponse response =
          table
              .fetch(bucket, offset, 1 << 20, 0, new int[0], ByteBuffer.allocate(0))
              .get(FETCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(response.logStartOffset()).as("log start of bucket %d", bucket).isZero();
      ByteBuffer bytes = response.batches();
      assertThat(bytes.hasRemaining())
          .as("fetch of bucket %d at %d below high watermark %d", bucket, offset, highWatermark)
          .isTrue();
      while (bytes.hasRemaining()) {
        int size = LogBatch.LOG_OVERHEAD + bytes.getInt(bytes.position() + LogBatch.LENGTH);
        LogBatch batch = LogBatch.wrap(bytes.slice(bytes.position(), size));
        assertThat(batch.isValid())
            .as("CRC of the batch at offset %d of bucket %d", batch.baseOffset(), bucket)
            .isTrue();
        assertThat(batch.nextOffset())
            .as("end of the batch fetched at offset %d of bucket %d", offset, bucket)
            .isGreaterThan(offset);
        batches.add(
            new StoredBatch(
                batch.baseOffset(),
                batch.recordCount(),
                batch.writerId(),
                batch.writerSequence(),
                copy(batch.payload())));
        offset = batch.nextOffset();
        bytes.position(bytes.position() + size);
      }
    }
    return new BucketContents(highWatermark, batches);
  }

  private static ByteBuffer copy(ByteBuffer buffer) {
    ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
    copy.put(buffer.duplicate());
    return copy.flip();
  }
}
