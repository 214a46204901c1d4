package io.lakestream.trino;

import io.lakestream.testing.TieredTablesContract;
import io.lakestream.testing.TieredTablesEngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Trino's Iceberg connector (in-JVM query runner) over tables
 * tiered into Paimon ({@code lakestream.lake-format=paimon}), on the module's shared server and
 * query runner ({@link SharedTrino}).
 */
@ExtendWith(SharedTrino.Resolver.class)
class TrinoPaimonTieredTablesIT extends TieredTablesEngineContract {
  TrinoPaimonTieredTablesIT(SharedTrino shared) {
    super(shared.server().baseUri(), shared.rpcPort(), "paimon", shared::rows);
  }
}
