package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiering status endpoint ({@code GET .../tables/{table}/tiering}) and tiering's Prometheus
 * metrics on a server whose tiering service runs: offsets and lag while tiering keeps up, while it
 * is stalled, after a failed round, and the errors for tables that have no status.
 */
class TieringStatusTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;
  private static HttpClient http;
  private static String base;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("st"), new HashMap<>());
    http = HttpClient.newHttpClient();
    base = "http://127.0.0.1:" + lakestream.server().httpPort();
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    lakestream.close();
  }

  private static TablePath create(String name, PartitionSpec spec, Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2"));
    properties.putAll(extra);
    catalog.createTable(TableIdentifier.of("st", name), SCHEMA, spec, properties);
    return TablePath.of("st." + name);
  }

  private static void write(TablePath path, long from, long to) {
    try (AppendWriter writer = lakestream.connection().table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, id % 3 == 0 ? "eu" : "us");
      }
      writer.flush();
    }
  }

  private static HttpResponse<String> get(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode status(String table) {
    HttpResponse<String> response = get("/v1/namespaces/st/tables/" + table + "/tiering");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode awaitStatus(String table, String what, Predicate<JsonNode> done) {
    return await(what, () -> Optional.of(status(table)).filter(done));
  }

  private static <T> T await(String what, Supplier<Optional<T>> check) {
    return TieringFixture.awaitValue(what, Duration.ofSeconds(30), check);
  }

  private static long sum(JsonNode status, String field) {
    long total = 0;
    for (JsonNode bucket : status.path("buckets")) {
      total += bucket.path(field).asLong();
    }
    return total;
  }

  /** The value of a metric sample with these labels, or empty when the scrape has none. */
  private static Optional<Double> metric(String name, Map<String, String> labels) {
    HttpResponse<String> scrape = get("/metrics");
    assertThat(scrape.statusCode()).isEqualTo(200);
    Matcher samples =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$")
            .matcher(scrape.body());
    while (samples.find()) {
      String found = samples.group(1);
      boolean matches =
          labels.entrySet().stream()
              .allMatch(label -> found.contains(label.getKey() + "=\"" + label.getValue() + "\""));
      if (matches) {
        return Optional.of(Double.parseDouble(samples.group(2)));
      }
    }
    return Optional.empty();
  }

  private static double sumMetric(String name, String table, int buckets) {
    double total = 0;
    for (int bucket = 0; bucket < buckets; bucket++) {
      total +=
          metric(
                  name,
                  Map.of("namespace", "st", "table", table, "bucket", Integer.toString(bucket)))
              .orElseThrow(() -> new AssertionError("no sample of " + name + " for " + table));
    }
    return total;
  }

  @Test
  void statusAndMetricsShowNoLagOnceCaughtUpAndTheUnwrittenRowsWhileStalled() {
    TablePath path =
        create(
            "steady", PartitionSpec.unpartitioned(), Map.of(TieringConfig.INTERVAL_PROPERTY, "1s"));
    write(path, 0, 40);

    JsonNode caughtUp =
        awaitStatus(
            "steady",
            "40 rows tiered and the round that tiered them counted",
            // The counts trail the table's offsets by the moment between a commit and the end of
            // its round.
            status ->
                status.path("lag-rows").asLong() == 0
                    && sum(status, "tiered-offset") == 40
                    && status.path("rounds").path("committed").asLong() > 0);
    assertThat(caughtUp.path("state").asText()).isEqualTo("active");
    assertThat(caughtUp.path("kind").asText()).isEqualTo("log");
    assertThat(caughtUp.path("namespace").get(0).asText()).isEqualTo("st");
    assertThat(caughtUp.path("name").asText()).isEqualTo("steady");
    assertThat(caughtUp.path("interval-ms").asLong()).isEqualTo(1000);
    assertThat(caughtUp.path("lag-seconds").asDouble()).isZero();
    assertThat(caughtUp.path("buckets")).hasSize(2);
    for (JsonNode bucket : caughtUp.path("buckets")) {
      assertThat(bucket.path("partition").asText()).isEmpty();
      assertThat(bucket.path("tiered-offset").asLong())
          .isEqualTo(bucket.path("high-watermark").asLong());
      assertThat(bucket.path("lag-rows").asLong()).isZero();
      assertThat(bucket.path("oldest-untiered-ms").isNull()).isTrue();
    }
    assertThat(sum(caughtUp, "high-watermark")).isEqualTo(40);
    long snapshotId =
        catalog.loadTable(TableIdentifier.of("st", "steady")).currentSnapshot().snapshotId();
    assertThat(caughtUp.path("last-snapshot").path("snapshot-id").asLong()).isEqualTo(snapshotId);
    assertThat(caughtUp.path("rounds").path("rows").asLong()).isEqualTo(40);
    assertThat(caughtUp.path("rounds").path("committed").asLong()).isPositive();
    assertThat(caughtUp.path("rounds").path("failed").asLong()).isZero();
    assertThat(caughtUp.path("last-error").isNull()).isTrue();
    assertThat(sumMetric("lakestream_tiering_tiered_offset", "steady", 2)).isEqualTo(40);
    assertThat(sumMetric("lakestream_tiering_high_watermark", "steady", 2)).isEqualTo(40);
    assertThat(sumMetric("lakestream_tiering_lag_rows", "steady", 2)).isZero();
    assertThat(sumMetric("lakestream_tiering_lag_seconds", "steady", 2)).isZero();
    assertThat(
            metric("lakestream_tiering_rows_total", Map.of("namespace", "st", "table", "steady")))
        .contains(40.0);
    assertThat(
            metric(
                "lakestream_tiering_rounds_total",
                Map.of("namespace", "st", "table", "steady", "result", "committed")))
        .hasValueSatisfying(rounds -> assertThat(rounds).isPositive());

    // Stall tiering: the service reschedules the table once its next listing sees the interval.
    catalog
        .loadTable(TableIdentifier.of("st", "steady"))
        .updateProperties()
        .set(TieringConfig.INTERVAL_PROPERTY, "1h")
        .commit();
    TieringService service = lakestream.server().tiering().orElseThrow();
    await(
        "the service to see the one-hour interval",
        () ->
            service
                .state(path)
                .filter(state -> state.interval().equals(Duration.ofHours(1)))
                .map(state -> state));
    long before = System.currentTimeMillis();
    write(path, 40, 65);
    long after = System.currentTimeMillis();

    JsonNode stalled = status("steady");
    assertThat(sum(stalled, "tiered-offset")).isEqualTo(40);
    assertThat(sum(stalled, "high-watermark")).isEqualTo(65);
    assertThat(stalled.path("lag-rows").asLong()).isEqualTo(25);
    long asOf = stalled.path("as-of-ms").asLong();
    // The oldest untiered row was appended between before and after.
    assertThat(stalled.path("lag-seconds").asDouble() * 1000)
        .isBetween((double) asOf - after - 1, (double) asOf - before + 1);
    for (JsonNode bucket : stalled.path("buckets")) {
      long lag = bucket.path("high-watermark").asLong() - bucket.path("tiered-offset").asLong();
      assertThat(bucket.path("lag-rows").asLong()).isEqualTo(lag);
      if (lag > 0) {
        assertThat(bucket.path("oldest-untiered-ms").asLong()).isBetween(before, after);
      }
    }
    assertThat(stalled.path("interval-ms").asLong()).isEqualTo(3_600_000);
    assertThat(stalled.path("next-round-ms").asLong()).isGreaterThan(after);
    assertThat(sumMetric("lakestream_tiering_lag_rows", "steady", 2)).isEqualTo(25);
    assertThat(sumMetric("lakestream_tiering_tiered_offset", "steady", 2)).isEqualTo(40);
    assertThat(sumMetric("lakestream_tiering_high_watermark", "steady", 2)).isEqualTo(65);

    // The lag in seconds keeps growing while nothing is tiered.
    JsonNode later =
        awaitStatus(
            "steady",
            "the lag to pass a second",
            status -> status.path("lag-seconds").asDouble() > 1.0);
    assertThat(later.path("lag-rows").asLong()).isEqualTo(25);
  }

  @Test
  void partitionedTablesReportEachPartitionsBuckets() {
    TablePath path =
        create(
            "by_region",
            PartitionSpec.builderFor(SCHEMA).identity("region").build(),
            Map.of(TieringConfig.INTERVAL_PROPERTY, "1s"));
    write(path, 0, 30);

    JsonNode status =
        awaitStatus(
            "by_region",
            "30 rows tiered",
            s -> sum(s, "tiered-offset") == 30 && s.path("lag-rows").asLong() == 0);
    assertThat(status.path("buckets")).hasSize(4);
    long eu = 0;
    for (JsonNode bucket : status.path("buckets")) {
      assertThat(bucket.path("partition").asText()).isIn("region=eu", "region=us");
      if (bucket.path("partition").asText().equals("region=eu")) {
        eu += bucket.path("tiered-offset").asLong();
      }
    }
    assertThat(eu).isEqualTo(10); // ids 0, 3, ..., 27
    assertThat(
            metric(
                "lakestream_tiering_tiered_offset",
                Map.of(
                    "namespace",
                    "st",
                    "table",
                    "by_region",
                    "partition",
                    "region=eu",
                    "bucket",
                    "0")))
        .isPresent();
  }

  @Test
  void aFailedRoundIsReportedWithItsError() {
    TablePath path =
        create(
            "broken", PartitionSpec.unpartitioned(), Map.of(TieringConfig.INTERVAL_PROPERTY, "1s"));
    // A snapshot whose offsets cannot be read makes every round of this table fail.
    catalog
        .loadTable(TableIdentifier.of("st", "broken"))
        .newFastAppend()
        .set(TieredOffsets.SUMMARY_KEY, "not json")
        .commit();
    write(path, 0, 5);

    JsonNode status =
        awaitStatus(
            "broken",
            // The service counts a failed round a moment before it records the round's error.
            "a failed round and its error",
            s -> s.path("rounds").path("failed").asLong() > 0 && !s.path("last-error").isNull());
    assertThat(status.path("last-error").asText()).contains("Invalid lakestream.offsets");
    assertThat(status.path("offsets-error").asText()).contains("Invalid lakestream.offsets");
    assertThat(status.path("lag-rows").asLong()).isEqualTo(-1);
    assertThat(status.path("buckets")).isEmpty();
    assertThat(status.path("rounds").path("committed").asLong()).isZero();
    assertThat(
            metric(
                "lakestream_tiering_rounds_total",
                Map.of("namespace", "st", "table", "broken", "result", "failed")))
        .hasValueSatisfying(failed -> assertThat(failed).isPositive());
  }

  @Test
  void theDefaultWarehousePrefixNamesTheSameTable() {
    TablePath path = create("prefixed", PartitionSpec.unpartitioned(), Map.of());
    write(path, 0, 3);

    HttpResponse<String> response = get("/v1/default/namespaces/st/tables/prefixed/tiering");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).contains("\"lag-rows\":3");
  }

  @Test
  void tablesWithoutAStatusAreClientErrors() {
    catalog.createTable(TableIdentifier.of("st", "plain"), SCHEMA);

    HttpResponse<String> unknown = get("/v1/namespaces/st/tables/nope/tiering");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("NoSuchTableException").contains("st.nope");

    HttpResponse<String> unknownNamespace = get("/v1/namespaces/nowhere/tables/t/tiering");
    assertThat(unknownNamespace.statusCode()).isEqualTo(404);

    HttpResponse<String> plain = get("/v1/namespaces/st/tables/plain/tiering");
    assertThat(plain.statusCode()).isEqualTo(400);
    assertThat(plain.body()).contains("BadRequestException").contains("not a streaming table");

    HttpResponse<String> post =
        send(
            HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/st/tables/plain/tiering"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
    assertThat(post.statusCode()).isEqualTo(405);

    // A plain table among the streaming ones does not stop the service from finding them.
    create("beside_plain", PartitionSpec.unpartitioned(), Map.of());
    awaitStatus(
        "beside_plain",
        "the service to find the table",
        s -> s.path("state").asText().equals("active"));
  }

  @Test
  void theEndpointIsNotAdvertisedToIcebergClients() {
    HttpResponse<String> config = get("/v1/config");
    assertThat(config.statusCode()).isEqualTo(200);
    assertThat(config.body()).contains("/v1/{prefix}/namespaces/{namespace}/tables/{table}");
    assertThat(config.body()).doesNotContain("tiering");
  }

  @Test
  void aServerThatDoesNotTierSaysSo(@TempDir Path otherData) throws Exception {
    try (EmbeddedLakestream off =
        EmbeddedLakestream.start(otherData, Map.of("tiering.enabled", "false"))) {
      off.catalog().createNamespace(Namespace.of("st"), new HashMap<>());
      off.catalog()
          .createTable(
              TableIdentifier.of("st", "events"),
              SCHEMA,
              PartitionSpec.unpartitioned(),
              Map.of("lakestream.kind", "log"));

      HttpResponse<String> response =
          send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:"
                              + off.server().httpPort()
                              + "/v1/namespaces/st/tables/events/tiering"))
                  .build());

      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode status = JSON.readTree(response.body());
      assertThat(status.path("state").asText()).isEqualTo("off");
      assertThat(status.path("reason").asText()).contains("tiering.enabled=false");
      assertThat(status.path("kind").asText()).isEqualTo("log");
    }
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
