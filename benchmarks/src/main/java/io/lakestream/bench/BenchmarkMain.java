package io.lakestream.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Entry point of {@code bin/lakestream bench [NAME] [--quick] [--no-peers]}: runs every benchmark,
 * or the named one (without the comparison with Kafka and Fluss for {@code --no-peers}), prints
 * each report's Markdown table to standard output and writes its JSON to {@code
 * benchmarks/target/results/<name>.json} under the repository root given by the system property
 * {@code lakestream.home}. Progress and errors go to standard error.
 *
 * <p>Exit codes: 0 when every benchmark ran, 1 when one failed (the others still run), 2 for a
 * usage error such as an unknown benchmark name. A benchmark that ran but saw faults ({@link
 * FaultedRunException}) still gets its report printed and written, and counts as failed.
 */
public final class BenchmarkMain {
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;
  private static final String USAGE = "usage: lakestream bench [NAME] [--quick] [--no-peers]";

  private BenchmarkMain() {}

  public static void main(String[] args) {
    String home = System.getProperty("lakestream.home");
    if (home == null || home.isBlank()) {
      System.err.println(
          "lakestream bench: system property lakestream.home is not set; run bin/lakestream bench");
      System.exit(EXIT_USAGE);
    }
    Path root = Path.of(home).toAbsolutePath().normalize();
    Path results = root.resolve("benchmarks").resolve("target").resolve("results");
    System.exit(run(args, root, results, System.out, System.err));
  }

  static int run(
      String[] args, Path lakestreamHome, Path resultsDirectory, PrintStream out, PrintStream err) {
    return run(Benchmarks.all(), args, lakestreamHome, resultsDirectory, out, err);
  }

  /**
   * Runs {@code args} ({@code [NAME] [--quick]}) against the benchmarks in {@code known}: every one
   * in order, or the one named, writing reports to {@code resultsDirectory}; returns the exit code.
   * A module whose benchmarks cannot share this module's class path (Trino's, in {@code
   * benchmarks-trino}) runs its own through this with its own results directory.
   */
  public static int run(
      List<Benchmark> known,
      String[] args,
      Path lakestreamHome,
      Path resultsDirectory,
      PrintStream out,
      PrintStream err) {
    RunMode mode = RunMode.FULL;
    boolean peers = true;
    String name = null;
    for (String arg : args) {
      if (arg.equals("--quick")) {
        mode = RunMode.QUICK;
      } else if (arg.equals("--no-peers")) {
        peers = false;
      } else if (arg.equals("--help") || arg.equals("-h")) {
        out.println(USAGE);
        out.println("benchmarks: " + names(known));
        return 0;
      } else if (arg.startsWith("-")) {
        err.println("lakestream bench: unknown option '" + arg + "'; " + USAGE);
        return EXIT_USAGE;
      } else if (name != null) {
        err.println(
            "lakestream bench: more than one benchmark named ('"
                + name
                + "', '"
                + arg
                + "'); "
                + USAGE);
        return EXIT_USAGE;
      } else {
        name = arg;
      }
    }
    List<Benchmark> selected;
    if (name == null) {
      selected = known;
    } else {
      String wanted = name;
      Optional<Benchmark> named =
          known.stream().filter(benchmark -> benchmark.name().equals(wanted)).findFirst();
      if (named.isEmpty()) {
        err.println("lakestream bench: unknown benchmark '" + name + "'; known: " + names(known));
        return EXIT_USAGE;
      }
      selected = List.of(named.get());
    }

    int exitCode = 0;
    for (Benchmark benchmark : selected) {
      err.printf("lakestream bench: running %s in %s mode%n", benchmark.name(), mode.displayName());
      try {
        List<Figure> figures;
        String fault = null;
        try {
          figures = benchmark.run(new BenchmarkContext(lakestreamHome, mode, err, peers));
        } catch (FaultedRunException e) {
          figures = e.figures();
          fault = e.getMessage();
        }
        report(benchmark, mode, figures, resultsDirectory, out, err);
        if (fault != null) {
          err.println("lakestream bench: " + benchmark.name() + " failed: " + fault);
          exitCode = EXIT_FAILED;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        err.println("lakestream bench: " + benchmark.name() + " was interrupted");
        return EXIT_FAILED;
      } catch (Exception e) {
        err.println("lakestream bench: " + benchmark.name() + " failed: " + e.getMessage());
        e.printStackTrace(err);
        exitCode = EXIT_FAILED;
      }
    }
    return exitCode;
  }

  private static void report(
      Benchmark benchmark,
      RunMode mode,
      List<Figure> figures,
      Path resultsDirectory,
      PrintStream out,
      PrintStream err)
      throws IOException {
    Report report =
        new Report(
            benchmark.name(),
            benchmark.workload(),
            mode,
            Machine.current(),
            Instant.now(),
            figures);
    out.println(report.toMarkdown());
    out.flush();
    err.println("lakestream bench: wrote " + report.writeJson(resultsDirectory));
    for (java.nio.file.Path chart : benchmark.writeCharts(resultsDirectory)) {
      err.println("lakestream bench: wrote " + chart);
    }
  }

  private static String names(List<Benchmark> known) {
    return String.join(", ", known.stream().map(Benchmark::name).toList());
  }
}
