package io.lakestream.bench;

import java.util.List;
import java.util.Optional;

/** Every benchmark {@code bin/lakestream bench} knows, in the order it runs them. */
final class Benchmarks {
  private static final List<Benchmark> ALL =
      List.of(
          new StartupBenchmark(),
          new RestCatalogBenchmark(),
          new LogAppendScanBenchmark(),
          new KeyedStateBenchmark(),
          new TieringBenchmark(),
          new FlightSqlBenchmark());

  private Benchmarks() {}

  static List<Benchmark> all() {
    return ALL;
  }

  static Optional<Benchmark> named(String name) {
    return ALL.stream().filter(benchmark -> benchmark.name().equals(name)).findFirst();
  }
}
