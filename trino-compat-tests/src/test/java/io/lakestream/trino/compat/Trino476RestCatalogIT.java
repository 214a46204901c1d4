package io.lakestream.trino.compat;

import io.lakestream.testing.TrinoCatalogContract;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino 476's Iceberg connector ({@code iceberg.catalog.type=rest}), the newest Trino whose server
 * is on Maven Central, in an in-JVM query runner against a real Lakestream server process ({@link
 * SharedTrino476}): what a user of that release does first, in a schema made by a plain {@code
 * CREATE SCHEMA} ({@link TrinoCatalogContract}).
 */
@ExtendWith(SharedTrino476.Resolver.class)
class Trino476RestCatalogIT extends TrinoCatalogContract {
  private static QueryRunner trino;

  Trino476RestCatalogIT() {
    super("476");
  }

  @BeforeAll
  static void start(SharedTrino476 shared) {
    trino = shared.trino();
  }

  @Override
  protected List<List<Object>> query(String sql) {
    return trino.execute(sql).getMaterializedRows().stream()
        .map(MaterializedRow::getFields)
        .toList();
  }
}
