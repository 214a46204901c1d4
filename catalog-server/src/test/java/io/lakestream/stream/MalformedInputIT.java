package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.StateSnapshot;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.ColumnPredicate;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.FetchResponse;
import io.lakestream.client.rpc.Messages.ProduceRequest;
import io.lakestream.client.rpc.Messages.PutKvRequest;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.LogScans;
import io.lakestream.testing.PackagedServerExtension;
import io.lakestream.testing.RawRpcConnection;
import io.lakestream.testing.RawRpcConnection.Request;
import io.lakestream.testing.RecordingRpcProxy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.iceberg.PartitionSpec;
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
 * One bad client must not poison a table, against the packaged server process.
 *
 * <p>A deterministic fuzzer takes PRODUCE and PUT_KV requests exactly as the Java client sent them
 * (recorded by a loopback proxy between client and server; uncompressed, LZ4 and ZSTD), flips bits,
 * truncates and splices bytes at many positions (seeded, a few seconds per request kind), sends
 * each mutant over a raw RPC socket, and requires every one either refused with a typed error or
 * acknowledged and read back byte for byte as sent. Mutants come with their CRC left as it was (a
 * corruption in transit) and with it recomputed over the mutated bytes (a buggy writer): only the
 * full check of a batch's structure stops the latter. Afterwards both tables scan completely, with
 * and without projection and filter, and the server logged no unexpected failure.
 *
 * <p>Also: a {@code lakestream.*} property value out of bounds is refused at create (no table is
 * left) and at alter (the property is unchanged), over REST and the stream RPC.
 */
class MalformedInputIT {
  private static final long SEED = Long.getLong("lakestream.fuzz.seed", 30L);
  private static final Duration FUZZ_TIME_PER_KIND = Duration.ofSeconds(4);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  // Header bytes the server assigns on append (base offset, commit timestamp): outside the CRC.
  private static final int UNPROTECTED_END = LogBatch.CRC;

