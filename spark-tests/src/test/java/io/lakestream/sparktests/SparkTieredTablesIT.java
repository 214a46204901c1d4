package io.lakestream.sparktests;

import io.lakestream.testing.TieredTablesContract;
import io.lakestream.testing.TieredTablesEngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Spark in local mode, on the module's shared server and Spark
 * session ({@link SharedSpark}).
 */
@ExtendWith(SharedSpark.Resolver.class)
class SparkTieredTablesIT extends TieredTablesEngineContract {
  SparkTieredTablesIT(SharedSpark shared) {
    super(shared.server().baseUri(), shared.rpcPort(), "iceberg", shared::rows);
  }
}
