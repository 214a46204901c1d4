package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The server a tiering test class runs against: a JUnit 5 extension that starts one {@link
 * EmbeddedLakestream} in a fresh temporary directory before the class's first test, creates the
 * class's namespace in its catalog, and closes the server and deletes the directory after the last
 * test. Register it in a static field:
 *
 * <pre>{@code
 * @RegisterExtension static final TieringFixture fixture = TieringFixture.manualRounds("exp");
 * }</pre>
 *
 * <p>Besides the server's catalog and stream connection it offers what tiering tests do to their
 * tables: create one in the namespace, load its lake table, read the lake table back with Iceberg's
 * generic reader (failing on a row read twice), list its data files, ask the server for a table's
 * tiering status and poll for a condition with a deadline. Not thread safe: one test class uses it
 * from its test thread.
 */
public final class TieringFixture implements BeforeAllCallback, AfterAllCallback {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private final String namespace;
  private final Map<String, String> settings;
  private Path data;
  private EmbeddedLakestream lakestream;
  private LakeCatalog lake;
  private HttpClient http;

  private TieringFixture(String namespace, Map<String, String> settings) {
    this.namespace = requireNonNull(namespace, "namespace is null");
    this.settings = Map.copyOf(requireNonNull(settings, "settings is null"));
  }

  /**
   * A server whose tiering service is off ({@code tiering.enabled=false}): the test runs every
   * round itself, on tables in {@code namespace}.
   */
  public static TieringFixture manualRounds(String namespace) {
    return new TieringFixture(namespace, Map.of("tiering.enabled", "false"));
  }

