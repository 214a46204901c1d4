package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static io.lakestream.trino.SharedTrino.TPCH_CATALOG;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.TestingSession.testSessionBuilder;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.trino.Session;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import io.trino.testing.MaterializedResult;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TPC-H at scale factor 0.1 written through the stream ({@link TpchStreamLoader}), 90% of every
 * table tiered into the lake and 10% still in the log while the queries run: each of the 22 TPC-H
 * queries (the texts shipped with {@code io.trino.tpch}, which Trino's tpch connector is tested
 * with) returns through the {@code lakestream} catalog exactly the rows it returns from Trino's
 * {@code tpch} connector on the same generated data. Money columns are {@code decimal(12,2)} on
 * both sides, so results compare exactly.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LakestreamTpchIT {
  private static final double SCALE = 0.1;
  private static final String TPCH_SCHEMA = "sf0.1";
  private static final String NAMESPACE = "tpch_sf01";
  private static final double TIERED_SHARE = 0.9;
  private static final Duration TIERING_TIMEOUT = Duration.ofMinutes(3);
  private static final Pattern VIEW =
      Pattern.compile("CREATE OR REPLACE VIEW (\\w+) AS(.*?);(.*)", Pattern.DOTALL);

  private final SharedTrino shared;
  private Connection connection;
  private TpchStreamLoader loader;
  private List<TpchStreamLoader.Loaded> loaded;

  LakestreamTpchIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void load() {
    connection = Connection.open("127.0.0.1", shared.rpcPort(), null);
    loader = new TpchStreamLoader(shared.server().baseUri(), connection);
    long start = System.nanoTime();
    loaded =
        loader.load(
            NAMESPACE,
            SCALE,
            TpchStreamLoader.Layout.STANDARD_DECIMAL,
            TIERED_SHARE,
            TIERING_TIMEOUT);
    System.out.printf(
        "Loaded TPC-H SF%s through the stream in %.1f s: %s%n",
        SCALE, (System.nanoTime() - start) / 1e9, TpchStreamLoader.describe(loaded));
  }

  @AfterAll
  void close() {
    if (connection != null) {
      connection.close();
    }
  }

  /** Proves that every table reads all its rows, the tiered ones and the ones in the log. */
  @Test
  @Order(1)
  void tablesHoldEveryGeneratedRow() {
    for (TpchStreamLoader.Loaded table : loaded) {
      assertThat(count(LAKESTREAM_CATALOG + "." + NAMESPACE + "." + table.table()))
          .as("rows of %s through %s", table.table(), LAKESTREAM_CATALOG)
          .isEqualTo(table.rows())
          .isEqualTo(count(TPCH_CATALOG + ".\"" + TPCH_SCHEMA + "\"." + table.table()));
      assertThat(count("lake." + NAMESPACE + "." + table.table()))
          .as("rows of %s in the lake alone", table.table())
          .isEqualTo(table.tiered());
    }
  }

  /** Proves that a TPC-H query returns the tpch connector's rows over tiered and log rows. */
  @ParameterizedTest(name = "q{0}")
  @ValueSource(
      ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
  @Order(2)
  void queryEqualsTpchConnector(int query) {
    String sql = query(query);
    Session lakestream =
        testSessionBuilder().setCatalog(LAKESTREAM_CATALOG).setSchema(NAMESPACE).build();
    Session tpch = testSessionBuilder().setCatalog(TPCH_CATALOG).setSchema(TPCH_SCHEMA).build();
    long start = System.nanoTime();
    MaterializedResult actual = shared.trino().execute(lakestream, sql);
    long lakestreamNanos = System.nanoTime() - start;
    MaterializedResult expected = shared.trino().execute(tpch, sql);
    System.out.printf(
        "q%d: %d rows, %d ms through %s%n",
        query, actual.getRowCount(), lakestreamNanos / 1_000_000, LAKESTREAM_CATALOG);
    assertThat(expected.getRowCount()).as("rows of q%d from tpch", query).isPositive();
    assertThat(unbounded(actual.getTypes()))
        .as("types of q%d", query)
        .isEqualTo(unbounded(expected.getTypes()));
    assertThat(actual.getMaterializedRows())
        .as("q%d through %s:%n%s", query, LAKESTREAM_CATALOG, sql)
        .containsExactlyElementsOf(expected.getMaterializedRows());
  }

  /** Proves that the queries above read a log tail: nothing was tiered after the load. */
  @Test
  @Order(3)
  void logTailStayedInTheLog() {
    for (TpchStreamLoader.Loaded table : loaded) {
      assertThat(loader.tieredRows(NAMESPACE, table.table()))
          .as("rows of %s tiered (of %d written)", table.table(), table.rows())
          .isEqualTo(table.tiered())
          .isLessThan(table.rows());
    }
  }

  /** Types with {@code varchar(n)} as {@code varchar}: Iceberg strings have no length. */
  private static List<Type> unbounded(List<Type> types) {
    return types.stream().map(type -> type instanceof VarcharType ? VARCHAR : type).toList();
  }

  private long count(String table) {
    return (Long) shared.trino().execute("SELECT count(*) FROM " + table).getOnlyValue();
  }

  /**
   * Query {@code number} as {@code io.trino.tpch} ships it, without its comment line and with Q15's
   * view turned into a {@code WITH} clause (neither catalog has views here).
   */
  private static String query(int number) {
    String resource = "io/trino/tpch/queries/q" + number + ".sql";
    String text;
    try (InputStream in = TpchTable.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as("resource %s", resource).isNotNull();
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    text = text.replaceAll("(?m)^--.*$", "").strip();
    Matcher view = VIEW.matcher(text);
    if (view.matches()) {
      text = "WITH " + view.group(1) + " AS (" + view.group(2) + ")" + view.group(3);
    }
    return text.strip().replaceAll(";$", "");
  }
}
