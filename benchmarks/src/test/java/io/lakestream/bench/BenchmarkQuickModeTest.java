package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every registered benchmark in quick mode so none silently rots. Checks that a report is
 * produced and its figures are sane; performance is judged by the benchmarks, never here.
 */
class BenchmarkQuickModeTest {
  @TempDir Path results;

  static Stream<String> benchmarkNames() {
    return Benchmarks.all().stream().map(Benchmark::name);
  }

  @ParameterizedTest
  @MethodSource("benchmarkNames")
  void runsInQuickModeAndWritesItsReport(String name) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exitCode = run(out, err, name, "--quick");

    assertThat(exitCode).as(err.toString(UTF_8)).isZero();
    Path file = results.resolve(name + ".json");
    assertThat(file).exists();
    JsonNode report = new ObjectMapper().readTree(file.toFile());
    assertThat(report.path("benchmark").asText()).isEqualTo(name);
    assertThat(report.path("mode").asText()).isEqualTo("quick");
    assertThat(report.path("measuredIterations").asInt()).isEqualTo(1);
    assertThat(report.path("workload").asText()).isNotBlank();
    assertThat(report.path("machine").path("cores").asInt()).isPositive();
    assertThat(report.path("machine").path("totalMemoryBytes").asLong()).isPositive();
    assertThat(report.path("machine").path("maxHeapBytes").asLong()).isPositive();
    assertThat(report.path("machine").path("jvm").asText()).isNotBlank();
    JsonNode figures = report.path("figures");
    assertThat(figures.isArray()).isTrue();
    assertThat(figures).isNotEmpty();
    String table = out.toString(UTF_8);
    for (JsonNode figure : figures) {
      String figureName = figure.path("name").asText();
      assertThat(figureName).isNotBlank();
      assertThat(table).contains("| " + figureName + " |");
      if (figure.has("skipped")) {
        // A peer that is not available in this build: reported with the reason, never dropped.
        assertThat(figure.path("skipped").asText()).as(figureName).isNotBlank();
        assertThat(figure.path("baselineValue").isNull()).as(figureName).isTrue();
        continue;
      }
      // Counts of faults (failed requests, lost commits) are zero when all is well.
      assertThat(figure.path("value").asDouble()).as(figureName).isNotNegative();
      assertThat(figure.path("baselineValue").asDouble()).as(figureName).isPositive();
      assertThat(figure.path("ratio").asDouble()).as(figureName).isNotNegative();
      assertThat(figure.path("unit").asText()).as(figureName).isNotBlank();
      assertThat(figure.path("baseline").asText()).as(figureName).isNotBlank();
      assertThat(table).contains("| " + figureName + " |");
    }
    if (name.equals("log-append-scan") || name.equals("keyed-state")) {
      assertComparesWithEveryPeer(figures);
    }
    if (name.equals("scaling")) {
      // Every curve's chart is an SVG document whose legend names each series of the curve.
      for (String curve : java.util.List.of("catalog", "streams", "buckets", "memory")) {
        Path chart = results.resolve("scaling-" + curve + ".svg");
        assertThat(chart).exists();
        java.util.List<String> texts = ScalingChartTest.svgTexts(chart);
        for (JsonNode figure : figures) {
          String figureName = figure.path("name").asText();
          if (figureName.startsWith(curve + "_")) {
            // <curve>_<size>_<size label>_<series>: the series is what follows the size label.
            String series = figureName.split("_", 4)[3];
            assertThat(texts).as(chart + " legend").contains(series);
          }
        }
      }
    }
  }

  /**
   * The benchmarks that compare with the peers report a figure per peer, measured or skipped with
   * its reason, and Lakestream's side is measured in every run whether the peer's is or not.
   */
  private static void assertComparesWithEveryPeer(JsonNode figures) {
    for (String peer : PeerSystems.PEERS) {
      String suffix = "_vs_" + peer.toLowerCase(Locale.ROOT);
      List<JsonNode> compared = new ArrayList<>();
      figures.forEach(
          figure -> {
            if (figure.path("name").asText().endsWith(suffix)) {
              compared.add(figure);
            }
          });
      assertThat(compared).as(peer).isNotEmpty();
      for (JsonNode figure : compared) {
        assertThat(figure.path("value").isNumber()).as(figure.toString()).isTrue();
        assertThat(figure.has("skipped") || figure.path("baselineValue").asDouble() > 0)
            .as(figure.toString())
            .isTrue();
      }
    }
  }

  @Test
  void noPeersIsAnOption() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exitCode = run(new ByteArrayOutputStream(), err, "no-such-benchmark", "--no-peers");

    assertThat(exitCode).isEqualTo(BenchmarkMain.EXIT_USAGE);
    assertThat(err.toString(UTF_8))
        .startsWith("lakestream bench: unknown benchmark 'no-such-benchmark'");
  }

  @Test
  void unknownBenchmarkIsAUsageError() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exitCode = run(out, err, "no-such-benchmark", "--quick");

    assertThat(exitCode).isEqualTo(BenchmarkMain.EXIT_USAGE);
    assertThat(err.toString(UTF_8))
        .isEqualTo(
            "lakestream bench: unknown benchmark 'no-such-benchmark'; known: "
                + String.join(", ", benchmarkNames().toList())
                + System.lineSeparator());
    assertThat(results).isEmptyDirectory();
  }

  @Test
  void unknownOptionIsAUsageError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exitCode = run(new ByteArrayOutputStream(), err, "--fast");

    assertThat(exitCode).isEqualTo(BenchmarkMain.EXIT_USAGE);
    assertThat(err.toString(UTF_8)).startsWith("lakestream bench: unknown option '--fast'");
  }

  private int run(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
    try (PrintStream outStream = new PrintStream(out, true, UTF_8);
        PrintStream errStream = new PrintStream(err, true, UTF_8)) {
      return BenchmarkMain.run(args, lakestreamHome(), results, outStream, errStream);
    }
  }

  private static Path lakestreamHome() {
    String home = System.getProperty("lakestream.home");
    assertThat(home).as("system property lakestream.home, set by the benchmarks pom").isNotBlank();
    return Path.of(home);
  }
}