  private static final Schema LOG_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "score", Types.DoubleType.get()),
          Types.NestedField.optional(4, "flag", Types.BooleanType.get()));
  private static final Schema KEYED_SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get()),
              Types.NestedField.optional(3, "qty", Types.IntegerType.get())),
          java.util.Set.of(1));

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder().withoutTiering().startTimeout(START_TIMEOUT).build();

  private static int rpcPort;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() {
    rpcPort = SERVER.rpcPort();
    catalog = SERVER.catalog();
    catalog.createNamespace(Namespace.of("fuzz"), new HashMap<>());
  }

  @Test
  void noMalformedBatchIsStoredAndNoneFailsTheServer() throws Exception {
    catalog.createTable(
        TableIdentifier.of("fuzz", "events"),
        LOG_SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    catalog.createTable(
        TableIdentifier.of("fuzz", "state"),
        KEYED_SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "1")));

    List<Request> seeds = recordClientRequests();
    List<Request> produces = seeds.stream().filter(f -> f.apiKey() == ApiKey.PRODUCE.id()).toList();
    List<Request> puts = seeds.stream().filter(f -> f.apiKey() == ApiKey.PUT_KV.id()).toList();
    assertThat(produces).as("PRODUCE requests the client sent").hasSizeGreaterThanOrEqualTo(3);
    assertThat(puts).as("PUT_KV requests the client sent").hasSizeGreaterThanOrEqualTo(2);

    Random random = new Random(SEED);
    Tally tally = new Tally();
    try (Connection direct = Connection.open("127.0.0.1", rpcPort, null);
        RawRpcConnection rpc = new RawRpcConnection(rpcPort, Duration.ofSeconds(30))) {
      Table events = direct.table(TablePath.of("fuzz.events"));
      fuzz(rpc, events, produces, random, tally);
      // The log still reads completely: every row the client wrote and every acknowledged mutant.
      long expectedRows = 3 * 40 + tally.appendedRows;
      assertThat(scanRows(events, List.of(), BatchFilter.MATCH_ALL)).isEqualTo(expectedRows);
      assertThat(
              scanRows(
                  events,
                  List.of("name", "id"),
                  BatchFilter.of(ColumnPredicate.greaterThanOrEqual(0, 0L))))
          .isPositive();
      Table state = direct.table(TablePath.of("fuzz.state"));
      fuzz(rpc, state, puts, random, tally);
      assertThat(scanRows(state, List.of(), BatchFilter.MATCH_ALL)).isPositive();
      try (StateSnapshot snapshot = state.snapshot("", 0)) {
        int rows = 0;
        while (snapshot.hasNext()) {
          snapshot.next();
          rows++;
        }
        assertThat(rows).isPositive();
      }
    }
    System.out.println("MalformedInputIT seed " + SEED + ": " + tally);
    assertThat(tally.refused).as("mutants refused (%s)", tally).isGreaterThan(100);
    assertThat(tally.refusedAfterCrc)
        .as("mutants with a recomputed CRC refused by the structural check (%s)", tally)
        .isGreaterThan(20);
    String log = SERVER.process().stdout() + SERVER.process().stderr();
    assertThat(log).doesNotContain("Unexpected failure").doesNotContain("Exception in thread");
  }

  @Test
  void outOfBoundsPropertiesAreRefusedAtCreateAndAlter() throws Exception {
    TableIdentifier bad = TableIdentifier.of("fuzz", "never");
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    bad,
                    LOG_SCHEMA,
                    PartitionSpec.unpartitioned(),
                    new HashMap<>(
                        Map.of(
                            "lakestream.kind", "log",
                            "lakestream.tiering.interval", "999999999999d"))))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.tiering.interval")
        .hasMessageContaining("999999999999d");
    assertThat(catalog.tableExists(bad)).isFalse();
    assertThatThrownBy(
            () ->
                catalog.createTable(
                    bad,
                    LOG_SCHEMA,
                    PartitionSpec.unpartitioned(),
                    new HashMap<>(
                        Map.of("lakestream.kind", "log", "lakestream.merge-engine", "first-row"))))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.merge-engine");
    assertThat(catalog.tableExists(bad)).isFalse();

    TableIdentifier good = TableIdentifier.of("fuzz", "altered");
    catalog.createTable(
        good,
        LOG_SCHEMA,
        PartitionSpec.unpartitioned(),
        new HashMap<>(
            Map.of(
                "lakestream.kind",
                "log",
                "lakestream.buckets",
                "2",
                "lakestream.tiering.interval",
                "10s")));
    org.apache.iceberg.Table table = catalog.loadTable(good);
    assertThatThrownBy(
            () ->
                table
                    .updateProperties()
                    .set("lakestream.tiering.interval", "999999999999d")
                    .commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.tiering.interval '999999999999d'");
    assertThatThrownBy(() -> table.updateProperties().set("lakestream.buckets", "1").commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.buckets cannot shrink");
    assertThatThrownBy(() -> table.updateProperties().set("lakestream.kind", "tape").commit())
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.kind 'tape'");
    assertThat(catalog.loadTable(good).properties())
        .containsEntry("lakestream.tiering.interval", "10s")
        .containsEntry("lakestream.buckets", "2");

    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      TablePath path = TablePath.of("fuzz.never");
      assertThatThrownBy(
              () ->
                  connection
                      .admin()
                      .createTable(
                          path,
                          TableDescriptor.logTable(LOG_SCHEMA, 1)
                              .withProperty("lakestream.tiering.interval", "999999999999d")))
          .isInstanceOf(RpcException.class)
          .hasMessageContaining("999999999999d")
          .extracting(e -> ((RpcException) e).error())
          .isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
      assertThat(connection.admin().tableExists(path)).isFalse();
    }
  }

  /** Writes rows through the real client, through a proxy that records its requests. */
  private static List<Request> recordClientRequests() throws Exception {
    try (RecordingRpcProxy proxy = new RecordingRpcProxy(rpcPort);
        Connection connection = Connection.open("127.0.0.1", proxy.port(), null)) {
      Table events = connection.table(TablePath.of("fuzz.events"));
      int id = 0;
      for (Compression compression : Compression.values()) {
        try (AppendWriter writer =
            events.newAppendWriter(
                WriterOptions.defaults().withBatchRows(40).withCompression(compression))) {
          for (int i = 0; i < 40; i++, id++) {
            writer.append(
                (long) id,
                i % 7 == 0 ? null : "name-" + id + "-" + "x".repeat(i % 13),
                i % 5 == 0 ? null : id * 1.5,
                i % 3 == 0 ? null : i % 2 == 0);
          }
        }
      }
      Table state = connection.table(TablePath.of("fuzz.state"));
      for (Compression compression : List.of(Compression.NONE, Compression.ZSTD)) {
        try (UpsertWriter writer =
            state.newUpsertWriter(
                WriterOptions.defaults().withBatchRows(30).withCompression(compression))) {
          for (int i = 0; i < 25; i++) {
            writer.upsert((long) i, "row-" + i + "-" + compression, i % 4 == 0 ? null : i * 3);
          }
          for (int i = 0; i < 5; i++) {
            writer.delete((long) (i * 5));
          }
        }
      }
      return proxy.requests();
    }
  }

  private static void fuzz(
      RawRpcConnection rpc, Table table, List<Request> seeds, Random random, Tally tally)
      throws IOException {
    long deadline = System.nanoTime() + FUZZ_TIME_PER_KIND.toNanos();
    int round = 0;
    while (System.nanoTime() < deadline || round < 200) {
      Request seed = seeds.get(random.nextInt(seeds.size()));
      Mutant mutant = mutate(seed, seeds, random);
      RawRpcConnection.Answer response = rpc.call(seed.apiKey(), seed.version(), mutant.body);
      String what = "round " + round + " (seed " + SEED + "): " + mutant.description;
      assertThat(response.error())
          .as("%s answered %s", what, response.message())
          .isNotEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
      if (response.error() == ErrorCode.NONE) {
        tally.acknowledged++;
        assertThat(mutant.crcStale && !mutant.onlyUnprotected())
            .as("%s was acknowledged although its CRC no longer matched", what)
            .isFalse();
        if (seed.apiKey() == ApiKey.PRODUCE.id()) {
          checkReadBack(table, mutant, response, what, tally);
        }
      } else {
        tally.refused++;
        if (!mutant.crcStale) {
          tally.refusedAfterCrc++;
        }
      }
      round++;
    }
  }

  /** An acknowledged PRODUCE must read back as the bytes that were sent. */
  private static void checkReadBack(
      Table table, Mutant mutant, RawRpcConnection.Answer response, String what, Tally tally) {
    ByteBuffer body = ByteBuffer.wrap(response.body());
    long baseOffset = body.getLong();
    long lastOffset = body.getLong();
    boolean duplicate = body.get() != 0;
    if (duplicate) {
      return;
    }
    ProduceRequest request = ProduceRequest.decode(mutant.body.duplicate(), (short) 1);
    LogBatch sent = LogBatch.wrap(request.batch());
    FetchResponse fetched =
        table
            .fetch(request.bucket(), baseOffset, 1 << 20, 0, new int[0], ByteBuffer.allocate(0))
            .join();
    ByteBuffer bytes = fetched.batches();
    LogBatch stored =
        LogBatch.wrap(
            bytes.slice(
                bytes.position(),
                LogBatch.LOG_OVERHEAD + bytes.getInt(bytes.position() + LogBatch.LENGTH)));
    assertThat(stored.baseOffset()).as(what).isEqualTo(baseOffset);
    assertThat(lastOffset - baseOffset + 1).as(what).isEqualTo(sent.recordCount());
    assertThat(stored.buffer().position(LogBatch.CRC))
        .as("%s is stored as sent", what)
        .isEqualTo(sent.buffer().position(LogBatch.CRC));
    tally.appendedRows += sent.recordCount();
  }

  private static long scanRows(Table table, List<String> columns, BatchFilter filter) {
    try (LogScanner scanner = table.newScanner(columns, filter)) {
      return LogScans.countToEnd(table, scanner);
    }
  }

  // ---- mutations ----

  /** A mutated request body and how it was made. */
  private record Mutant(
      ByteBuffer body, String description, boolean crcStale, List<Integer> batchPositions) {
    /** Whether every changed batch byte lies in the header fields the server assigns. */
    boolean onlyUnprotected() {
      return !batchPositions.isEmpty()
          && batchPositions.stream()
              .allMatch(
                  p ->
                      p < LogBatch.LENGTH
                          || (p >= LogBatch.COMMIT_TIMESTAMP && p < UNPROTECTED_END));
    }
  }

  private static Mutant mutate(Request seed, List<Request> seeds, Random random) {
    ByteBuffer body = ByteBuffer.wrap(seed.body().clone());
    int batchStart = batchStart(seed);
    int batchLength = body.limit() - batchStart;
    // Independent writes: the mutants are not retries of the client's batches.
    body.putLong(batchStart + LogBatch.WRITER_ID, LogBatch.NO_WRITER);
    body.putInt(batchStart + LogBatch.WRITER_SEQUENCE, 0);
    writeCrc(body, batchStart, batchLength);
    ByteBuffer original = ByteBuffer.wrap(body.array().clone());
    int kind = random.nextInt(7);
    boolean recomputeCrc = kind >= 2 && random.nextInt(4) != 0;
    List<Integer> positions = new ArrayList<>();
    String description;
    switch (kind) {
      case 0, 2, 3 -> {
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
          int position = pickPosition(random, batchLength);
          body.put(
              batchStart + position,
              (byte) (body.get(batchStart + position) ^ (1 << random.nextInt(8))));
          positions.add(position);
        }
        description = "flipped bits at batch bytes " + positions;
      }
      case 1, 4 -> {
        // Truncated: the batch's length field (and the request's byte array length) say so.
        int keep = random.nextInt(batchLength);
        ByteBuffer shorter = ByteBuffer.allocate(batchStart + keep);
        shorter.put(body.duplicate().limit(batchStart + keep));
        body = shorter.flip();
        body.putInt(batchStart - 4, keep);
        if (keep >= LogBatch.LENGTH + 4 && random.nextBoolean()) {
          body.putInt(batchStart + LogBatch.LENGTH, keep - LogBatch.LOG_OVERHEAD);
        }
        batchLength = keep;
        description = "truncated the batch to " + keep + " of its bytes";
      }
      case 5 -> {
        Request other = seeds.get(random.nextInt(seeds.size()));
        int otherStart = batchStart(other);
        int otherLength = other.body().length - otherStart;
        int from =
            LogBatch.HEADER_SIZE + random.nextInt(Math.max(1, otherLength - LogBatch.HEADER_SIZE));
        int to =
            LogBatch.HEADER_SIZE + random.nextInt(Math.max(1, batchLength - LogBatch.HEADER_SIZE));
        int length =
            Math.min(1 + random.nextInt(64), Math.min(otherLength - from, batchLength - to));
        body.put(batchStart + to, other.body(), otherStart + from, Math.max(0, length));
        description = "spliced " + length + " bytes of another batch in at batch byte " + to;
      }
      default -> {
        // Anywhere in the request: table id, partition, bucket, operations, lengths, batch.
        int position = random.nextInt(body.limit());
        body.put(position, (byte) (body.get(position) ^ (1 << random.nextInt(8))));
        description =
            "flipped a bit at request byte " + position + " (batch from " + batchStart + ")";
      }
    }
    // What really changed: a flip or splice may leave a byte as it was.
    List<Integer> changed = changedPositions(original, body, batchStart);
    if (recomputeCrc && batchLength >= LogBatch.HEADER_SIZE) {
      int declared = body.getInt(batchStart + LogBatch.LENGTH) + LogBatch.LOG_OVERHEAD;
      if (declared == batchLength) {
        writeCrc(body, batchStart, batchLength);
        return new Mutant(body, description + ", CRC recomputed", false, changed);
      }
    }
    return new Mutant(body, description, !changed.isEmpty(), changed);
  }

  /**
   * The batch byte positions where {@code mutated} differs from {@code original}; a batch of
   * another length differs at its end.
   */
  private static List<Integer> changedPositions(
      ByteBuffer original, ByteBuffer mutated, int batchStart) {
    List<Integer> changed = new ArrayList<>();
    if (original.limit() != mutated.limit()) {
      changed.add(Math.min(original.limit(), mutated.limit()) - batchStart);
      return changed;
    }
    for (int i = batchStart; i < original.limit(); i++) {
      if (original.get(i) != mutated.get(i)) {
        changed.add(i - batchStart);
      }
    }
    return changed;
  }

  /** Mostly the header and the Arrow metadata and statistics, where structure lives. */
  private static int pickPosition(Random random, int batchLength) {
    int window = Math.min(batchLength, 600);
    return random.nextInt(3) == 0 ? random.nextInt(batchLength) : random.nextInt(window);
  }

  private static void writeCrc(ByteBuffer body, int batchStart, int batchLength) {
    CRC32C crc = new CRC32C();
    crc.update(
        body.duplicate()
            .position(batchStart + LogBatch.ATTRIBUTES)
            .limit(batchStart + batchLength));
    body.putInt(batchStart + LogBatch.CRC, (int) crc.getValue());
  }

  /** Where the batch bytes start in a PRODUCE (version 1) or PUT_KV request body. */
  private static int batchStart(Request frame) {
    ByteBuffer body = ByteBuffer.wrap(frame.body());
    ByteBuffer batch =
        frame.apiKey() == ApiKey.PRODUCE.id()
            ? ProduceRequest.decode(body, frame.version()).batch()
            : PutKvRequest.decode(body).batch();
    // The batch is the last field of both requests.
    return frame.body().length - batch.remaining();
  }

  private static final class Tally {
    int acknowledged;
    int refused;
    int refusedAfterCrc;
    long appendedRows;

    @Override
    public String toString() {
      return "acknowledged "
          + acknowledged
          + ", refused "
          + refused
          + " ("
          + refusedAfterCrc
          + " with a matching CRC), appended rows "
          + appendedRows;
    }
  }
}
