package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@link TieredTablesContract} on one engine's shared server: connects {@link TieredTables} for
 * a lake format before the class's first test, closes it after the last, and normalises the values
 * of the rows the engine returns ({@link TieredTables#normalize}). A subclass only names its
 * server, its lake format and how its engine runs a statement, usually in its constructor, whose
 * parameters the engine module's parameter resolver supplies:
 *
 * <pre>{@code
 * @ExtendWith(SharedSpark.Resolver.class)
 * class SparkTieredTablesIT extends TieredTablesEngineContract {
 *   SparkTieredTablesIT(SharedSpark shared) {
 *     super(shared.server().baseUri(), shared.rpcPort(), "iceberg", shared::rows);
 *   }
 * }
 * }</pre>
 *
 * <p>One instance serves all tests of a class ({@link TestInstance.Lifecycle#PER_CLASS}), so the
 * tables' connection lives as long as the class runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TieredTablesEngineContract extends TieredTablesContract {
  private final String restUri;
  private final int rpcPort;
  private final String lakeFormat;
  private final Function<String, List<List<Object>>> engine;
  private TieredTables tables;

  /**
   * @param restUri the server's REST catalog URI
   * @param rpcPort the server's stream RPC port on 127.0.0.1
   * @param lakeFormat the lake format the tables tier into ({@code iceberg} or {@code paimon})
   * @param engine runs a statement in the engine and returns its rows, values as the engine gives
   *     them
   */
  protected TieredTablesEngineContract(
      String restUri, int rpcPort, String lakeFormat, Function<String, List<List<Object>>> engine) {
    this.restUri = requireNonNull(restUri, "restUri is null");
    this.rpcPort = rpcPort;
    this.lakeFormat = requireNonNull(lakeFormat, "lakeFormat is null");
    this.engine = requireNonNull(engine, "engine is null");
  }

  @BeforeAll
  final void connectTables() {
    tables = TieredTables.connect(restUri, rpcPort, lakeFormat);
  }

  @AfterAll
  final void closeTables() {
    if (tables != null) {
      tables.close();
    }
  }

  @Override
  protected final TieredTables tables() {
    return tables;
  }

  @Override
  protected final List<List<Object>> sql(String statement) {
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : engine.apply(statement)) {
      List<Object> values = new ArrayList<>(row.size());
      for (Object value : row) {
        values.add(TieredTables.normalize(value));
      }
      rows.add(values);
    }
    return rows;
  }
}
