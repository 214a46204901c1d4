package io.lakestream.bench.flink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.bench.QuickModeRun;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the flink benchmark in quick mode (20,000 rows, one iteration, against the packaged server)
 * so it cannot silently rot: every job reads and writes the rows it must (the benchmark fails
 * otherwise), and the report has its figures with their targets. Speed is judged by the benchmark,
 * never here.
 */
class FlinkBenchmarkQuickModeTest {
  @TempDir Path results;

  @Test
  void runsInQuickModeAndWritesItsReport() throws Exception {
    QuickModeRun run = QuickModeRun.of(new FlinkBenchmark(), "flink", results);

    assertThat(run.exitCode())
        .as("exit code; see the test's output for the benchmark's errors")
        .isZero();
    JsonNode report = new ObjectMapper().readTree(results.resolve("flink.json").toFile());
    assertThat(report.path("benchmark").asText()).isEqualTo("flink");
    assertThat(report.path("mode").asText()).isEqualTo("quick");
    assertThat(report.path("measuredIterations").asInt()).isEqualTo(1);
    Map<String, JsonNode> figures = new HashMap<>();
    String table = run.output();
    for (JsonNode figure : report.path("figures")) {
      String name = figure.path("name").asText();
      figures.put(name, figure);
      assertThat(figure.path("value").asDouble()).as(name).isPositive();
      assertThat(figure.path("baselineValue").asDouble()).as(name).isPositive();
      assertThat(table).contains("| " + name + " |");
    }
    assertThat(figures)
        .containsKeys(
            "source_full_rows_per_s",
            "source_projected_rows_per_s",
            "source_full_object_reuse_vs_scanner_rows_per_s",
            "source_projected_object_reuse_vs_scanner_rows_per_s",
            "sink_rows_per_s",
            "sink_job_without_sink_rows_per_s",
            "latency_ms_p50",
            "latency_ms_p99");
    for (String name :
        List.of("source_full_rows_per_s", "source_projected_rows_per_s", "sink_rows_per_s")) {
      assertThat(figures.get(name).path("target").path("ratioAtLeast").asDouble())
          .as(name)
          .isEqualTo(0.7);
    }
    assertThat(figures.get("latency_ms_p99").path("target").path("below").asDouble()).isEqualTo(50);
  }
}
