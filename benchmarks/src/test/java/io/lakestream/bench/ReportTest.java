package io.lakestream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  private static final Machine MACHINE =
      new Machine(2, 8L << 30, "Test VM 25", 1L << 30, "Linux 6.1 amd64");

  private final Report report =
      new Report(
          "startup",
          "an empty server",
          RunMode.FULL,
          MACHINE,
          Instant.parse("2025-01-02T03:04:05Z"),
          List.of(
              Figure.of("ready_ms", 1500, "ms", "trivial JVM", 60, Target.below(3000)),
              Figure.of("idle_rss_mib", 320, "MiB", "idle JVM", 40, Target.below(300))));

  @Test
  void tableHasOneRowPerFigureWithItsTarget() {
    assertThat(report.toMarkdown())
        .contains("### startup (full mode: median of 5 measured iterations after 1 warm-up)")
        .contains("Machine: 2 cores, 8.0 GiB memory, Test VM 25, max heap 1.0 GiB")
        .contains("| ready_ms | 1500.0 | ms | trivial JVM | 60.0 | 25.00 | < 3000 ms: met |")
        .contains("| idle_rss_mib | 320.0 | MiB | idle JVM | 40.0 | 8.00 | < 300 MiB: MISSED |");
  }

  @Test
  void jsonHasTheFieldsOfTheReportFormat(@TempDir Path directory) throws Exception {
    Path file = report.writeJson(directory);

    assertThat(file).isEqualTo(directory.resolve("startup.json"));
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    assertThat(json.path("benchmark").asText()).isEqualTo("startup");
    assertThat(json.path("finishedAt").asText()).isEqualTo("2025-01-02T03:04:05Z");
    assertThat(json.path("mode").asText()).isEqualTo("full");
    assertThat(json.path("warmupIterations").asInt()).isEqualTo(1);
    assertThat(json.path("measuredIterations").asInt()).isEqualTo(5);
    assertThat(json.path("statistic").asText()).isEqualTo("median");
    assertThat(json.path("machine").path("cores").asInt()).isEqualTo(2);
    assertThat(json.path("machine").path("totalMemoryBytes").asLong()).isEqualTo(8L << 30);
    assertThat(json.path("machine").path("maxHeapBytes").asLong()).isEqualTo(1L << 30);
    JsonNode first = json.path("figures").get(0);
    assertThat(first.path("name").asText()).isEqualTo("ready_ms");
    assertThat(first.path("value").asDouble()).isEqualTo(1500);
    assertThat(first.path("unit").asText()).isEqualTo("ms");
    assertThat(first.path("baseline").asText()).isEqualTo("trivial JVM");
    assertThat(first.path("baselineValue").asDouble()).isEqualTo(60);
    assertThat(first.path("ratio").asDouble()).isEqualTo(25);
    assertThat(first.path("target").path("below").asDouble()).isEqualTo(3000);
    assertThat(first.path("target").path("met").asBoolean()).isTrue();
    assertThat(json.path("figures").get(1).path("target").path("met").asBoolean()).isFalse();
  }

  @Test
  void ratioTargetsAndUntargetedFiguresAreReported(@TempDir Path directory) throws Exception {
    Report throughput =
        new Report(
            "rest-catalog",
            "one table",
            RunMode.FULL,
            MACHINE,
            Instant.parse("2025-01-02T03:04:05Z"),
            List.of(
                Figure.of(
                    "load_table_rps", 5000, "req/s", "reference", 500, Target.ratioAtLeast(10)),
                Figure.of(
                    "commits_per_s", 30, "commits/s", "reference", 20, Target.ratioAtLeast(2)),
                Figure.withoutTarget("load_table_p50_ms", 2, "ms", "reference", 8)));

    assertThat(throughput.toMarkdown())
        .contains(
            "| load_table_rps | 5000.0 | req/s | reference | 500.0 | 10.00 | ratio >= 10: met |")
        .contains(
            "| commits_per_s | 30.0 | commits/s | reference | 20.0 | 1.50 | ratio >= 2: MISSED |")
        .contains("| load_table_p50_ms | 2.0 | ms | reference | 8.0 | 0.25 | none |");
    JsonNode figures =
        new ObjectMapper().readTree(throughput.writeJson(directory).toFile()).path("figures");
    assertThat(figures.get(0).path("target").path("ratioAtLeast").asDouble()).isEqualTo(10);
    assertThat(figures.get(0).path("target").path("met").asBoolean()).isTrue();
    assertThat(figures.get(1).path("target").path("met").asBoolean()).isFalse();
    assertThat(figures.get(2).has("target")).isFalse();
  }

  @Test
  void absoluteLowerBoundTargetsAreReported(@TempDir Path directory) throws Exception {
    Report lookups =
        new Report(
            "keyed-state",
            "W2",
            RunMode.FULL,
            MACHINE,
            Instant.parse("2025-01-02T03:04:05Z"),
            List.of(
                Figure.of(
                    "lookups_per_s", 60000, "lookups/s", "raw", 600000, Target.atLeast(50000)),
                Figure.of("upserts_per_s", 1000, "upserts/s", "raw", 2000, Target.atLeast(1500))));

    assertThat(lookups.toMarkdown())
        .contains(
            "| lookups_per_s | 60000.0 | lookups/s | raw | 600000.0 | 0.10 | >= 50000 lookups/s: met |")
        .contains(
            "| upserts_per_s | 1000.0 | upserts/s | raw | 2000.0 | 0.50 | >= 1500 upserts/s: MISSED |");
    JsonNode figures =
        new ObjectMapper().readTree(lookups.writeJson(directory).toFile()).path("figures");
    assertThat(figures.get(0).path("target").path("atLeast").asDouble()).isEqualTo(50000);
    assertThat(figures.get(0).path("target").path("met").asBoolean()).isTrue();
    assertThat(figures.get(1).path("target").path("met").asBoolean()).isFalse();
  }

  @Test
  void skippedFiguresCarryTheirReasonAndNeitherMeetNorMissTheirTarget(@TempDir Path directory)
      throws Exception {
    Report peers =
        new Report(
            "log-append-scan",
            "W1",
            RunMode.FULL,
            MACHINE,
            Instant.parse("2025-01-02T03:04:05Z"),
            List.of(
                Figure.skipped(
                    "scan_rows_per_s_vs_kafka",
                    2_000_000,
                    "rows/s",
                    "Kafka",
                    Optional.of(Target.ratioAtLeast(5)),
                    "Kafka is not available: its jars were not built"),
                Figure.skipped(
                    "upserts_per_s_vs_kafka",
                    Double.NaN,
                    "upserts/s",
                    "Kafka 4.4.0",
                    Optional.empty(),
                    "not applicable: Kafka 4.4.0 does not support W2_UPSERT"),
                Figure.of(
                    "freshness_ack_to_reader_p99_ms_vs_kafka",
                    6,
                    "ms",
                    "Kafka 4.4.0",
                    4,
                    Target.ratioAtMost(1))));

    assertThat(peers.toMarkdown())
        .contains(
            "| scan_rows_per_s_vs_kafka | 2000000.0 | rows/s | Kafka | - | - | ratio >= 5: skipped"
                + " (Kafka is not available: its jars were not built) |")
        .contains(
            "| upserts_per_s_vs_kafka | - | upserts/s | Kafka 4.4.0 | - | - | skipped (not"
                + " applicable: Kafka 4.4.0 does not support W2_UPSERT) |")
        .contains(
            "| freshness_ack_to_reader_p99_ms_vs_kafka | 6.0 | ms | Kafka 4.4.0 | 4.0 | 1.50 |"
                + " ratio <= 1: MISSED |");
    JsonNode figures =
        new ObjectMapper().readTree(peers.writeJson(directory).toFile()).path("figures");
    JsonNode scan = figures.get(0);
    assertThat(scan.path("skipped").asText())
        .isEqualTo("Kafka is not available: its jars were not built");
    assertThat(scan.path("value").asDouble()).isEqualTo(2_000_000);
    assertThat(scan.path("baselineValue").isNull()).isTrue();
    assertThat(scan.path("ratio").isNull()).isTrue();
    assertThat(scan.path("target").path("ratioAtLeast").asDouble()).isEqualTo(5);
    assertThat(scan.path("target").path("met").isNull()).isTrue();
    JsonNode upserts = figures.get(1);
    assertThat(upserts.path("value").isNull()).isTrue();
    assertThat(upserts.has("target")).isFalse();
    JsonNode freshness = figures.get(2);
    assertThat(freshness.has("skipped")).isFalse();
    assertThat(freshness.path("target").path("ratioAtMost").asDouble()).isEqualTo(1);
    assertThat(freshness.path("target").path("met").asBoolean()).isFalse();
  }

  @Test
  void aMeasuredFigureCannotCarryNaNAndASkippedOneNoBaseline() {
    assertThatThrownBy(
            () -> Figure.withoutTarget("scan_rows_per_s", Double.NaN, "rows/s", "peer", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value");
    assertThatThrownBy(
            () ->
                new Figure(
                    "scan_rows_per_s",
                    1,
                    "rows/s",
                    "peer",
                    2,
                    0.5,
                    Optional.empty(),
                    Optional.of("peer failed")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("skipped");
  }

  @Test
  void figureNeedsAPositiveBaseline() {
    assertThatThrownBy(() -> Figure.of("ready_ms", 10, "ms", "nothing", 0, Target.below(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baselineValue");
  }

  @Test
  void medianTakesTheMiddleValue() {
    assertThat(Median.of(List.of(5.0, 1.0, 3.0), Double::doubleValue)).isEqualTo(3.0);
    assertThat(Median.of(List.of(4.0, 1.0, 3.0, 2.0), Double::doubleValue)).isEqualTo(2.5);
  }

  @Test
  void aPairedFiguresRatioIsTheMedianOfTheIterationsRatios() {
    // Five iterations (value, baseline) on a machine whose speed drifts, one baseline slow: the
    // iterations' ratios are 0.667, 0.647, 1.2, 0.708 and 0.593. The medians taken apart (150 and
    // 180) make 0.83, a ratio four of the five iterations were far below.
    List<double[]> iterations =
        List.of(
            new double[] {120, 180},
            new double[] {110, 170},
            new double[] {150, 125},
            new double[] {170, 240},
            new double[] {160, 270});
    assertThat(Median.of(iterations, i -> i[0]) / Median.of(iterations, i -> i[1]))
        .isCloseTo(0.833, within(0.001));
    assertThat(Median.ofRatios(iterations, i -> i[0], i -> i[1]))
        .isCloseTo(120.0 / 180, within(1e-9));

    Figure figure =
        Figure.paired(
            "rows_per_s",
            iterations,
            i -> i[0],
            "rows/s",
            "b",
            i -> i[1],
            Target.ratioAtLeast(0.8));
    assertThat(figure.value()).isEqualTo(150);
    assertThat(figure.baselineValue()).isEqualTo(180);
    assertThat(figure.ratio()).isCloseTo(0.667, within(0.001));
    assertThat(figure.target().orElseThrow().isMetBy(figure)).isFalse();

    // Even counts: the mean of the middle two ratios (0.667 and 0.708 of the first four).
    Figure even =
        Figure.pairedWithoutTarget(
            "rows_per_s", iterations.subList(0, 4), i -> i[0], "rows/s", "b", i -> i[1]);
    assertThat(even.ratio()).isCloseTo((120.0 / 180 + 170.0 / 240) / 2, within(1e-9));
    assertThat(even.target()).isEmpty();
  }
}
