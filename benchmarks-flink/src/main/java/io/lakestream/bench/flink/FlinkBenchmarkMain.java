package io.lakestream.bench.flink;

import io.lakestream.bench.BenchmarkMain;
import java.nio.file.Path;
import java.util.List;

/**
 * Entry point of {@code bin/lakestream bench flink [--quick]}: {@link BenchmarkMain}'s command line
 * and reports for the benchmark of this module, whose Flink class path cannot be the benchmarks
 * module's. Writes {@code benchmarks-flink/target/results/flink.json} under the repository root
 * given by the system property {@code lakestream.home}; exit codes as {@link BenchmarkMain}'s.
 */
public final class FlinkBenchmarkMain {
  private FlinkBenchmarkMain() {}

  public static void main(String[] args) {
    // Flink logs every job's start at INFO and its missing Hadoop and web-log settings at WARN;
    // keep the progress lines readable.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    String home = System.getProperty("lakestream.home");
    if (home == null || home.isBlank()) {
      System.err.println(
          "lakestream bench: system property lakestream.home is not set; run bin/lakestream bench");
      System.exit(2);
    }
    Path root = Path.of(home).toAbsolutePath().normalize();
    Path results = root.resolve("benchmarks-flink").resolve("target").resolve("results");
    System.exit(
        BenchmarkMain.run(
            List.of(new FlinkBenchmark()), args, root, results, System.out, System.err));
  }
}
