package io.lakestream.bench;

import java.util.List;

/** Every benchmark {@code bin/lakestream bench} knows, in the order it runs them. */
final class Benchmarks {
  private static final List<Benchmark> ALL =
      List.of(
          new StartupBenchmark(),
          new RestCatalogBenchmark(),
          new LogAppendScanBenchmark(),
          new KeyedStateBenchmark(),
          new TieringBenchmark(),
          new FlightSqlBenchmark(),
          new ScalingBenchmark());

  private Benchmarks() {}

  static List<Benchmark> all() {
    return ALL;
  }
}
