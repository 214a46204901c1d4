package io.lakestream.sparktests;

import io.lakestream.testing.TieredTablesContract;
import io.lakestream.testing.TieredTablesEngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Spark over tables tiered into Paimon ({@code
 * lakestream.lake-format=paimon}) and read through their Iceberg catalog entries, on the module's
 * shared server and Spark session ({@link SharedSpark}).
 */
@ExtendWith(SharedSpark.Resolver.class)
class SparkPaimonTieredTablesIT extends TieredTablesEngineContract {
  SparkPaimonTieredTablesIT(SharedSpark shared) {
    super(shared.server().baseUri(), shared.rpcPort(), "paimon", shared::rows);
  }
}
