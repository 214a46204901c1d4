package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The result of one benchmark run, in the format of {@code BENCHMARKS.md}: a Markdown table for
 * people and a JSON file for tools.
 *
 * <p>The JSON object has {@code benchmark}, {@code finishedAt} (ISO-8601), {@code workload}, {@code
 * mode} ({@code quick} or {@code full}), {@code warmupIterations}, {@code measuredIterations},
 * {@code statistic} (always {@code median}), {@code machine} ({@code cores}, {@code
 * totalMemoryBytes}, {@code jvm}, {@code maxHeapBytes}, {@code os}) and {@code figures}, an array
 * in report order of objects with {@code name}, {@code value}, {@code unit}, {@code baseline},
 * {@code baselineValue}, {@code ratio} and, for a figure with a target, {@code target}: {@code
 * below} (an upper bound on the value), {@code atLeast} (a lower bound on the value), {@code
 * ratioAtLeast} or {@code ratioAtMost} (a bound on the ratio), and {@code met}. A figure that was
 * not measured in the run ({@link Figure#isSkipped()}) has {@code skipped} with the reason, null
 * {@code baselineValue} and {@code ratio}, {@code value} null unless Lakestream's side was
 * measured, and {@code met} null. Field names are stable; new fields may be added.
 *
 * @param benchmark the benchmark's name, also the JSON file's name
 * @param workload the benchmark's workload description
 * @param mode how many iterations the figures were taken over
 * @param machine where the benchmark ran
 * @param finishedAt when the run finished
 * @param figures the figures, at least one, in report order
 */
public record Report(
    String benchmark,
    String workload,
    RunMode mode,
    Machine machine,
    Instant finishedAt,
    List<Figure> figures) {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public Report {
    requireNonNull(benchmark, "benchmark is null");
    requireNonNull(workload, "workload is null");
    requireNonNull(mode, "mode is null");
    requireNonNull(machine, "machine is null");
    requireNonNull(finishedAt, "finishedAt is null");
    figures = List.copyOf(requireNonNull(figures, "figures is null"));
    if (figures.isEmpty()) {
      throw new IllegalArgumentException("Report of " + benchmark + " has no figures");
    }
  }

  /** A heading, the workload and machine lines, then one table row per figure. */
  public String toMarkdown() {
    StringBuilder text = new StringBuilder();
    text.append("### ").append(benchmark).append(" (").append(describeIterations()).append(")");
    text.append(System.lineSeparator()).append(System.lineSeparator());
    text.append("Workload: ").append(workload).append(System.lineSeparator());
    text.append(
        String.format(
            Locale.ROOT,
            "Machine: %d cores, %s memory, %s, max heap %s, %s%n%n",
            machine.cores(),
            gibibytes(machine.totalMemoryBytes()),
            machine.jvm(),
            gibibytes(machine.maxHeapBytes()),
            machine.os()));
    text.append("| figure | value | unit | baseline | baseline value | ratio | target |")
        .append(System.lineSeparator());
    text.append("|---|---:|---|---|---:|---:|---|").append(System.lineSeparator());
    for (Figure figure : figures) {
      if (figure.isSkipped()) {
        text.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | - | - | %s |%n",
                figure.name(),
                Double.isNaN(figure.value())
                    ? "-"
                    : String.format(Locale.ROOT, "%.1f", figure.value()),
                figure.unit(),
                figure.baseline(),
                figure.target().map(target -> target.describe(figure.unit()) + ": ").orElse("")
                    + "skipped ("
                    + figure.skippedReason().orElseThrow()
                    + ")"));
        continue;
      }
      text.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %s | %s | %.1f | %.2f | %s |%n",
              figure.name(),
              figure.value(),
              figure.unit(),
              figure.baseline(),
              figure.baselineValue(),
              figure.ratio(),
              figure
                  .target()
                  .map(
                      target ->
                          target.describe(figure.unit())
                              + (target.isMetBy(figure) ? ": met" : ": MISSED"))
                  .orElse("none")));
    }
    return text.toString();
  }

  /** The report as a JSON object, fields as described on this class. */
  public ObjectNode toJson() {
    ObjectNode json = MAPPER.createObjectNode();
    json.put("benchmark", benchmark);
    json.put("finishedAt", finishedAt.toString());
    json.put("workload", workload);
    json.put("mode", mode.displayName());
    json.put("warmupIterations", mode.warmupIterations());
    json.put("measuredIterations", mode.measuredIterations());
    json.put("statistic", "median");
    ObjectNode machineJson = json.putObject("machine");
    machineJson.put("cores", machine.cores());
    machineJson.put("totalMemoryBytes", machine.totalMemoryBytes());
    machineJson.put("jvm", machine.jvm());
    machineJson.put("maxHeapBytes", machine.maxHeapBytes());
    machineJson.put("os", machine.os());
    ArrayNode figuresJson = json.putArray("figures");
    for (Figure figure : figures) {
      ObjectNode figureJson = figuresJson.addObject();
      if (figure.isSkipped()) {
        figureJson.put("name", figure.name());
        if (Double.isNaN(figure.value())) {
          figureJson.putNull("value");
        } else {
          figureJson.put("value", figure.value());
        }
        figureJson.put("unit", figure.unit());
        figureJson.put("baseline", figure.baseline());
        figureJson.putNull("baselineValue");
        figureJson.putNull("ratio");
        figureJson.put("skipped", figure.skippedReason().orElseThrow());
        figure
            .target()
            .ifPresent(
                target -> {
                  ObjectNode targetJson = figureJson.putObject("target");
                  targetJson.put(target.kind().jsonKey(), target.bound());
                  targetJson.putNull("met");
                });
        continue;
      }
      figureJson.put("name", figure.name());
      figureJson.put("value", figure.value());
      figureJson.put("unit", figure.unit());
      figureJson.put("baseline", figure.baseline());
      figureJson.put("baselineValue", figure.baselineValue());
      figureJson.put("ratio", figure.ratio());
      figure
          .target()
          .ifPresent(
              target -> {
                ObjectNode targetJson = figureJson.putObject("target");
                targetJson.put(target.kind().jsonKey(), target.bound());
                targetJson.put("met", target.isMetBy(figure));
              });
    }
    return json;
  }

  /**
   * Writes {@link #toJson()} to {@code <directory>/<benchmark>.json}, creating the directory and
   * replacing an earlier report of the same benchmark, and returns the file.
   */
  public Path writeJson(Path directory) throws IOException {
    Files.createDirectories(directory);
    Path file = directory.resolve(benchmark + ".json");
    MAPPER.writeValue(file.toFile(), toJson());
    return file;
  }

  private String describeIterations() {
    if (mode == RunMode.QUICK) {
      return String.format(
          Locale.ROOT,
          "quick mode: %d iteration, no warm-up; figures not judged",
          mode.measuredIterations());
    }
    return String.format(
        Locale.ROOT,
        "%s mode: median of %d measured iterations after %d warm-up",
        mode.displayName(),
        mode.measuredIterations(),
        mode.warmupIterations());
  }

  private static String gibibytes(long bytes) {
    return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
  }
}
