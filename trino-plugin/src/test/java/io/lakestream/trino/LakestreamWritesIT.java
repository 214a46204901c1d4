package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Writes through the {@code lakestream} connector: {@code CREATE TABLE} with Lakestream's
 * properties, {@code INSERT} and {@code CREATE TABLE AS} into log and primary-key tables, {@code
 * DELETE}/{@code UPDATE}/{@code MERGE} by key, {@code DROP TABLE}. Every statement's rows are
 * expected in a {@code SELECT} right after it (through the log tail), and in the {@code lake}
 * catalog (Trino's Iceberg connector) once tiered. Expected rows come from each test's own model.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamWritesIT {
  private static final String SCHEMA = "writes";
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  private final SharedTrino shared;

  LakestreamWritesIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void createSchema() {
    shared.rows("CREATE SCHEMA IF NOT EXISTS lakestream." + SCHEMA);
  }

  private static String table(String name) {
    return "lakestream." + SCHEMA + "." + name;
  }

  /** Proves that CREATE TABLE passes the Lakestream properties on and SHOW CREATE shows them. */
  @Test
  void createTableWithPropertiesShowsThemInShowCreateTable() {
    shared.rows(
        "CREATE TABLE "
            + table("events_props")
            + " (id bigint, name varchar, amount decimal(12, 2), day date)"
            + " WITH (kind = 'log', buckets = 3, bucket_key = ARRAY['id'],"
            + " partitioning = ARRAY['day'], tiering_interval = '1s')");
    String ddl = (String) shared.rows("SHOW CREATE TABLE " + table("events_props")).get(0).get(0);
    assertThat(ddl)
        .contains("kind = 'log'")
        .contains("buckets = 3")
        .contains("bucket_key = ARRAY['id']")
        .contains("partitioning = ARRAY['day']")
        .contains("tiering_interval = '1s'");

    shared.rows(
        "CREATE TABLE "
            + table("users_props")
            + " (id bigint, name varchar)"
            + " WITH (kind = 'primary-key', primary_key = ARRAY['id'], buckets = 2,"
            + " merge_engine = 'first-row')");
    String keyed = (String) shared.rows("SHOW CREATE TABLE " + table("users_props")).get(0).get(0);
    assertThat(keyed)
        .contains("kind = 'primary-key'")
        .contains("buckets = 2")
        .contains("primary_key = ARRAY['id']")
        .contains("merge_engine = 'first-row'")
        .contains("id bigint NOT NULL");
  }

  /** Proves that inserted rows are read at once (log tail) and, once tiered, from the lake. */
  @Test
  void insertedRowsAreVisibleAtOnceAndAfterTiering() {
    shared.rows(
        "CREATE TABLE "
            + table("events_insert")
            + " (id bigint, name varchar, amount decimal(12, 2), day date)"
            + " WITH (buckets = 2, partitioning = ARRAY['day'], tiering_interval = '1s')");
    List<List<Object>> model = new ArrayList<>();
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      LocalDate day = LocalDate.of(2026, 1, 1 + i % 3);
      BigDecimal amount = BigDecimal.valueOf(i * 7 + 1, 2);
      model.add(List.of((long) i, "n" + i, amount, day));
      values
          .append(i == 0 ? "" : ", ")
          .append("(")
          .append(i)
          .append(", 'n")
          .append(i)
          .append("', DECIMAL '")
          .append(amount.toPlainString())
          .append("', DATE '")
          .append(day)
          .append("')");
    }
    assertThat(shared.rows("INSERT INTO " + table("events_insert") + " VALUES " + values))
        .isEqualTo(List.of(List.of(200L)));
    String select = "SELECT id, name, amount, day FROM %s ORDER BY id";
    assertThat(shared.rows(select.formatted(table("events_insert")))).isEqualTo(model);

    awaitLakeCount("events_insert", model.size());
    assertThat(shared.rows(select.formatted("lake." + SCHEMA + ".events_insert"))).isEqualTo(model);
    assertThat(shared.rows(select.formatted(table("events_insert")))).isEqualTo(model);
  }

  /** Proves CREATE TABLE AS SELECT into log and primary-key tables. */
  @Test
  void createTableAsSelect() {
    String source =
        " AS SELECT * FROM (VALUES (1, 'ASIA', 10.5e0), (2, 'EUROPE', 7.25e0),"
            + " (3, 'AFRICA', 1.0e0), (2, 'AMERICA', 2.0e0)) t(regionkey, name, weight)";
    assertThat(shared.rows("CREATE TABLE " + table("region_log") + " WITH (kind = 'log')" + source))
        .isEqualTo(List.of(List.of(4L)));
    assertThat(shared.rows("SELECT regionkey, name, weight FROM " + table("region_log")))
        .containsExactlyInAnyOrder(
            List.of(1, "ASIA", 10.5),
            List.of(2, "EUROPE", 7.25),
            List.of(3, "AFRICA", 1.0),
            List.of(2, "AMERICA", 2.0));

    // A primary-key table keeps the last row of each key.
    shared.rows(
        "CREATE TABLE "
            + table("region_pk")
            + " WITH (kind = 'primary-key', primary_key = ARRAY['regionkey'])"
            + source
            + " ORDER BY name");
    assertThat(shared.rows("SELECT regionkey, name FROM " + table("region_pk")))
        .hasSize(3)
        .contains(List.of(1, "ASIA"), List.of(3, "AFRICA"));
  }

  /** Proves that an INSERT of wrong types fails with a clear error and writes nothing. */
  @Test
  void insertWithWrongTypesFailsClearlyAndWritesNothing() {
    shared.rows("CREATE TABLE " + table("typed") + " (id bigint, name varchar)");
    shared.rows("INSERT INTO " + table("typed") + " VALUES (1, 'one')");
    assertThatThrownBy(() -> shared.rows("INSERT INTO " + table("typed") + " VALUES ('two', 2)"))
        .hasMessageContaining("mismatched column types");
    assertThatThrownBy(
            () -> shared.rows("INSERT INTO " + table("typed") + " (id) VALUES (DATE '2026-01-01')"))
        .hasMessageContaining("mismatched column types");
    assertThat(shared.rows("SELECT id, name FROM " + table("typed")))
        .isEqualTo(List.of(List.of(1L, "one")));

    shared.rows(
        "CREATE TABLE "
            + table("typed_pk")
            + " (id bigint, name varchar) WITH (kind = 'primary-key', primary_key = ARRAY['id'])");
    assertThatThrownBy(
            () -> shared.rows("INSERT INTO " + table("typed_pk") + " VALUES (NULL, 'x')"))
        .hasMessageContaining("NULL value not allowed for NOT NULL column: id");
    assertThat(shared.rows("SELECT count(*) FROM " + table("typed_pk")))
        .isEqualTo(List.of(List.of(0L)));
  }

  /** Proves that bad table definitions fail with errors that name the problem. */
  @Test
  void badTableDefinitionsFailClearly() {
    assertThatThrownBy(
            () -> shared.rows("CREATE TABLE " + table("bad1") + " (a bigint) WITH (kind = 'nope')"))
        .hasMessageContaining("Invalid kind 'nope'");
    assertThatThrownBy(
            () ->
                shared.rows(
                    "CREATE TABLE " + table("bad2") + " (a bigint) WITH (kind = 'primary-key')"))
        .hasMessageContaining("needs the primary_key property");
    assertThatThrownBy(
            () -> shared.rows("CREATE TABLE " + table("bad3") + " (a bigint) WITH (buckets = 0)"))
        .hasMessageContaining("Invalid buckets 0");
    assertThatThrownBy(
            () ->
                shared.rows(
                    "CREATE TABLE "
                        + table("bad4")
                        + " (a bigint) WITH (bucket_key = ARRAY['nope'])"))
        .hasMessageContaining("column 'nope' is not a column of the table");
    assertThatThrownBy(() -> shared.rows("CREATE TABLE " + table("bad5") + " (a array(integer))"))
        .hasMessageContaining("streaming tables cannot hold");
    assertThatThrownBy(
            () ->
                shared.rows(
                    "CREATE TABLE "
                        + table("bad6")
                        + " (a bigint, b varchar) WITH (kind = 'primary-key',"
                        + " primary_key = ARRAY['a'], merge_engine = 'nope')"))
        .hasMessageContaining("nope");
    for (String name : List.of("bad1", "bad2", "bad3", "bad4", "bad5", "bad6")) {
      assertThat(shared.rows("SHOW TABLES FROM lakestream." + SCHEMA + " LIKE '" + name + "'"))
          .isEmpty();
    }

    // A plain Iceberg table may have nested columns, and goes through the Iceberg connector.
    shared.rows(
        "CREATE TABLE " + table("plain") + " (a array(integer), b bigint) WITH (kind = 'iceberg')");
    shared.rows("INSERT INTO " + table("plain") + " VALUES (ARRAY[1, 2], 3)");
    assertThat((String) shared.rows("SHOW CREATE TABLE " + table("plain")).get(0).get(0))
        .contains("kind = 'iceberg'");
    assertThat(shared.rows("SELECT b, cardinality(a) FROM lake." + SCHEMA + ".plain"))
        .isEqualTo(List.of(List.of(3L, 2L)));
    assertThatThrownBy(
            () ->
                shared.rows(
                    "CREATE TABLE "
                        + table("plain2")
                        + " (b bigint) WITH (kind = 'iceberg', buckets = 2)"))
        .hasMessageContaining("only for streaming tables");
  }

  /**
   * Proves every flat type a primary-key table holds (the server refuses time and uuid there)
   * survives INSERT and reads back (tail, then lake), and that DELETE by a composite key of a date
   * and a string works.
   */
  @Test
  void everyFlatTypeRoundTripsAndCompositeKeysDelete() {
    String t = table("wide");
    shared.rows(
        "CREATE TABLE "
            + t
            + " (day date, code varchar, flag boolean, small integer, ratio real, score double,"
            + " amount decimal(30, 4), at timestamp(6), at_zone timestamp(6) with time zone,"
            + " bytes varbinary)"
            + " WITH (kind = 'primary-key', primary_key = ARRAY['day', 'code'],"
            + " tiering_interval = '1s')");
    shared.rows(
        "INSERT INTO "
            + t
            + " VALUES (DATE '2026-03-01', 'a', true, 7, REAL '1.5', 2.25,"
            + " DECIMAL '12345678901234567890.1234', TIMESTAMP '2026-03-01 10:11:12.123456',"
            + " TIMESTAMP '2026-03-01 10:11:12.654321 UTC', X'00ff10'),"
            + " (DATE '2026-03-02', 'b', false, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    List<List<Object>> expected =
        List.of(
            List.of(
                "2026-03-01",
                "a",
                "true",
                "7",
                "1.5E0",
                "2.25E0",
                "12345678901234567890.1234",
                "2026-03-01 10:11:12.123456",
                "2026-03-01 10:11:12.654321 UTC",
                "00ff10"),
            List.of("2026-03-02", "b", "false", "-", "-", "-", "-", "-", "-", "-"));
    String select =
        "SELECT CAST(day AS varchar), code, CAST(flag AS varchar),"
            + " coalesce(CAST(small AS varchar), '-'), coalesce(CAST(ratio AS varchar), '-'),"
            + " coalesce(CAST(score AS varchar), '-'), coalesce(CAST(amount AS varchar), '-'),"
            + " coalesce(CAST(at AS varchar), '-'), coalesce(CAST(at_zone AS varchar), '-'),"
            + " coalesce(lower(to_hex(bytes)), '-') FROM %s ORDER BY day";
    assertThat(shared.rows(select.formatted(t))).isEqualTo(expected);
    awaitLakeCount("wide", 2);
    assertThat(shared.rows(select.formatted("lake." + SCHEMA + ".wide"))).isEqualTo(expected);

    assertThat(shared.rows("DELETE FROM " + t + " WHERE day = DATE '2026-03-01' AND code = 'a'"))
        .isEqualTo(List.of(List.of(1L)));
    assertThat(shared.rows(select.formatted(t))).isEqualTo(expected.subList(1, 2));
  }

  /** Proves INSERT into a primary-key table upserts: the newest row of a key wins. */
  @Test
  void primaryKeyInsertUpserts() {
    shared.rows(
        "CREATE TABLE "
            + table("users_upsert")
            + " (id bigint, name varchar, visits integer)"
            + " WITH (kind = 'primary-key', primary_key = ARRAY['id'], buckets = 2)");
    shared.rows(
        "INSERT INTO " + table("users_upsert") + " VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 1)");
    shared.rows("INSERT INTO " + table("users_upsert") + " VALUES (2, 'bb', 2), (4, 'd', 1)");
    assertThat(
            shared.rows("SELECT id, name, visits FROM " + table("users_upsert") + " ORDER BY id"))
        .isEqualTo(
            List.of(
                List.of(1L, "a", 1),
                List.of(2L, "bb", 2),
                List.of(3L, "c", 1),
                List.of(4L, "d", 1)));
  }

  /**
   * Proves DELETE, UPDATE and MERGE by key on a primary-key table against a model: on rows still in
   * the log, and again once they are tiered (lake splits).
   */
  @Test
  void deleteUpdateMergeByKeyFollowTheModel() {
    String t = table("accounts");
    shared.rows(
        "CREATE TABLE "
            + t
            + " (id bigint, owner varchar, balance integer)"
            + " WITH (kind = 'primary-key', primary_key = ARRAY['id'], buckets = 3,"
            + " tiering_interval = '1s')");
    Map<Long, List<Object>> model = new TreeMap<>();
    StringBuilder values = new StringBuilder();
    for (long id = 1; id <= 60; id++) {
      model.put(id, List.of(id, "o" + id, (int) id * 10));
      values.append(id == 1 ? "" : ", ").append("(%d, 'o%d', %d)".formatted(id, id, id * 10));
    }
    shared.rows("INSERT INTO " + t + " VALUES " + values);
    assertModel(t, model);

    assertThat(shared.rows("DELETE FROM " + t + " WHERE id % 5 = 0"))
        .isEqualTo(List.of(List.of(12L)));
    model.keySet().removeIf(id -> id % 5 == 0);
    assertModel(t, model);

    assertThat(shared.rows("UPDATE " + t + " SET balance = balance + 1 WHERE id % 3 = 0"))
        .isEqualTo(List.of(List.of(16L)));
    model.replaceAll(
        (id, row) -> id % 3 == 0 ? List.of(id, row.get(1), (int) row.get(2) + 1) : row);
    assertModel(t, model);

    mergeAndModel(t, model, 7);
    assertModel(t, model);

    awaitLakeCount("accounts", model.size());
    assertThat(
            shared.rows("SELECT id, owner, balance FROM lake." + SCHEMA + ".accounts ORDER BY id"))
        .isEqualTo(List.copyOf(model.values()));

    // Now the rows are in the lake: the row keys come from lake splits.
    assertThat(shared.rows("DELETE FROM " + t + " WHERE id BETWEEN 10 AND 20"))
        .isEqualTo(
            List.of(
                List.of(
                    (long) model.keySet().stream().filter(id -> id >= 10 && id <= 20).count())));
    model.keySet().removeIf(id -> id >= 10 && id <= 20);
    assertModel(t, model);
    shared.rows("UPDATE " + t + " SET owner = 'x' || owner WHERE id < 5");
    model.replaceAll((id, row) -> id < 5 ? List.of(id, "x" + row.get(1), row.get(2)) : row);
    assertModel(t, model);
    mergeAndModel(t, model, 11);
    assertModel(t, model);
  }

  /**
   * MERGE with a source of existing and new keys: big balances delete, other matches update, new
   * keys insert; applies the same to the model.
   */
  private void mergeAndModel(String t, Map<Long, List<Object>> model, int step) {
    List<long[]> source = new ArrayList<>();
    for (long id = step; id <= 70; id += step) {
      source.add(new long[] {id, id % 2 == 0 ? 1000 : 5});
    }
    StringBuilder values = new StringBuilder();
    for (long[] row : source) {
      values
          .append(values.isEmpty() ? "" : ", ")
          .append("(%d, 'm%d', %d)".formatted(row[0], row[0], row[1]));
    }
    shared.rows(
        "MERGE INTO "
            + t
            + " t USING (VALUES "
            + values
            + ") s(id, owner, balance) ON t.id = s.id"
            + " WHEN MATCHED AND s.balance > 100 THEN DELETE"
            + " WHEN MATCHED THEN UPDATE SET owner = s.owner, balance = t.balance + s.balance"
            + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.owner, s.balance)");
    for (long[] row : source) {
      long id = row[0];
      int balance = (int) row[1];
      List<Object> current = model.get(id);
      if (current == null) {
        model.put(id, List.of(id, "m" + id, balance));
      } else if (balance > 100) {
        model.remove(id);
      } else {
        model.put(id, List.of(id, "m" + id, (int) current.get(2) + balance));
      }
    }
  }

  private void assertModel(String t, Map<Long, List<Object>> model) {
    assertThat(shared.rows("SELECT id, owner, balance FROM " + t + " ORDER BY id"))
        .isEqualTo(List.copyOf(model.values()));
  }

  /** Proves that row changes of a log table and updates of key columns are refused clearly. */
  @Test
  void rowChangesOfLogTablesAndKeyUpdatesAreRefused() {
    shared.rows("CREATE TABLE " + table("events_ro") + " (id bigint, name varchar)");
    shared.rows("INSERT INTO " + table("events_ro") + " VALUES (1, 'a'), (2, 'b')");
    assertThatThrownBy(() -> shared.rows("DELETE FROM " + table("events_ro") + " WHERE id = 1"))
        .hasMessageContaining("is a log table");
    assertThatThrownBy(
            () -> shared.rows("UPDATE " + table("events_ro") + " SET name = 'x' WHERE id = 1"))
        .hasMessageContaining("is a log table");
    assertThat(shared.rows("SELECT count(*) FROM " + table("events_ro")))
        .isEqualTo(List.of(List.of(2L)));

    shared.rows(
        "CREATE TABLE "
            + table("keyed_ro")
            + " (id bigint, name varchar) WITH (kind = 'primary-key', primary_key = ARRAY['id'])");
    shared.rows("INSERT INTO " + table("keyed_ro") + " VALUES (1, 'a')");
    assertThatThrownBy(() -> shared.rows("UPDATE " + table("keyed_ro") + " SET id = 2"))
        .hasMessageContaining("Cannot update primary-key column id");
    assertThat(shared.rows("SELECT id, name FROM " + table("keyed_ro")))
        .isEqualTo(List.of(List.of(1L, "a")));
  }

  /** Proves DROP TABLE drops the stream: a table re-created under the name starts empty. */
  @Test
  void dropTableDropsTheStream() {
    shared.rows("CREATE TABLE " + table("dropped") + " (id bigint)");
    shared.rows("INSERT INTO " + table("dropped") + " VALUES 1, 2, 3");
    shared.rows("DROP TABLE " + table("dropped"));
    TablePath path = TablePath.of(SCHEMA + ".dropped");
    try (Connection connection = Connection.open("127.0.0.1", shared.rpcPort(), null)) {
      assertThat(connection.admin().tableExists(path)).isFalse();
    }
    shared.rows("CREATE TABLE " + table("dropped") + " (id bigint)");
    assertThat(shared.rows("SELECT count(*) FROM " + table("dropped")))
        .isEqualTo(List.of(List.of(0L)));
    shared.rows("INSERT INTO " + table("dropped") + " VALUES 4");
    assertThat(shared.rows("SELECT id FROM " + table("dropped"))).isEqualTo(List.of(List.of(4L)));
  }

  /**
   * Waits until the lake (Iceberg) view of a table has {@code rows} rows: the writes are tiered.
   */
  private void awaitLakeCount(String name, long rows) {
    String sql = "SELECT count(*) FROM lake." + SCHEMA + "." + name;
    awaitValue(() -> (Long) shared.rows(sql).get(0).get(0), rows, sql);
  }

  private static <T> void awaitValue(Supplier<T> probe, T expected, String what) {
    long deadline = System.nanoTime() + TIERING_TIMEOUT.toNanos();
    T last = probe.get();
    while (!expected.equals(last)) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            what + " was " + last + " after " + TIERING_TIMEOUT + ", expected " + expected);
      }
      LockSupport.parkNanos(POLL_INTERVAL.toNanos());
      last = probe.get();
    }
  }
}
