package io.lakestream.trino;

import io.lakestream.testing.TieredTables;
import io.lakestream.testing.TieredTablesContract;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Trino's Iceberg connector (in-JVM query runner) over tables
 * tiered into Paimon ({@code lakestream.lake-format=paimon}), on the module's shared server and
 * query runner ({@link SharedTrino}).
 */
@ExtendWith(SharedTrino.Resolver.class)
class TrinoPaimonTieredTablesIT extends TieredTablesContract {
  private static QueryRunner trino;
  private static TieredTables tables;

  @BeforeAll
  static void start(SharedTrino shared) {
    trino = shared.trino();
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort(), "paimon");
  }

  @AfterAll
  static void stop() {
    if (tables != null) {
      tables.close();
    }
  }

  @Override
  protected TieredTables tables() {
    return tables;
  }

  @Override
  protected List<List<Object>> sql(String statement) {
    List<List<Object>> rows = new ArrayList<>();
    for (MaterializedRow row : trino.execute(statement).getMaterializedRows()) {
      List<Object> values = new ArrayList<>(row.getFieldCount());
      for (Object value : row.getFields()) {
        values.add(TieredTables.normalize(value));
      }
      rows.add(values);
    }
    return rows;
  }
}
