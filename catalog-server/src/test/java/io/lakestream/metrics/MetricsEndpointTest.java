package io.lakestream.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Lookuper;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.metrics.PrometheusText.Family;
import io.lakestream.metrics.PrometheusText.Sample;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.tiering.TieringFixture;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code GET /metrics} of a real server in this JVM, parsed strictly ({@link PrometheusText}): the
 * families a Prometheus user expects, named by Prometheus's conventions, whose per-table series
 * move with writes, lookups and tiering; label values escaped; the Grafana dashboard and the alert
 * rules in {@code docs/} naming only metrics the server exposes; and {@code /metrics} behind a
 * token when authentication is on.
 */
class MetricsEndpointTest {
  private static final Schema LOG_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final Schema KEYED_SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get())),
          Set.of(1));
  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * Every family the server must expose, with its type, as a Prometheus user reads them from the
   * documentation (docs/metrics.md); written out here rather than taken from the code.
   */
  private static final Map<String, String> EXPECTED =
      Map.ofEntries(
          Map.entry("lakestream_http_requests_total", "counter"),
          Map.entry("lakestream_http_request_duration_seconds", "histogram"),
          Map.entry("lakestream_log_appended_rows_total", "counter"),
          Map.entry("lakestream_log_appended_bytes_total", "counter"),
          Map.entry("lakestream_log_end_offset", "gauge"),
          Map.entry("lakestream_log_start_offset", "gauge"),
          Map.entry("lakestream_log_high_watermark", "gauge"),
          Map.entry("lakestream_log_size_bytes", "gauge"),
          Map.entry("lakestream_kv_upserted_rows_total", "counter"),
          Map.entry("lakestream_kv_deleted_rows_total", "counter"),
          Map.entry("lakestream_kv_lookup_duration_seconds", "histogram"),
          Map.entry("lakestream_kv_block_cache_usage_bytes", "gauge"),
          Map.entry("lakestream_kv_row_cache_used_bytes", "gauge"),
          Map.entry("lakestream_kv_row_cache_capacity_bytes", "gauge"),
          Map.entry("lakestream_data_filesystem_available_bytes", "gauge"),
          Map.entry("lakestream_data_filesystem_size_bytes", "gauge"),
          Map.entry("lakestream_tiering_tiered_offset", "gauge"),
          Map.entry("lakestream_tiering_high_watermark", "gauge"),
          Map.entry("lakestream_tiering_lag_rows", "gauge"),
          Map.entry("lakestream_tiering_lag_seconds", "gauge"),
          Map.entry("lakestream_tiering_rounds_total", "counter"),
          Map.entry("lakestream_tiering_rows_total", "counter"),
          Map.entry("lakestream_tiering_round_duration_seconds", "histogram"),
          Map.entry("lakestream_flight_sql_running_queries", "gauge"),
          Map.entry("lakestream_flight_sql_computing_queries", "gauge"),
          Map.entry("lakestream_arrow_allocated_bytes", "gauge"),
          Map.entry("jvm_memory_used_bytes", "gauge"),
          Map.entry("jvm_memory_max_bytes", "gauge"),
          Map.entry("jvm_buffer_pool_used_bytes", "gauge"),
          Map.entry("process_open_fds", "gauge"),
          Map.entry("process_max_fds", "gauge"),
          Map.entry("process_resident_memory_bytes", "gauge"));

  private static final Set<String> PER_BUCKET_LABELS =
      Set.of("warehouse", "namespace", "table", "partition", "bucket");

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static HttpClient http;
  private static String base;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    lakestream.catalog().createNamespace(Namespace.of("metrics"), new HashMap<>());
    http = HttpClient.newHttpClient();
    base = "http://127.0.0.1:" + lakestream.server().httpPort();
    writeATableOfEachKind();
  }

  /**
   * A log table and a primary-key table with a row and a lookup, and tiering listing the log table:
   * a family with no series is left out of a scrape, so this gives every per-table family one.
   */
  private static void writeATableOfEachKind() {
    createLogTable("named", Map.of());
    append("named", 0, 10);
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("metrics", "named_keyed"),
            KEYED_SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "1"));
    Table keyed = lakestream.connection().table(TablePath.of("metrics.named_keyed"));
    try (UpsertWriter writer = keyed.newUpsertWriter()) {
      writer.upsert(1L, "one");
      writer.flush();
    }
    assertThat(keyed.newLookuper().lookup(1L).join()).containsExactly(1L, "one");
    awaitScrape(
        "the tiering service to list metrics.named",
        found ->
            found.containsKey("lakestream_tiering_round_duration_seconds")
                && found.get("lakestream_tiering_lag_rows").samples().stream()
                    .anyMatch(s -> "named".equals(s.labels().get("table"))));
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    lakestream.close();
  }

  private static HttpResponse<String> get(String url, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Family> scrape() {
    HttpResponse<String> response = get(base + "/metrics", null);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    return PrometheusText.parse(response.body());
  }

  /** The sum of a family's samples of one table (and, for histograms, one suffix). */
  private static double sum(Map<String, Family> scrape, String sample, String table) {
    String family = sample.replaceAll("_(bucket|sum|count)$", "");
    Family found = scrape.get(scrape.containsKey(family) ? family : sample);
    if (found == null) {
      return 0;
    }
    return found.samples().stream()
        .filter(s -> s.name().equals(sample))
        .filter(s -> table.equals(s.labels().get("table")))
        .filter(s -> "metrics".equals(s.labels().get("namespace")))
        .mapToDouble(Sample::value)
        .sum();
  }

  private static Map<String, Family> awaitScrape(String what, Predicate<Map<String, Family>> done) {
    return TieringFixture.awaitValue(what, WAIT, () -> Optional.of(scrape()).filter(done));
  }

  private static void createLogTable(String name, Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2"));
    properties.putAll(extra);
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("metrics", name),
            LOG_SCHEMA,
            PartitionSpec.unpartitioned(),
            properties);
  }

  private static void append(String table, long from, long to) {
    try (AppendWriter writer =
        lakestream.connection().table(TablePath.of("metrics." + table)).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, "payload-" + id);
      }
      writer.flush();
    }
  }

  @Test
  void everyFamilyIsThereWithItsTypeAndFollowsPrometheusNaming() throws IOException {
    String text = get(base + "/metrics", null).body();
    // Kept for a reader who wants to see a whole scrape.
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/metrics-scrape.txt"), text);
    Map<String, Family> scrape = PrometheusText.parse(text);

    for (Map.Entry<String, String> expected : EXPECTED.entrySet()) {
      assertThat(scrape).as("family %s", expected.getKey()).containsKey(expected.getKey());
      assertThat(scrape.get(expected.getKey()).type())
          .as("type of %s", expected.getKey())
          .isEqualTo(expected.getValue());
    }
    for (Family family : scrape.values()) {
      assertThat(family.help()).as("HELP of %s", family.name()).isNotBlank();
      if (!family.name().startsWith("lakestream_")) {
        assertThat(family.name()).as("a non-Lakestream family").matches("(jvm|process)_.*");
        continue;
      }
      assertThat(family.name().endsWith("_total"))
          .as("%s is a counter exactly when it ends in _total", family.name())
          .isEqualTo(family.type().equals("counter"));
      assertThat(family.name())
          .as("%s names a base unit", family.name())
          .doesNotContainPattern(
              "_(ms|millis|milliseconds|micros|nanos|kb|mb|kib|mib|minutes)(_|$)");
      if (family.type().equals("histogram")) {
        assertThat(family.name()).endsWith("_seconds");
      }
    }
    // The per-bucket families of the table written above carry the documented labels.
    for (String name :
        List.of(
            "lakestream_log_appended_rows_total",
            "lakestream_log_appended_bytes_total",
            "lakestream_log_end_offset",
            "lakestream_log_high_watermark")) {
      List<Sample> ofTable =
          scrape.get(name).samples().stream()
              .filter(s -> "named".equals(s.labels().get("table")))
              .toList();
      // A bucket has series once its log is open on this server (written or read since start).
      assertThat(ofTable).as("%s of metrics.named", name).isNotEmpty();
      for (Sample sample : ofTable) {
        assertThat(sample.labels().keySet()).isEqualTo(PER_BUCKET_LABELS);
        assertThat(sample.labels())
            .containsEntry("namespace", "metrics")
            .containsEntry("partition", "");
        assertThat(sample.labels().get("bucket")).isIn("0", "1");
      }
    }
    assertThat(sum(scrape, "lakestream_log_appended_rows_total", "named")).isEqualTo(10);
    // Memory outside the heap, by who holds it.
    assertThat(
            scrape.get("lakestream_arrow_allocated_bytes").samples().stream()
                .map(sample -> sample.labels().get("part")))
        .containsExactlyInAnyOrder("stream", "flight_sql", "console");
    assertThat(scrape.get("lakestream_arrow_allocated_bytes").samples())
        .allSatisfy(sample -> assertThat(sample.value()).isGreaterThanOrEqualTo(0));
  }

  @Test
  void appendedRowsGrowByWhatIsWrittenAndLagFallsOnceTiered() {
    createLogTable("clicks", Map.of("lakestream.tiering.interval", "1h"));
    Map<String, Family> before =
        awaitScrape(
            "the tiering service to list metrics.clicks",
            scrape ->
                scrape.get("lakestream_tiering_lag_rows").samples().stream()
                    .anyMatch(s -> "clicks".equals(s.labels().get("table"))));
    double rowsBefore = sum(before, "lakestream_log_appended_rows_total", "clicks");
    double bytesBefore = sum(before, "lakestream_log_appended_bytes_total", "clicks");

    append("clicks", 0, 123);
    Map<String, Family> written = scrape();
    assertThat(sum(written, "lakestream_log_appended_rows_total", "clicks") - rowsBefore)
        .isEqualTo(123);
    // Every batch holds at least a header and the rows' ids.
    assertThat(sum(written, "lakestream_log_appended_bytes_total", "clicks") - bytesBefore)
        .isGreaterThan(123 * 8);
    assertThat(sum(written, "lakestream_log_end_offset", "clicks")).isEqualTo(123);
    assertThat(sum(written, "lakestream_log_high_watermark", "clicks")).isEqualTo(123);
    assertThat(sum(written, "lakestream_log_size_bytes", "clicks")).isPositive();
    assertThat(sum(written, "lakestream_tiering_lag_rows", "clicks")).isEqualTo(123);
    assertThat(sum(written, "lakestream_tiering_lag_seconds", "clicks")).isPositive();
    assertThat(sum(written, "lakestream_tiering_tiered_offset", "clicks")).isZero();
    assertThat(sum(written, "lakestream_tiering_round_duration_seconds_count", "clicks")).isZero();

    lakestream
        .catalog()
        .loadTable(TableIdentifier.of("metrics", "clicks"))
        .updateProperties()
        .set("lakestream.tiering.interval", "1s")
        .commit();
    Map<String, Family> tiered =
        awaitScrape(
            "metrics.clicks tiered and its round counted",
            scrape ->
                sum(scrape, "lakestream_tiering_lag_rows", "clicks") == 0
                    && sum(scrape, "lakestream_tiering_rows_total", "clicks") == 123);
    assertThat(sum(tiered, "lakestream_tiering_tiered_offset", "clicks")).isEqualTo(123);
    assertThat(sum(tiered, "lakestream_tiering_lag_seconds", "clicks")).isZero();
    double committed =
        tiered.get("lakestream_tiering_rounds_total").samples().stream()
            .filter(s -> "clicks".equals(s.labels().get("table")))
            .filter(s -> "committed".equals(s.labels().get("result")))
            .mapToDouble(Sample::value)
            .sum();
    assertThat(committed).isPositive();
    assertThat(sum(tiered, "lakestream_tiering_round_duration_seconds_count", "clicks"))
        .isEqualTo(committed);
    assertThat(sum(tiered, "lakestream_tiering_round_duration_seconds_sum", "clicks")).isPositive();
    // Tiering reads the log; it appends nothing.
    assertThat(sum(tiered, "lakestream_log_appended_rows_total", "clicks") - rowsBefore)
        .isEqualTo(123);
  }

  @Test
  void upsertsDeletesAndLookupsAreCountedPerBucket() throws Exception {
    Map<String, String> properties =
        new HashMap<>(Map.of("lakestream.kind", "primary-key", "lakestream.buckets", "2"));
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("metrics", "users"),
            KEYED_SCHEMA,
            PartitionSpec.unpartitioned(),
            properties);
    Table table = lakestream.connection().table(TablePath.of("metrics.users"));
    try (UpsertWriter writer = table.newUpsertWriter()) {
      for (long id = 0; id < 50; id++) {
        writer.upsert(id, "user-" + id);
      }
      writer.flush();
      for (long id = 0; id < 7; id++) {
        writer.delete(id);
      }
      writer.flush();
    }
    Map<String, Family> written = scrape();
    assertThat(sum(written, "lakestream_kv_upserted_rows_total", "users")).isEqualTo(50);
    assertThat(sum(written, "lakestream_kv_deleted_rows_total", "users")).isEqualTo(7);
    // The changelog: 50 inserts and 7 deletes.
    assertThat(sum(written, "lakestream_log_appended_rows_total", "users")).isEqualTo(57);
    assertThat(sum(written, "lakestream_kv_lookup_duration_seconds_count", "users")).isZero();
    assertThat(written.get("lakestream_kv_block_cache_usage_bytes").samples()).hasSize(1);

    Lookuper lookuper = table.newLookuper();
    for (long id = 0; id < 20; id++) {
      Object[] row = lookuper.lookup(id).get();
      assertThat(row == null).as("row %s deleted", id).isEqualTo(id < 7);
    }
    Map<String, Family> looked = scrape();
    assertThat(sum(looked, "lakestream_kv_lookup_duration_seconds_count", "users")).isEqualTo(20);
    assertThat(sum(looked, "lakestream_kv_lookup_duration_seconds_sum", "users")).isPositive();
    assertThat(
            looked.get("lakestream_kv_lookup_duration_seconds").samples().stream()
                .filter(s -> "users".equals(s.labels().get("table")))
                .filter(s -> s.name().endsWith("_bucket"))
                .map(s -> s.labels().get("bucket"))
                .distinct()
                .toList())
        .containsExactlyInAnyOrder("0", "1");
  }

  @Test
  void aPartitionsLabelIsItsNameAsTheServerStoresIt() {
    // Partition names are percent-encoded, so a value's quote, backslash and line feed never reach
    // the exposition raw (ServerMetricsTest covers escaping of label values that hold them).
    String value = "a\"b\\c\nd";
    lakestream
        .catalog()
        .createTable(
            TableIdentifier.of("metrics", "odd"),
            LOG_SCHEMA,
            PartitionSpec.builderFor(LOG_SCHEMA).identity("payload").build(),
            Map.of("lakestream.kind", "log", "lakestream.buckets", "1"));
    try (AppendWriter writer =
        lakestream.connection().table(TablePath.of("metrics.odd")).newAppendWriter()) {
      writer.append(1L, "plain");
      writer.append(2L, value);
      writer.append(3L, value);
      writer.flush();
    }
    Map<String, Double> byPartition = new HashMap<>();
    scrape().get("lakestream_log_appended_rows_total").samples().stream()
        .filter(s -> "odd".equals(s.labels().get("table")))
        .forEach(s -> byPartition.put(s.labels().get("partition"), s.value()));
    assertThat(byPartition)
        .containsOnly(Map.entry("payload=plain", 1.0), Map.entry("payload=a%22b%5Cc%0Ad", 2.0));
  }

  /** Metric names in PromQL: a name is followed by a selector, a range, a space or a paren. */
  private static final Pattern METRIC_IN_QUERY =
      Pattern.compile("lakestream_[a-z0-9_]+|jvm_[a-z0-9_]+|process_[a-z0-9_]+");

  private static Set<String> names(List<String> expressions) {
    Set<String> names = new TreeSet<>();
    for (String expression : expressions) {
      Matcher matcher = METRIC_IN_QUERY.matcher(expression);
      while (matcher.find()) {
        names.add(matcher.group());
      }
    }
    return names;
  }

  /** The sample names a scrape has, histogram series by their suffixes. */
  private static Set<String> sampleNames(Map<String, Family> scrape) {
    Set<String> names = new TreeSet<>();
    for (Family family : scrape.values()) {
      names.add(family.name());
      if (family.type().equals("histogram")) {
        names.add(family.name() + "_bucket");
        names.add(family.name() + "_sum");
        names.add(family.name() + "_count");
      }
    }
    return names;
  }

  private static Path docs() {
    Path directory = Path.of("").toAbsolutePath();
    while (directory != null && !Files.isDirectory(directory.resolve("docs/grafana"))) {
      directory = directory.getParent();
    }
    assertThat(directory).as("the repository's docs/ directory").isNotNull();
    return directory.resolve("docs");
  }

  private static void collectExpressions(JsonNode node, List<String> into) {
    if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              field -> {
                if (field.getKey().equals("expr") && field.getValue().isTextual()) {
                  into.add(field.getValue().asText());
                } else {
                  collectExpressions(field.getValue(), into);
                }
              });
    } else if (node.isArray()) {
      node.forEach(element -> collectExpressions(element, into));
    }
  }

  @Test
  void dashboardAndAlertsNameOnlyMetricsTheServerExposes() throws IOException {
    Set<String> exposed = sampleNames(scrape());

    JsonNode dashboard =
        new ObjectMapper()
            .readTree(Files.readString(docs().resolve("grafana/lakestream-dashboard.json")));
    assertThat(dashboard.path("title").asText()).isNotBlank();
    assertThat(dashboard.path("uid").asText()).isNotBlank();
    assertThat(dashboard.path("schemaVersion").asInt()).isPositive();
    List<String> panelExpressions = new ArrayList<>();
    collectExpressions(dashboard.path("panels"), panelExpressions);
    assertThat(panelExpressions).hasSizeGreaterThanOrEqualTo(6);
    Set<String> dashboardNames = names(panelExpressions);
    assertThat(exposed).as("metrics the dashboard's queries name").containsAll(dashboardNames);
    // What the dashboard is for: appends, lag, rounds and failures, durations, lookups, memory.
    assertThat(dashboardNames)
        .contains(
            "lakestream_log_appended_rows_total",
            "lakestream_tiering_lag_seconds",
            "lakestream_tiering_rounds_total",
            "lakestream_tiering_round_duration_seconds_bucket",
            "lakestream_kv_lookup_duration_seconds_bucket",
            "jvm_memory_used_bytes");

    Map<String, Object> alerts;
    try (var in = Files.newInputStream(docs().resolve("prometheus/alerts.yml"))) {
      alerts = new Yaml().load(in);
    }
    List<String> alertExpressions = new ArrayList<>();
    List<String> alertNames = new ArrayList<>();
    for (Object group : (List<?>) alerts.get("groups")) {
      Map<?, ?> groupMap = (Map<?, ?>) group;
      assertThat(groupMap.get("name")).isNotNull();
      for (Object rule : (List<?>) groupMap.get("rules")) {
        Map<?, ?> ruleMap = (Map<?, ?>) rule;
        assertThat(ruleMap.get("alert")).as("rule %s", ruleMap).isInstanceOf(String.class);
        assertThat(ruleMap.get("expr")).as("rule %s", ruleMap).isInstanceOf(String.class);
        assertThat(((Map<?, ?>) ruleMap.get("annotations")).get("summary")).isNotNull();
        alertNames.add((String) ruleMap.get("alert"));
        alertExpressions.add((String) ruleMap.get("expr"));
      }
    }
    Set<String> alertMetricNames = names(alertExpressions);
    assertThat(exposed).as("metrics the alerts name").containsAll(alertMetricNames);
    assertThat(alertMetricNames)
        .contains(
            "lakestream_tiering_lag_seconds",
            "lakestream_tiering_rounds_total",
            "lakestream_data_filesystem_available_bytes");
    assertThat(alertNames).doesNotHaveDuplicates();
  }

  @Test
  void withAuthenticationOnMetricsNeedAnAllowedPrincipalsToken(@TempDir Path secured)
      throws Exception {
    LakestreamServer server =
        EmbeddedLakestream.startServer(
            secured,
            Map.of(
                "auth.mode", "oauth2",
                "auth.clients", "scraper:scraper-secret,reader:reader-secret",
                "auth.token-signing-key", "metrics-test-signing-key-0123456789abcdef",
                "auth.grants", "reader:read:default",
                "auth.metrics-principals", "scraper",
                "tiering.enabled", "false",
                "flight.enabled", "false"));
    try {
      String url = "http://127.0.0.1:" + server.httpPort();
      assertThat(get(url + "/metrics", null).statusCode()).isEqualTo(401);
      assertThat(get(url + "/metrics", "not-a-token").statusCode()).isEqualTo(401);
      HttpResponse<String> reader = get(url + "/metrics", token(url, "reader", "reader-secret"));
      assertThat(reader.statusCode()).isEqualTo(403);
      assertThat(reader.body()).doesNotContain("# HELP");
      HttpResponse<String> scraper = get(url + "/metrics", token(url, "scraper", "scraper-secret"));
      assertThat(scraper.statusCode()).isEqualTo(200);
      assertThat(PrometheusText.parse(scraper.body()))
          .containsKey("lakestream_http_requests_total");
      assertThat(get(url + "/health", null).statusCode()).isEqualTo(200);
    } finally {
      server.close();
    }
  }

  private static String token(String url, String client, String secret) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "grant_type=client_credentials&client_id="
                            + client
                            + "&client_secret="
                            + secret
                            + "&scope=catalog"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body()).path("access_token").asText();
  }
}