  /**
   * A server whose tiering service looks for new tables every second ({@code
   * tiering.discovery-interval=1s}), on tables in {@code namespace}; each table's own interval says
   * when the service tiers it.
   */
  public static TieringFixture serviceDiscoveringEverySecond(String namespace) {
    return new TieringFixture(namespace, Map.of("tiering.discovery-interval", "1s"));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    data = Files.createTempDirectory("lakestream-tiering-");
    lakestream = EmbeddedLakestream.start(data, settings);
    lakestream.catalog().createNamespace(Namespace.of(namespace), new HashMap<>());
    lake = IcebergLakeCatalog.of(lakestream.catalog());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (http != null) {
        http.close();
      }
      if (lakestream != null) {
        lakestream.close();
      }
    } finally {
      if (data != null) {
        deleteRecursively(data);
      }
    }
  }

  public EmbeddedLakestream lakestream() {
    return requireNonNull(lakestream, "the server is not started: register the fixture static");
  }

  public RESTCatalog catalog() {
    return lakestream().catalog();
  }

  public Connection connection() {
    return lakestream().connection();
  }

  /** The server's catalog as tiering sees it ({@link IcebergLakeCatalog}). */
  public LakeCatalog lake() {
    return requireNonNull(lake, "the server is not started: register the fixture static");
  }

  /** The catalog's record of tiered offsets, which the server keeps by default. */
  public TieredOffsetsStore tieredOffsets() {
    return lakestream().server().tieredOffsets().orElseThrow();
  }

  /**
   * Creates table {@code name} in the fixture's namespace with these properties (the stream's kind,
   * buckets and whatever else the test sets) and returns its stream path.
   */
  public TablePath createTable(
      String name, Schema schema, PartitionSpec spec, Map<String, String> properties) {
    catalog().createTable(identifier(name), schema, spec, new HashMap<>(properties));
    return TablePath.of(namespace + "." + name);
  }

  /**
   * Table properties of a stream table of {@code kind} ({@code log} or {@code primary-key}) with
   * {@code buckets} buckets, followed by further {@code keysAndValues} pairs.
   */
  public static Map<String, String> streamTable(String kind, int buckets, String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "keysAndValues needs pairs, got " + keysAndValues.length + " strings");
    }
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.kind", kind);
    properties.put("lakestream.buckets", Integer.toString(buckets));
    for (int i = 0; i < keysAndValues.length; i += 2) {
      properties.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return properties;
  }

  /**
   * Appends the rows {@code row(id)} for ids {@code [from, to)} through the stream client with
   * these options and waits until they are durable.
   */
  public void append(
      TablePath path, long from, long to, WriterOptions options, LongFunction<Object[]> row) {
    try (AppendWriter writer = connection().table(path).newAppendWriter(options)) {
      for (long id = from; id < to; id++) {
        writer.append(row.apply(id));
      }
      writer.flush();
    }
  }

  /**
   * Appends rows {@code (id, value(id))} for ids {@code [from, to)} with the default writer
   * options, waits until they are durable, and puts each into {@code written}.
   */
  public void appendIdValues(
      TablePath path, long from, long to, LongUnaryOperator value, Map<Long, Long> written) {
    append(
        path,
        from,
        to,
        WriterOptions.defaults(),
        id -> {
          written.put(id, value.applyAsLong(id));
          return new Object[] {id, value.applyAsLong(id)};
        });
  }

  /**
   * Sends {@code changes} random changes of {@code (id, value)} rows with ids in {@code [0, keys)}
   * to a primary-key table, one in {@code deleteOneIn} a delete and the others upserts of a random
   * value, applies each to {@code expected}, and waits until they are durable.
   */
  public void changeRandomly(
      TablePath path,
      Random random,
      int changes,
      int keys,
      int deleteOneIn,
      WriterOptions options,
      Map<Long, Long> expected) {
    try (UpsertWriter writer = connection().table(path).newUpsertWriter(options)) {
      for (int i = 0; i < changes; i++) {
        long id = random.nextInt(keys);
        if (random.nextInt(deleteOneIn) == 0) {
          writer.delete(id);
          expected.remove(id);
        } else {
          long value = random.nextLong();
          writer.upsert(id, value);
          expected.put(id, value);
        }
      }
      writer.flush();
    }
  }

  /**
   * The stream's high watermarks by partition and bucket, leaving out empty buckets: what tiering
   * records once it tiered everything.
   */
  public Map<String, Map<Integer, Long>> highWatermarks(TablePath path) {
    return highWatermarks(connection().table(path));
  }

  /** {@link #highWatermarks(TablePath)} of a stream table the caller opened. */
  public static Map<String, Map<Integer, Long>> highWatermarks(io.lakestream.client.Table stream) {
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    for (String partition : stream.partitions()) {
      for (int bucket = 0; bucket < stream.buckets(); bucket++) {
        long offset = stream.latestOffset(partition, bucket);
        if (offset > 0) {
          offsets.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
        }
      }
    }
    return offsets;
  }

  /** The table's lake table (its catalog entry), loaded now. */
  public Table lakeTable(TablePath path) {
    return catalog().loadTable(identifier(path.name()));
  }

  /**
   * Every row of the lake table through Iceberg's generic reader, by its {@code id} column, each
   * turned into a value by {@code value}; fails on an id read twice.
   */
  public <V> Map<Long, V> readLake(TablePath path, Function<Record, V> value) {
    Map<Long, V> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(lakeTable(path)).build()) {
      for (Record record : records) {
        Long id = (Long) record.getField("id");
        assertThat(rows.containsKey(id)).as("id %s read twice", id).isFalse();
        rows.put(id, value.apply(record));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The data files of the table's current snapshot. */
  public static List<DataFile> dataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The server's tiering status of table {@code name} ({@code GET .../tables/{name}/tiering}). */
  public JsonNode tieringStatus(String name) {
    if (http == null) {
      http = HttpClient.newHttpClient();
    }
    URI uri =
        URI.create(
            "http://127.0.0.1:"
                + lakestream().server().httpPort()
                + "/v1/namespaces/"
                + namespace
                + "/tables/"
                + name
                + "/tiering");
    try {
      HttpResponse<String> response =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Polls {@code done} until it holds; fails naming {@code what} once {@code timeout} passed. */
  public static void await(String what, Duration timeout, BooleanSupplier done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      LockSupport.parkNanos(POLL_INTERVAL.toNanos());
    }
  }

  /**
   * Polls {@code check} until it gives a value and returns it; fails naming {@code what} once
   * {@code timeout} passed.
   */
  public static <T> T awaitValue(String what, Duration timeout, Supplier<Optional<T>> check) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<T> result = check.get();
      if (result.isPresent()) {
        return result.get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      LockSupport.parkNanos(POLL_INTERVAL.toNanos());
    }
  }

  private TableIdentifier identifier(String name) {
    return TableIdentifier.of(namespace, name);
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
