package io.lakestream.bench.trino;

import io.lakestream.bench.BenchmarkMain;
import java.nio.file.Path;
import java.util.List;

/**
 * Entry point of {@code bin/lakestream bench trino [--quick]}: {@link BenchmarkMain}'s command line
 * and reports for the benchmarks of this module, whose Trino class path cannot be the benchmarks
 * module's. Writes {@code benchmarks-trino/target/results/<name>.json} under the repository root
 * given by the system property {@code lakestream.home}; exit codes as {@link BenchmarkMain}'s.
 */
public final class TrinoBenchmarkMain {
  private TrinoBenchmarkMain() {}

  public static void main(String[] args) {
    String home = System.getProperty("lakestream.home");
    if (home == null || home.isBlank()) {
      System.err.println(
          "lakestream bench: system property lakestream.home is not set; run bin/lakestream bench");
      System.exit(2);
    }
    Path root = Path.of(home).toAbsolutePath().normalize();
    Path results = root.resolve("benchmarks-trino").resolve("target").resolve("results");
    System.exit(
        BenchmarkMain.run(
            List.of(new TrinoBenchmark()), args, root, results, System.out, System.err));
  }
}
