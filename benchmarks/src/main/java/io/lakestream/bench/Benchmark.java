package io.lakestream.bench;

import java.util.List;

/**
 * One benchmark that {@code bin/lakestream bench [NAME]} runs: a workload, the figures measured on
 * it and, beside each figure, a baseline measured in the same run on the same machine (see {@code
 * BENCHMARKS.md}).
 *
 * <p>Implementations promise:
 *
 * <ul>
 *   <li>{@link #name()} is stable across runs and releases, because it names the result file and
 *       figures are compared by it;
 *   <li>{@link #run} honours the {@link RunMode} in its context: warm-up iterations first, then the
 *       measured iterations, each figure the median of the measured ones ({@link
 *       BenchmarkContext#iterate} does this);
 *   <li>{@link #run} cleans up after itself whether it returns or throws: every process it started
 *       is stopped, every temporary file deleted, and it never touches a process it did not start;
 *   <li>{@link #run} never decides whether a figure is good enough. It reports the value, its
 *       baseline and its target; judging is left to the reader of the report. Faults are not
 *       figures being good or bad: a full-mode run that saw failed requests or lost writes throws
 *       {@link FaultedRunException} with its figures, fault counts among them.
 * </ul>
 *
 * <p>Benchmarks run one at a time; an implementation need not be thread safe.
 */
public interface Benchmark {
  /** Short lower-case name, e.g. {@code startup}; the report is written to {@code <name>.json}. */
  String name();

  /**
   * What the benchmark runs and how big it is, in one line for the report, e.g. "W1 wide events, 5
   * million rows".
   */
  String workload();

  /**
   * Runs the benchmark and returns its figures, at least one, in the order the report lists them.
   *
   * @throws FaultedRunException when the run finished but saw faults that fail it
   * @throws Exception when the workload cannot be run (a process failed to start, a deadline
   *     passed); the message says what went wrong, with any output of the processes involved
   */
  List<Figure> run(BenchmarkContext context) throws Exception;

  /**
   * Writes whatever the last {@link #run} drew besides its figures (charts) to {@code
   * resultsDirectory}, next to the JSON report, and returns the files written; none by default.
   *
   * @throws java.io.IOException when a file cannot be written
   */
  default List<java.nio.file.Path> writeCharts(java.nio.file.Path resultsDirectory)
      throws java.io.IOException {
    return List.of();
  }
}
