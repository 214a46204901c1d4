package io.lakestream.trino;

import io.lakestream.testing.TieredTablesContract;
import io.lakestream.testing.TieredTablesEngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Trino's Iceberg connector (in-JVM query runner), on the
 * module's shared server and query runner ({@link SharedTrino}).
 */
@ExtendWith(SharedTrino.Resolver.class)
class TrinoTieredTablesIT extends TieredTablesEngineContract {
  TrinoTieredTablesIT(SharedTrino shared) {
    super(shared.server().baseUri(), shared.rpcPort(), "iceberg", shared::rows);
  }
}
