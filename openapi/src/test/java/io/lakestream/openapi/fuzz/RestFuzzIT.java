package io.lakestream.openapi.fuzz;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.openapi.fuzz.RouteRequestGenerator.Request;
import io.lakestream.openapi.rck.PackagedServerExtension;
import io.lakestream.testing.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Property-based checks of the REST catalog against the packaged server process: for generated
 * commit updates (every Iceberg {@code MetadataUpdate} action and {@code UpdateRequirement} type
 * with valid, edge and invalid values) and generated requests to every route (odd paths, query
 * parameters, malformed and mis-shaped bodies), the server
 *
 * <ul>
 *   <li>answers a success or a 4xx carrying an Iceberg {@code ErrorResponse} whose code is the HTTP
 *       status; never a 5xx, never no answer within 10 s;
 *   <li>stays alive and ready;
 *   <li>writes nothing for a refused commit: the table's current metadata file and the set of
 *       metadata files on disk are what they were before.
 * </ul>
 *
 * <p>First the kept corpus ({@code corpus.jsonl} next to this class: inputs that once failed the
 * server) is replayed, then generation runs for a bounded time. Seeded: {@code -Dlakestream.fuzz
 * .seed=N} replays a run, {@code -Dlakestream.fuzz.seconds=N} sets the total generation time
 * (default 24 s).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestFuzzIT {
  private static final long SEED = Long.getLong("lakestream.fuzz.seed", 31L);
  private static final Duration BUDGET =
      Duration.ofSeconds(Long.getLong("lakestream.fuzz.seconds", 24L));
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE_PATH = "/v1/namespaces/fuzz/tables/events";
  private static final String VIEW_PATH = "/v1/namespaces/fuzz/views/report";
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "category", Types.StringType.get()));

  private static Path directory;
  private static Path data;
  private static String locationRoot;
  private static ServerProcess server;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    directory = Files.createTempDirectory("lakestream-fuzz-");
    data = directory.resolve("data");
    Path files = Files.createDirectories(directory.resolve("files"));
    locationRoot = files.toUri().toString().replaceAll("/$", "");
    Files.writeString(files.resolve("not-json.metadata.json"), "this is not json");
    Files.writeString(files.resolve("empty.metadata.json"), "");
    server = ServerProcess.startReady(data, directory.resolve("logs"), Duration.ofSeconds(60));
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(
        "fuzz",
        new HashMap<>(Map.of("uri", server.baseUri(), "io-impl", LocalFileIO.class.getName())));
    try (catalog) {
      catalog.createNamespace(Namespace.of("fuzz"));
      catalog.createNamespace(Namespace.of("scratch"));
      TableIdentifier events = TableIdentifier.of("fuzz", "events");
      Table table =
          catalog
              .buildTable(events, SCHEMA)
              .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
              .withSortOrder(SortOrder.builderFor(SCHEMA).asc("id").build())
              .create();
      for (int i = 0; i < 2; i++) {
        DataFile file =
            DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/data-" + i + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .withPartitionPath("category=c" + i)
                .build();
        table.newFastAppend().appendFile(file).commit();
      }
      catalog.createTable(TableIdentifier.of("scratch", "t1"), SCHEMA);
      for (String view : List.of("fuzz.report", "scratch.v1")) {
        TableIdentifier identifier = TableIdentifier.parse(view);
        catalog
            .buildView(identifier)
            .withSchema(SCHEMA)
            .withDefaultNamespace(identifier.namespace())
            .withQuery("spark", "select id, category from fuzz.events")
            .create();
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (server != null) {
        assertAlive();
      }
    } finally {
      if (http != null) {
        http.close();
      }
      if (server != null) {
        server.close();
      }
      if (directory != null) {
        // The server's logs stay for a look after a failure; its data goes.
        PackagedServerExtension.deleteTree(data);
        PackagedServerExtension.deleteTree(directory.resolve("files"));
      }
    }
  }

  @Test
  @Order(1) // on the fixtures as set up, before generated commits change them
  void theCorpusIsAnsweredWithClientErrors() throws Exception {
    List<String> problems = new ArrayList<>();
    List<CorpusEntry> corpus = corpus();
    assertThat(corpus).isNotEmpty();
    for (CorpusEntry entry : corpus) {
      TableState before = tableState();
      Request request = entry.request();
      Answer answer = send(request);
      String problem = problem(request, answer);
      if (problem == null && answer.status() >= 200 && answer.status() < 300) {
        problem = "expected a 4xx, got " + answer.status() + ": " + request;
      }
      if (problem == null && answer.status() >= 400) {
        problem = unchanged(before, request);
      }
      if (problem != null) {
        problems.add(entry.name() + ": " + problem);
      }
    }
    assertAlive();
    assertThat(problems).as("corpus answers").isEmpty();
  }

  @Test
  void generatedTableCommitsAreAppliedOrRefusedWithoutTrace() throws Exception {
    JsonValues values = new JsonValues(new Random(SEED));
    CommitGenerator generator = new CommitGenerator(values, locationRoot);
    Problems problems = new Problems();
    long deadline = deadline(0.45);
    int sent = 0;
    while (System.nanoTime() < deadline) {
      TableState before = tableState();
      Request request =
          new Request(
              "POST",
              TABLE_PATH,
              generator.tableCommit(before.metadata()).toString().getBytes(UTF_8));
      Answer answer = send(request);
      sent++;
      String problem = problem(request, answer);
      if (problem == null && answer.status() >= 400) {
        problem = unchanged(before, request);
      }
      problems.add(problem);
    }
    assertAlive();
    problems.assertNone("table commits (seed " + SEED + ", " + sent + " sent)");
  }

  @Test
  void generatedViewCommitsAreAppliedOrRefused() throws Exception {
    JsonValues values = new JsonValues(new Random(SEED + 1));
    CommitGenerator generator = new CommitGenerator(values, locationRoot);
    Problems problems = new Problems();
    long deadline = deadline(0.15);
    int sent = 0;
    while (System.nanoTime() < deadline) {
      Answer current = send(new Request("GET", VIEW_PATH, new byte[0]));
      assertThat(current.status()).as(current.body()).isEqualTo(200);
      JsonNode metadata = JSON.readTree(current.body()).path("metadata");
      Request request =
          new Request("POST", VIEW_PATH, generator.viewCommit(metadata).toString().getBytes(UTF_8));
      Answer answer = send(request);
      sent++;
      String problem = problem(request, answer);
      if (problem == null && answer.status() >= 400) {
        Answer after = send(new Request("GET", VIEW_PATH, new byte[0]));
        if (!JSON.readTree(after.body())
            .path("metadata-location")
            .equals(JSON.readTree(current.body()).path("metadata-location"))) {
          problem = "the view changed although the commit was refused: " + request;
        }
      }
      problems.add(problem);
    }
    assertAlive();
    problems.assertNone("view commits (seed " + SEED + ", " + sent + " sent)");
  }

  @Test
  void generatedRequestsToEveryRouteGetAnswersOrClientErrors() throws Exception {
    JsonValues values = new JsonValues(new Random(SEED + 2));
    RouteRequestGenerator generator = new RouteRequestGenerator(values, locationRoot);
    Problems problems = new Problems();
    long deadline = deadline(0.35);
    int sent = 0;
    while (System.nanoTime() < deadline) {
      Request request = generator.next();
      problems.add(problem(request, send(request)));
      sent++;
    }
    assertAlive();
    problems.assertNone("route requests (seed " + (SEED + 2) + ", " + sent + " sent)");
  }

  private static long deadline(double share) {
    return System.nanoTime() + (long) (BUDGET.toNanos() * share);
  }

  /** What is wrong with an answer, or null: 5xx, no answer, or an error body not Iceberg's. */
  private static String problem(Request request, Answer answer) {
    if (answer.status() < 0) {
      return "no answer within " + REQUEST_TIMEOUT + ": " + request;
    }
    if (answer.status() >= 500) {
      return "HTTP " + answer.status() + " " + answer.body() + " for " + request;
    }
    if (answer.status() < 400 || request.method().equals("HEAD")) {
      return null;
    }
    try {
      JsonNode error = JSON.readTree(answer.body()).path("error");
      if (!error.path("message").isTextual()
          || !error.path("type").isTextual()
          || error.path("type").asText().isEmpty()
          || error.path("code").asInt() != answer.status()) {
        return "not an Iceberg ErrorResponse for HTTP "
            + answer.status()
            + ": "
            + answer.body()
            + " for "
            + request;
      }
    } catch (IOException e) {
      return "HTTP " + answer.status() + " with a body that is not JSON: " + answer.body();
    }
    return null;
  }

  /** The table's current metadata and the metadata files on disk. */
  private record TableState(String location, JsonNode metadata, Set<String> metadataFiles) {}

  private static TableState tableState() throws Exception {
    Answer answer = send(new Request("GET", TABLE_PATH, new byte[0]));
    assertThat(answer.status()).as("loadTable: %s", answer.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(answer.body());
    return new TableState(
        body.path("metadata-location").asText(), body.path("metadata"), metadataFiles());
  }

  private static String unchanged(TableState before, Request request) throws Exception {
    TableState after = tableState();
    if (!after.location().equals(before.location())) {
      return "the table changed although the commit was refused: " + request;
    }
    if (!after.metadataFiles().equals(before.metadataFiles())) {
      Set<String> added = new TreeSet<>(after.metadataFiles());
      added.removeAll(before.metadataFiles());
      return "metadata files " + added + " were left by a refused commit: " + request;
    }
    return null;
  }

  private static Set<String> metadataFiles() throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files
          .map(Path::toString)
          .filter(name -> name.endsWith(".metadata.json") && name.contains("/metadata/"))
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  /** A status and body; status -1 when no answer came in time. */
  private record Answer(int status, String body) {}

  private static Answer send(Request request) throws Exception {
    HttpRequest.BodyPublisher body =
        request.body().length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(request.body());
    HttpRequest http =
        HttpRequest.newBuilder(URI.create(server.baseUri() + request.path()))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .method(request.method(), body)
            .build();
    try {
      HttpResponse<String> response =
          RestFuzzIT.http.send(http, HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body());
    } catch (HttpTimeoutException e) {
      return new Answer(-1, "");
    }
  }

  private static void assertAlive() throws Exception {
    assertThat(server.process().isAlive()).as("server process alive").isTrue();
    Answer ready = send(new Request("GET", "/ready", new byte[0]));
    assertThat(ready.status()).as("server ready").isEqualTo(200);
  }

  /** An input of the kept corpus. */
  private record CorpusEntry(String name, Request request) {}

  private static List<CorpusEntry> corpus() throws IOException {
    List<CorpusEntry> entries = new ArrayList<>();
    try (InputStream in = RestFuzzIT.class.getResourceAsStream("corpus.jsonl");
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        JsonNode entry = JSON.readTree(line);
        JsonNode body = entry.path("body");
        byte[] bytes =
            body.isMissingNode()
                ? new byte[0]
                : (entry.path("raw").asBoolean() ? body.asText() : body.toString()).getBytes(UTF_8);
        String path = entry.path("path").asText().replace("{files}", locationRoot);
        entries.add(
            new CorpusEntry(
                entry.path("name").asText(),
                new Request(entry.path("method").asText(), path, bytes)));
      }
    }
    return entries;
  }

  /** Distinct problems (by their first 200 characters), listed when the test fails. */
  private static final class Problems {
    private final Map<String, String> distinct = new LinkedHashMap<>();
    private int count;

    void add(String problem) {
      if (problem != null) {
        count++;
        distinct.putIfAbsent(problem.substring(0, Math.min(200, problem.length())), problem);
      }
    }

    void assertNone(String what) {
      System.out.printf("%s: %d problems, %d distinct%n", what, count, distinct.size());
      assertThat(distinct.values())
          .as("%s: %d problems, %d distinct", what, count, distinct.size())
          .isEmpty();
    }
  }
}
