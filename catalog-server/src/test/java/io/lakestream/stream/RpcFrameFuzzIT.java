package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.StateSnapshot;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.AdminMessages;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.testing.LogScans;
import io.lakestream.testing.PackagedServerExtension;
import io.lakestream.testing.RawRpcConnection;
import io.lakestream.testing.RecordingRpcProxy;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A seeded mutational fuzzer of stream RPC frames over every {@link ApiKey}, against the packaged
 * server process (issue 31: "an RPC frame fuzzer ... its corpus kept in the repository").
 *
 * <p>The corpus is {@code src/test/resources/rpc-fuzz-corpus}: one {@code .frame} file per input
 * (API key, version, the tables whose ids it names, the body in hex). The seeds ({@code seed-*})
 * are requests the Java client sent for every API key, recorded by a loopback proxy; inputs that
 * once made the server fail are kept beside them ({@code found-*}) and replayed on every run. A run
 * first replays the whole corpus, then mutates seeds (bit flips, truncations, length and count
 * fields that lie, random bytes, splices, another API key or version) until {@link #MUTATION_TIME}
 * and at least {@link #MIN_MUTANTS} mutants, then sends broken framing on fresh connections.
 *
 * <p>Every input must get a typed answer ({@link ErrorCode}, never {@code UNKNOWN_SERVER_ERROR})
 * or, for framing the server cannot parse, a clean close; nothing may stay unanswered past {@link
 * #ANSWER_TIMEOUT} (a fetch may long-poll for at most 30 s); a refused write changes no offset; the
 * tables then hold exactly what acknowledged writes put there, read back completely; the server
 * stays alive and logs no unexpected failure. An input that breaks one of these is saved to the
 * corpus as {@code found-<key>-<hash>.frame} (when the source tree is at hand) before the test
 * fails, so that it is replayed ever after.
 *
 * <p>Longer runs: {@code -Dlakestream.fuzz.seed=N -Dlakestream.fuzz.seconds=S}. Re-recording the
 * seeds (after a wire change): {@code -Dlakestream.fuzz.record-seeds=true} rewrites the {@code
 * seed-*} files from the current client.
 */
class RpcFrameFuzzIT {
  private static final long SEED = Long.getLong("lakestream.fuzz.seed", 31L);
  private static final Duration MUTATION_TIME =
      Duration.ofSeconds(Long.getLong("lakestream.fuzz.seconds", 25L));
  private static final int MIN_MUTANTS = 500;
  private static final int FRAMING_CASES = 60;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  // Above the server's 30 s cap on a fetch's long poll.
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(35);
  private static final Path CORPUS_SOURCE = Path.of("src/test/resources/rpc-fuzz-corpus");

  private static final Schema LOG_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "score", Types.DoubleType.get()));
  private static final Schema KEYED_SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "tenant", Types.StringType.get()),
              Types.NestedField.required(2, "id", Types.LongType.get()),
              Types.NestedField.optional(3, "v", Types.LongType.get())),
          Set.of(1, 2));
  private static final TablePath EVENTS = TablePath.of("fuzz.events");
  private static final TablePath STATE = TablePath.of("fuzz.state");
  private static final TablePath VICTIM = TablePath.of("scratch.victim");
  private static final int VALID_ROWS = 30;

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder()
          .withoutTiering()
          .flags("--rpc-request-timeout", REQUEST_TIMEOUT.toSeconds() + "s")
          .build();

  private static int rpcPort;
  private static Connection client;
  private static final List<String> failures = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    rpcPort = SERVER.rpcPort();
    client = Connection.open("127.0.0.1", rpcPort, null);
    client.admin().createNamespace(null, List.of("fuzz"));
    client.admin().createNamespace(null, List.of("scratch"));
    client.admin().createTable(EVENTS, TableDescriptor.logTable(LOG_SCHEMA, 2));
    client
        .admin()
        .createTable(
            STATE,
            TableDescriptor.of(
                KEYED_SCHEMA,
                Map.of(
                    "lakestream.kind", "primary-key",
                    "lakestream.buckets", "1",
                    "lakestream.bucket-key", "tenant")));
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void everyFrameGetsATypedAnswerAndNothingIsPartiallyWritten() throws Exception {
    if (Boolean.getBoolean("lakestream.fuzz.record-seeds")) {
      recordSeeds();
    }
    writeValidRows();
    client.admin().createTable(VICTIM, TableDescriptor.logTable(LOG_SCHEMA, 1));
    Map<String, String> ids = new TreeMap<>();
    ids.put(EVENTS.toString(), client.table(EVENTS).id());
    ids.put(STATE.toString(), client.table(STATE).id());

    List<Input> corpus = Corpus.load(ids);
    Set<ApiKey> seeded = EnumSet.noneOf(ApiKey.class);
    corpus.stream().filter(Input::isSeed).forEach(input -> seeded.add(input.key()));
    assertThat(seeded)
        .as("API keys with a seed in the corpus")
        .containsAll(EnumSet.allOf(ApiKey.class));

    Random random = new Random(SEED);
    Tally tally = new Tally();
    Oracle oracle = new Oracle();
    try (RawRpcConnection rpc = new RawRpcConnection(rpcPort, ANSWER_TIMEOUT)) {
      oracle.baseline(client);
      for (Input input : corpus) {
        if (input.rawFrame()) {
          sendRaw(input, "corpus " + input.name(), false, tally);
        } else {
          send(rpc, input, "corpus " + input.name(), oracle, tally);
        }
      }
      List<Input> seeds = corpus.stream().filter(Input::isSeed).toList();
      long deadline = System.nanoTime() + MUTATION_TIME.toNanos();
      for (int round = 0;
          (System.nanoTime() < deadline || round < MIN_MUTANTS) && failures.size() < 20;
          round++) {
        Input seed = seeds.get(random.nextInt(seeds.size()));
        Input mutant = Mutator.mutate(seed, seeds, random);
        if (dropsACheckedTable(mutant)) {
          // A splice of a name from another seed can make a valid drop of a table the oracle
          // checks: the server must carry it out, so it is not sent.
          continue;
        }
        send(rpc, mutant, "mutant " + round + " (seed " + SEED + ")", oracle, tally);
      }
    }
    for (int i = 0; i < FRAMING_CASES && failures.size() < 20; i++) {
      framing(corpus, random, i < 3, tally);
    }
    System.out.println("RpcFrameFuzzIT seed " + SEED + ": " + tally);

    // The server is alive and a valid request succeeds.
    assertThat(SERVER.process().process().isAlive()).as("server process alive").isTrue();
    try (Connection fresh = Connection.open("127.0.0.1", rpcPort, null)) {
      assertThat(fresh.admin().listTables(null, List.of("fuzz")))
          .as("tables of namespace fuzz")
          .containsExactlyInAnyOrder("events", "state");
      // Nothing partially written: offsets as the acknowledged writes left them, every row reads.
      oracle.checkOffsets(fresh, "after fuzzing");
      Table events = fresh.table(EVENTS);
      long scanned = scanRows(events);
      assertThat(scanned)
          .as("rows of fuzz.events: one per offset")
          .isEqualTo(oracle.latest(fresh, EVENTS).stream().mapToLong(Long::longValue).sum());
      assertThat(scanned)
          .as("rows of fuzz.events: the client's and those of acknowledged PRODUCE requests")
          .isEqualTo(VALID_ROWS + oracle.producedRows);
      Table state = fresh.table(STATE);
      Map<String, Object[]> rows = new TreeMap<>();
      try (StateSnapshot snapshot = state.snapshot("", 0)) {
        while (snapshot.hasNext()) {
          Object[] row = snapshot.next();
          rows.put(row[0] + "/" + row[1], row);
        }
      }
      if (!oracle.keyedWritesAcknowledged) {
        for (int i = 0; i < VALID_ROWS; i++) {
          assertThat(rows.get("t" + (i % 3) + "/" + i))
              .as("row %d written by the client", i)
              .containsExactly("t" + (i % 3), (long) i, (long) i * 10);
        }
        // The seed PUT_KV leaves one row (t9, 1001) each time it is acknowledged.
        assertThat(rows).hasSize(VALID_ROWS + Math.min(1, oracle.seedKeyedWrites));
      } else {
        // Acknowledged mutants wrote rows of their own (valid batches with other values).
        assertThat(rows).hasSizeGreaterThanOrEqualTo(VALID_ROWS);
      }
      Set<String> allowed = new HashSet<>(oracle.createdInScratch);
      allowed.add(VICTIM.name());
      assertThat(fresh.admin().listTables(null, List.of("scratch")))
          .as("tables of namespace scratch: only those acknowledged creates made")
          .isSubsetOf(allowed);
    }
    String log = SERVER.process().stdout() + SERVER.process().stderr();
    assertThat(log)
        .as("server log")
        .doesNotContain("Unexpected failure")
        .doesNotContain("Exception in thread");
    assertThat(failures).as("inputs the server failed on (saved to the corpus)").isEmpty();
    assertThat(tally.typedErrors).as("typed refusals (%s)", tally).isGreaterThan(MIN_MUTANTS / 2);
  }

  // ---- sending and judging ----

  private static void send(
      RawRpcConnection rpc, Input input, String what, Oracle oracle, Tally tally)
      throws IOException {
    RawRpcConnection.Answer answer;
    try {
      answer = rpc.call(input.request());
    } catch (SocketTimeoutException e) {
      fail(input, what + ": no answer within " + ANSWER_TIMEOUT);
      rpc.reconnect();
      return;
    } catch (EOFException | SocketException e) {
      // A well-framed request is answered, never dropped with its connection.
      fail(input, what + ": connection closed instead of an answer (" + e + ")");
      rpc.reconnect();
      return;
    }
    if (answer.error() == ErrorCode.UNKNOWN_SERVER_ERROR) {
      fail(input, what + ": answered " + answer.error() + " " + answer.message());
      return;
    }
    if (answer.error() == ErrorCode.NONE) {
      tally.acknowledged++;
      oracle.acknowledged(client, input, answer.body());
    } else {
      tally.typedErrors++;
      tally.byError.merge(answer.error(), 1, Integer::sum);
      if (input.key() == ApiKey.PRODUCE || input.key() == ApiKey.PUT_KV) {
        String changed = oracle.offsetsChanged(client);
        if (changed != null) {
          fail(input, what + ": refused with " + answer.error() + " but wrote: " + changed);
        }
      }
    }
  }

  /**
   * Broken framing on a fresh connection: a frame whose length field lies, a truncated frame,
   * random bytes, an oversized frame. Answers that come must be typed; the connection must be
   * closed within the request timeout, or at once when the client half-closes.
   */
  private static void framing(
      List<Input> corpus, Random random, boolean waitForTimeout, Tally tally) throws IOException {
    List<Input> framed = corpus.stream().filter(input -> !input.rawFrame()).toList();
    Input base = framed.get(random.nextInt(framed.size()));
    ByteBuffer frame = base.frame(7);
    byte[] bytes = Arrays.copyOf(frame.array(), frame.limit());
    String description;
    switch (random.nextInt(5)) {
      case 0 -> {
        int lie = bytes.length - 4 + 1 + random.nextInt(1 << 16);
        ByteBuffer.wrap(bytes).putInt(0, lie);
        description = "length field " + lie + " for " + (bytes.length - 4) + " bytes";
      }
      case 1 -> {
        // At least one byte: nothing sent at all is an idle connection, which the server rightly
        // keeps open until its request timeout, longer than this case waits.
        bytes = Arrays.copyOf(bytes, 1 + random.nextInt(bytes.length - 1));
        description = "frame truncated to " + bytes.length + " bytes";
      }
      case 2 -> {
        bytes = new byte[1 + random.nextInt(64)];
        random.nextBytes(bytes);
        description = "random bytes";
      }
      case 3 -> {
        int length = random.nextBoolean() ? Integer.MAX_VALUE : -1 - random.nextInt(1000);
        ByteBuffer.wrap(bytes).putInt(0, length);
        description = "length field " + length;
      }
      default -> {
        int small = random.nextInt(8);
        ByteBuffer.wrap(bytes).putInt(0, small);
        description = "length field " + small + " (shorter than a request header)";
      }
    }
    Input sent = new Input("framing", base.key(), base.version(), bytes, base.tables(), true);
    sendRaw(
        sent,
        "framing case (" + description + ", from " + base.name() + ")",
        waitForTimeout,
        tally);
  }

  /** Sends raw bytes on a fresh connection: answers must be typed, and the connection closed. */
  private static void sendRaw(Input sent, String what, boolean waitForTimeout, Tally tally)
      throws IOException {
    byte[] bytes = sent.body();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), rpcPort)) {
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      if (!waitForTimeout) {
        socket.shutdownOutput();
      }
      Duration within =
          waitForTimeout ? REQUEST_TIMEOUT.plusSeconds(5) : ANSWER_TIMEOUT.plusSeconds(5);
      String outcome = readUntilClosed(socket, within);
      if (outcome != null) {
        fail(sent, what + ": " + outcome);
      } else {
        tally.framingClosed++;
      }
    }
  }

  /** Null when every answer read was typed and the connection closed in time; else what failed. */
  private static String readUntilClosed(Socket socket, Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    DataInputStream in = new DataInputStream(socket.getInputStream());
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return "connection still open after " + within;
      }
      socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
      try {
        int length = in.readInt();
        in.readInt(); // request id
        ErrorCode error = ErrorCode.forCode(in.readShort());
        byte[] rest = in.readNBytes(length - 6);
        if (error == ErrorCode.UNKNOWN_SERVER_ERROR) {
          return "answered " + error + " " + new String(rest, StandardCharsets.UTF_8);
        }
      } catch (SocketTimeoutException e) {
        return "connection still open after " + within;
      } catch (EOFException | SocketException e) {
        return null;
      }
    }
  }

  private static void fail(Input input, String why) {
    failures.add(why + " [" + input.name() + "]");
    System.out.println("RpcFrameFuzzIT failure: " + why);
    Corpus.save(input, why);
  }

  // ---- the tables' contents ----

  private static void writeValidRows() {
    Table events = client.table(EVENTS);
    try (AppendWriter writer = events.newAppendWriter(WriterOptions.defaults().withBatchRows(10))) {
      for (int i = 0; i < VALID_ROWS; i++) {
        writer.append((long) i, "name-" + i, i * 0.5);
      }
    }
    Table state = client.table(STATE);
    try (UpsertWriter writer = state.newUpsertWriter(WriterOptions.defaults().withBatchRows(10))) {
      for (int i = 0; i < VALID_ROWS; i++) {
        writer.upsert("t" + (i % 3), (long) i, (long) i * 10);
      }
    }
  }

  private static long scanRows(Table table) {
    try (LogScanner scanner = table.newScanner()) {
      return LogScans.countToEnd(table, scanner);
    }
  }

  /**
   * What the tables should hold: the latest offsets of their buckets move only with acknowledged
   * writes, so a refused write that changed one was partially applied.
   */
  private static final class Oracle {
    private Map<TablePath, List<Long>> expected;
    final Set<String> createdInScratch = new HashSet<>();
    boolean keyedWritesAcknowledged;
    int seedKeyedWrites;
    long producedRows;

    void baseline(Connection connection) {
      expected = read(connection);
    }

    void acknowledged(Connection connection, Input input, byte[] answer) {
      switch (input.key()) {
        case PRODUCE -> {
          expected = read(connection); // it appended, unless a duplicate
          Messages.ProduceResponse response =
              Messages.ProduceResponse.decode(ByteBuffer.wrap(answer));
          if (!response.duplicate()) {
            producedRows += response.lastOffset() - response.baseOffset() + 1;
          }
        }
        case PUT_KV -> {
          expected = read(connection);
          if (input.isSeed()) {
            seedKeyedWrites++;
          } else {
            keyedWritesAcknowledged = true;
          }
        }
        case CREATE_TABLE -> {
          try {
            AdminMessages.CreateTableRequest request =
                AdminMessages.CreateTableRequest.decode(ByteBuffer.wrap(input.body()));
            if (request.namespace().equals(List.of("scratch"))) {
              createdInScratch.add(request.table());
            }
          } catch (RuntimeException e) {
            // A request this client cannot decode was acknowledged: listed tables will tell.
          }
        }
        default -> {}
      }
    }

    /** Null when no latest offset moved since the last acknowledged write; else which did. */
    String offsetsChanged(Connection connection) {
      Map<TablePath, List<Long>> now = read(connection);
      return now.equals(expected) ? null : "latest offsets " + expected + " became " + now;
    }

    private Map<TablePath, List<Long>> read(Connection connection) {
      Map<TablePath, List<Long>> now = new LinkedHashMap<>();
      now.put(EVENTS, latest(connection, EVENTS));
      now.put(STATE, latest(connection, STATE));
      return now;
    }

    void checkOffsets(Connection connection, String when) {
      String changed = offsetsChanged(connection);
      assertThat(changed).as("offsets %s", when).isNull();
    }

    List<Long> latest(Connection connection, TablePath path) {
      Table table = connection.table(path);
      List<Long> offsets = new ArrayList<>();
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        offsets.add(table.latestOffset(bucket));
      }
      return offsets;
    }
  }

  private static final class Tally {
    int acknowledged;
    int typedErrors;
    int framingClosed;
    final Map<ErrorCode, Integer> byError = new TreeMap<>();

    @Override
    public String toString() {
      return "acknowledged "
          + acknowledged
          + ", typed errors "
          + typedErrors
          + " "
          + byError
          + ", framing cases closed cleanly "
          + framingClosed;
    }
  }

  // ---- inputs, mutations and the corpus ----

  /**
   * One request: its key, version and body; {@code tables} maps table paths to the ids the body
   * names. {@code rawFrame} marks bytes sent as they are, framing included.
   */
  record Input(
      String name,
      ApiKey key,
      short version,
      byte[] body,
      Map<String, String> tables,
      boolean rawFrame) {
    boolean isSeed() {
      return name.startsWith("seed-");
    }

    RawRpcConnection.Request request() {
      return new RawRpcConnection.Request(key.id(), version, body);
    }

    ByteBuffer frame(int requestId) {
      return request().frame(requestId);
    }
  }

  private static final class Mutator {
    private static final int[] INTERESTING =
        new int[] {
          0,
          1,
          -1,
          2,
          7,
          8,
          255,
          256,
          Short.MAX_VALUE,
          Short.MIN_VALUE,
          65535,
          1 << 20,
          Integer.MAX_VALUE,
          Integer.MIN_VALUE,
          Integer.MAX_VALUE / 4
        };

    static Input mutate(Input seed, List<Input> seeds, Random random) {
      byte[] body = seed.body().clone();
      ApiKey key = seed.key();
      short version = seed.version();
      StringBuilder how = new StringBuilder();
      int steps = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
      for (int step = 0; step < steps; step++) {
        switch (random.nextInt(9)) {
          case 0, 1 -> {
            if (body.length > 0) {
              int position = random.nextInt(body.length);
              body[position] ^= (byte) (1 << random.nextInt(8));
              how.append("flip@").append(position).append(' ');
            }
          }
          case 2 -> {
            int keep = body.length == 0 ? 0 : random.nextInt(body.length);
            body = Arrays.copyOf(body, keep);
            how.append("truncate@").append(keep).append(' ');
          }
          case 3, 4 -> {
            // A length or count field that lies: an int16 or int32 at any position.
            if (body.length >= 4) {
              int position = random.nextInt(body.length - 3);
              int value = INTERESTING[random.nextInt(INTERESTING.length)];
              if (random.nextBoolean()) {
                ByteBuffer.wrap(body).putShort(position, (short) value);
                how.append("int16@").append(position);
              } else {
                ByteBuffer.wrap(body).putInt(position, value);
                how.append("int32@").append(position);
              }
              how.append('=').append(value).append(' ');
            }
          }
          case 5 -> {
            byte[] noise = new byte[random.nextInt(48)];
            random.nextBytes(noise);
            int at = body.length == 0 ? 0 : random.nextInt(body.length + 1);
            byte[] joined = new byte[body.length + noise.length];
            System.arraycopy(body, 0, joined, 0, at);
            System.arraycopy(noise, 0, joined, at, noise.length);
            System.arraycopy(body, at, joined, at + noise.length, body.length - at);
            body = joined;
            how.append("insert").append(noise.length).append('@').append(at).append(' ');
          }
          case 6 -> {
            body = new byte[random.nextInt(96)];
            random.nextBytes(body);
            how.append("random").append(body.length).append(' ');
          }
          case 7 -> {
            Input other = seeds.get(random.nextInt(seeds.size()));
            if (random.nextBoolean() && other.key() != ApiKey.DROP_TABLE) {
              // This body under another key (never DROP_TABLE: a METADATA body naming fuzz.events
              // is a valid drop of it).
              key = other.key();
              how.append("key=").append(key).append(' ');
            } else if (other.body().length > 0 && body.length > 0) {
              int from = random.nextInt(other.body().length);
              int to = random.nextInt(body.length);
              int length =
                  Math.min(
                      1 + random.nextInt(64),
                      Math.min(other.body().length - from, body.length - to));
              System.arraycopy(other.body(), from, body, to, length);
              how.append("splice").append(length).append('@').append(to).append(' ');
            }
          }
          default -> {
            version = (short) (random.nextInt(4) - 1);
            how.append("version=").append(version).append(' ');
          }
        }
      }
      if ((key == ApiKey.PRODUCE || key == ApiKey.PUT_KV) && random.nextBoolean()) {
        // As a buggy writer would: a fresh batch (no writer id, so no duplicate) whose CRC matches
        // its mutated bytes, so that only the full check of its structure stands in the way.
        if (resealBatch(body, key, version)) {
          how.append("resealed ");
        }
      }
      if (Arrays.equals(body, seed.body()) && key == seed.key() && version == seed.version()) {
        body = Arrays.copyOf(body, body.length + 1);
        how.append("append0 ");
      }
      return new Input(
          "mutant of " + seed.name() + ": " + how.toString().trim(),
          key,
          version,
          body,
          seed.tables(),
          false);
    }
  }

  /** Clears the writer id of the request's batch and recomputes its CRC; false if none is found. */
  private static boolean resealBatch(byte[] body, ApiKey key, short version) {
    ByteBuffer batch;
    try {
      ByteBuffer buffer = ByteBuffer.wrap(body);
      batch =
          key == ApiKey.PRODUCE
              ? Messages.ProduceRequest.decode(buffer, version).batch()
              : Messages.PutKvRequest.decode(buffer).batch();
    } catch (RuntimeException e) {
      return false;
    }
    int start = batch.arrayOffset() + batch.position();
    int length = batch.remaining();
    if (length < LogBatch.HEADER_SIZE) {
      return false;
    }
    ByteBuffer bytes = ByteBuffer.wrap(body);
    bytes.putLong(start + LogBatch.WRITER_ID, LogBatch.NO_WRITER);
    CRC32C crc = new CRC32C();
    crc.update(body, start + LogBatch.ATTRIBUTES, length - LogBatch.ATTRIBUTES);
    bytes.putInt(start + LogBatch.CRC, (int) crc.getValue());
    return true;
  }

  /**
   * The corpus directory. A file reads:
   *
   * <pre>
   * # comment
   * key PRODUCE
   * version 1
   * table fuzz.events 6f1c...   (a table id the body names, replaced by the current one)
   * hex 0024...                 (the body, over as many hex lines as needed)
   * raw                         (optional: hex is a whole frame, sent as it is)
   * </pre>
   */
  static final class Corpus {
    static List<Input> load(Map<String, String> currentIds) throws IOException {
      List<Path> files;
      Path directory = Files.isDirectory(CORPUS_SOURCE) ? CORPUS_SOURCE : classpathCorpus();
      try (Stream<Path> listed = Files.list(directory)) {
        files = listed.filter(p -> p.toString().endsWith(".frame")).sorted().toList();
      }
      List<Input> inputs = new ArrayList<>();
      for (Path file : files) {
        inputs.add(read(file, currentIds));
      }
      return inputs;
    }

    private static Path classpathCorpus() {
      try {
        return Path.of(RpcFrameFuzzIT.class.getResource("/rpc-fuzz-corpus").toURI());
      } catch (Exception e) {
        throw new IllegalStateException("No rpc-fuzz-corpus on the test classpath", e);
      }
    }

    private static Input read(Path file, Map<String, String> currentIds) throws IOException {
      ApiKey key = null;
      short version = 0;
      boolean raw = false;
      Map<String, String> tables = new TreeMap<>();
      StringBuilder hex = new StringBuilder();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] words = line.trim().split("\\s+");
        switch (words[0]) {
          case "key" -> key = ApiKey.valueOf(words[1]);
          case "version" -> version = Short.parseShort(words[1]);
          case "table" -> tables.put(words[1], words[2]);
          case "hex" -> hex.append(words.length > 1 ? words[1] : "");
          case "raw" -> raw = true;
          default -> {} // comments and blank lines
        }
      }
      if (key == null) {
        throw new IllegalStateException(file + " names no key");
      }
      byte[] body = HexFormat.of().parseHex(hex);
      for (Map.Entry<String, String> table : tables.entrySet()) {
        String now = currentIds.get(table.getKey());
        if (now != null) {
          body = replace(body, table.getValue(), now);
        }
      }
      String name = file.getFileName().toString().replace(".frame", "");
      return new Input(name, key, version, body, Map.copyOf(currentIds), raw);
    }

    private static byte[] replace(byte[] body, String from, String to) {
      byte[] old = from.getBytes(StandardCharsets.UTF_8);
      byte[] now = to.getBytes(StandardCharsets.UTF_8);
      if (old.length != now.length) {
        return body;
      }
      byte[] result = body.clone();
      for (int i = 0; i + old.length <= result.length; i++) {
        if (Arrays.equals(result, i, i + old.length, old, 0, old.length)) {
          System.arraycopy(now, 0, result, i, now.length);
        }
      }
      return result;
    }

    static void write(Path file, Input input, String comment) {
      StringBuilder text = new StringBuilder();
      for (String line : comment.split("\n")) {
        text.append("# ").append(line).append('\n');
      }
      text.append("key ").append(input.key()).append('\n');
      text.append("version ").append(input.version()).append('\n');
      input
          .tables()
          .forEach(
              (path, id) -> text.append("table ").append(path).append(' ').append(id).append('\n'));
      if (input.rawFrame()) {
        text.append("raw\n");
      }
      String hex = HexFormat.of().formatHex(input.body());
      for (int i = 0; i < hex.length(); i += 64) {
        text.append("hex ").append(hex, i, Math.min(hex.length(), i + 64)).append('\n');
      }
      if (hex.isEmpty()) {
        text.append("hex\n");
      }
      try {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Keeps a failing input in the source tree's corpus, when the test runs from it. */
    static void save(Input input, String why) {
      if (!Files.isDirectory(CORPUS_SOURCE)) {
        return;
      }
      String hash =
          Integer.toHexString(
              Arrays.hashCode(input.body()) * 31 + input.key().ordinal() * 7 + input.version());
      String name =
          "found-" + input.key().name().toLowerCase(java.util.Locale.ROOT) + "-" + hash + ".frame";
      write(CORPUS_SOURCE.resolve(name), input, why);
    }
  }

  // ---- recording the seeds ----

  /** Sends a request of every API key through the real client and keeps them as seeds. */
  private static void recordSeeds() throws Exception {
    Files.createDirectories(CORPUS_SOURCE);
    try (Stream<Path> old = Files.list(CORPUS_SOURCE)) {
      for (Path file : old.filter(p -> p.getFileName().toString().startsWith("seed-")).toList()) {
        Files.delete(file);
      }
    }
    Map<String, String> ids = new TreeMap<>();
    try (RecordingRpcProxy proxy = new RecordingRpcProxy(rpcPort)) {
      try (Connection connection = Connection.open("127.0.0.1", proxy.port(), null)) {
        connection.admin().createNamespace(null, List.of("scratch", "made"));
        connection
            .admin()
            .createTable(TablePath.of("scratch.created"), TableDescriptor.logTable(LOG_SCHEMA, 1));
        connection.admin().createTable(VICTIM, TableDescriptor.logTable(LOG_SCHEMA, 1));
        connection.admin().listTables(null, List.of("fuzz"));
        // The victim's, not a table the oracle checks: spliced into a DROP_TABLE, its name bytes
        // make a valid drop.
        connection.admin().describe(VICTIM);
        connection.admin().dropTable(VICTIM);
        Table events = connection.table(EVENTS);
        ids.put(EVENTS.toString(), events.id());
        try (AppendWriter writer =
            events.newAppendWriter(WriterOptions.defaults().withBatchRows(5))) {
          for (int i = 0; i < 5; i++) {
            writer.append((long) (1000 + i), "seed-" + i, 1.5 * i);
          }
        }
        events.latestOffset(0);
        events.fetch(0, 0, 1 << 16, 0, new int[0], ByteBuffer.allocate(0)).join();
        Table state = connection.table(STATE);
        ids.put(STATE.toString(), state.id());
        try (UpsertWriter writer =
            state.newUpsertWriter(WriterOptions.defaults().withBatchRows(5))) {
          writer.upsert("t9", 1000L, 1L);
          writer.upsert("t9", 1001L, 2L);
          writer.delete("t9", 1000L);
        }
        state.newLookuper().lookup("t9", 1001L).join();
        state.newLookuper().prefixLookup("t9").join();
        try (StateSnapshot snapshot = state.snapshot("", 0)) {
          while (snapshot.hasNext()) {
            snapshot.next();
          }
        }
      }
      try {
        Connection.open("127.0.0.1", proxy.port(), "not-a-token").close();
      } catch (RpcException expected) {
        // refused (auth is off, but a token given is still checked): recorded all the same
      }
      // The client asks for partitions of partitioned tables only: this request is made by hand.
      List<Input> frames = new ArrayList<>();
      for (RawRpcConnection.Request request : proxy.requests()) {
        frames.add(
            new Input(
                "recorded",
                ApiKey.forId(request.apiKey()),
                request.version(),
                request.body(),
                Map.of(),
                false));
      }
      frames.add(
          new Input(
              "made",
              ApiKey.LIST_PARTITIONS,
              (short) 0,
              toArray(new Messages.ListPartitionsRequest(ids.get(EVENTS.toString())).encode()),
              Map.of(),
              false));
      Map<ApiKey, Integer> counts = new LinkedHashMap<>();
      for (Input frame : frames) {
        int n = counts.merge(frame.key(), 1, Integer::sum);
        if (n > 2) {
          continue;
        }
        String name = "seed-" + frame.key().name().toLowerCase(java.util.Locale.ROOT) + "-" + n;
        Input seed = new Input(name, frame.key(), frame.version(), frame.body(), ids, false);
        Corpus.write(
            CORPUS_SOURCE.resolve(name + ".frame"),
            seed,
            "Seed: a "
                + frame.key()
                + " request as the Java client sent it (recorded by RpcFrameFuzzIT)");
      }
    }
  }

  /** Whether the input is a well-formed DROP_TABLE of fuzz.events or fuzz.state. */
  private static boolean dropsACheckedTable(Input input) {
    if (input.key() != ApiKey.DROP_TABLE) {
      return false;
    }
    AdminMessages.DropTableRequest request;
    try {
      request = AdminMessages.DropTableRequest.decode(ByteBuffer.wrap(input.body()));
    } catch (RuntimeException malformed) {
      return false;
    }
    for (TablePath checked : List.of(EVENTS, STATE)) {
      if (checked.namespace().equals(request.namespace())
          && checked.name().equals(request.table())) {
        return true;
      }
    }
    return false;
  }

  private static byte[] toArray(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
