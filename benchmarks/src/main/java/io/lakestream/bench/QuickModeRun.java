package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * One benchmark run in quick mode as the test suite runs it: against the repository named by the
 * system property {@code lakestream.home} (set by the modules' poms), its report written under a
 * given directory, its progress and table kept for the test to read and its errors on standard
 * error (where a slow or stuck phase shows in the test's output file).
 *
 * @param exitCode what {@code bin/lakestream bench NAME --quick} would exit with
 * @param output the progress and the Markdown table printed
 */
public record QuickModeRun(int exitCode, String output) {
  /**
   * Runs {@code benchmark}, named {@code name} on the command line, writing under {@code results}.
   */
  public static QuickModeRun of(Benchmark benchmark, String name, Path results) {
    String home = System.getProperty("lakestream.home");
    if (home == null || home.isBlank()) {
      throw new IllegalStateException(
          "System property lakestream.home is not set (the pom sets it)");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exitCode;
    try (PrintStream outStream = new PrintStream(out, true, UTF_8)) {
      exitCode =
          BenchmarkMain.run(
              List.of(benchmark),
              new String[] {name, "--quick"},
              Path.of(home),
              results,
              outStream,
              System.err);
    }
    return new QuickModeRun(exitCode, out.toString(UTF_8));
  }
}
