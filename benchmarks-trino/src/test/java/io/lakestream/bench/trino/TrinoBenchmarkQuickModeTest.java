package io.lakestream.bench.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.bench.QuickModeRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the trino benchmark in quick mode (TPC-H scale factor 0.01, one iteration) so it cannot
 * silently rot: the server starts, the tables load and tier, every query answers the same rows
 * through both catalogs, and the report has its figures. Speed is judged by the benchmark, never
 * here.
 */
class TrinoBenchmarkQuickModeTest {
  @TempDir Path results;

  @Test
  void runsInQuickModeAndWritesItsReport() throws Exception {
    QuickModeRun quick = QuickModeRun.of(new TrinoBenchmark(), "trino", results);

    assertThat(quick.exitCode())
        .as("exit code; see the test's output for the benchmark's errors")
        .isZero();
    JsonNode report = new ObjectMapper().readTree(results.resolve("trino.json").toFile());
    assertThat(report.path("benchmark").asText()).isEqualTo("trino");
    assertThat(report.path("mode").asText()).isEqualTo("quick");
    assertThat(report.path("measuredIterations").asInt()).isEqualTo(1);
    assertThat(report.path("workload").asText()).contains("TPC-H");
    List<String> names = new ArrayList<>();
    String table = quick.output();
    for (JsonNode figure : report.path("figures")) {
      String name = figure.path("name").asText();
      names.add(name);
      assertThat(figure.path("value").asDouble()).as(name).isPositive();
      assertThat(figure.path("baselineValue").asDouble()).as(name).isPositive();
      assertThat(figure.path("unit").asText()).as(name).isEqualTo("ms");
      assertThat(table).contains("| " + name + " |");
    }
    List<String> expected = new ArrayList<>();
    expected.addAll(
        List.of(
            "tpch_tiered_geomean_ms",
            "tpch_tail_geomean_ms",
            "freshness_ms_p50",
            "freshness_ms_p99",
            "freshness_ms_max"));
    for (String run : List.of("tiered", "tail")) {
      for (int q = 1; q <= 22; q++) {
        expected.add(String.format("tpch_%s_q%02d_ms", run, q));
      }
    }
    assertThat(names).containsExactlyElementsOf(expected);
    assertThat(report.path("figures").get(0).path("target").path("ratioAtMost").asDouble())
        .isEqualTo(1.05);
    assertThat(report.path("figures").get(1).path("target").path("ratioAtMost").asDouble())
        .isEqualTo(1.3);
    assertThat(report.path("figures").get(3).path("target").path("below").asDouble())
        .isEqualTo(300);
  }
}
