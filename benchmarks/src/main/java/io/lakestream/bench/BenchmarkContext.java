package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a benchmark run is given.
 *
 * @param lakestreamHome the repository root, holding {@code bin/lakestream} and the packaged server
 * @param mode how many iterations to run
 * @param progress where to print progress lines while the benchmark runs (not the report)
 * @param peers whether benchmarks that compare Lakestream with its peers ({@link PeerRun}) run that
 *     comparison; false for {@code --no-peers}
 */
public record BenchmarkContext(
    Path lakestreamHome, RunMode mode, PrintStream progress, boolean peers) {
  public BenchmarkContext {
    requireNonNull(lakestreamHome, "lakestreamHome is null");
    requireNonNull(mode, "mode is null");
    requireNonNull(progress, "progress is null");
  }

  /** A context of a run that compares with the peers. */
  public BenchmarkContext(Path lakestreamHome, RunMode mode, PrintStream progress) {
    this(lakestreamHome, mode, progress, true);
  }

  /**
   * Runs the warm-up iterations of {@link #mode()}, discarding their results, then the measured
   * iterations, and returns the results of the measured ones in order. An iteration that throws
   * ends the run with its exception.
   */
  public <T> List<T> iterate(Iteration<T> iteration) throws Exception {
    int warmups = mode.warmupIterations();
    for (int i = 1; i <= warmups; i++) {
      progress.printf("  warm-up %d of %d%n", i, warmups);
      iteration.run();
    }
    int measured = mode.measuredIterations();
    List<T> results = new ArrayList<>(measured);
    for (int i = 1; i <= measured; i++) {
      progress.printf("  iteration %d of %d%n", i, measured);
      results.add(requireNonNull(iteration.run(), "iteration result is null"));
    }
    return List.copyOf(results);
  }

  /** One iteration of a benchmark, returning its measurements. */
  @FunctionalInterface
  public interface Iteration<T> {
    T run() throws Exception;
  }
}
