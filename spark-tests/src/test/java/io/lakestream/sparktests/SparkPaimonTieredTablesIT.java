package io.lakestream.sparktests;

import io.lakestream.testing.TieredTables;
import io.lakestream.testing.TieredTablesContract;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link TieredTablesContract} for Spark over tables tiered into Paimon ({@code
 * lakestream.lake-format=paimon}) and read through their Iceberg catalog entries, on the module's
 * shared server and Spark session ({@link SharedSpark}).
 */
@ExtendWith(SharedSpark.Resolver.class)
class SparkPaimonTieredTablesIT extends TieredTablesContract {
  private static SparkSession spark;
  private static TieredTables tables;

  @BeforeAll
  static void start(SharedSpark shared) {
    spark = shared.spark();
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
    for (Row row : spark.sql(statement).collectAsList()) {
      List<Object> values = new ArrayList<>(row.length());
      for (int i = 0; i < row.length(); i++) {
        values.add(TieredTables.normalize(row.get(i)));
      }
      rows.add(values);
    }
    return rows;
  }
}
