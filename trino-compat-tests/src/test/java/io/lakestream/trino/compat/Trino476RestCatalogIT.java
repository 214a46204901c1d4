package io.lakestream.trino.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino 476's Iceberg connector ({@code iceberg.catalog.type=rest}), the newest Trino whose server
 * is on Maven Central, in an in-JVM query runner against a real Lakestream server process ({@link
 * SharedTrino476}): what a user of that release does first, in a schema made by a plain {@code
 * CREATE SCHEMA}.
 */
@ExtendWith(SharedTrino476.Resolver.class)
class Trino476RestCatalogIT {
  private static final Pattern LOCATION = Pattern.compile("location = '([^']+)'");

  private static QueryRunner trino;

  @BeforeAll
  static void start(SharedTrino476 shared) {
    trino = shared.trino();
  }

  /**
   * Proves that Trino 476 creates, fills and reads tables in a schema made without a location: the
   * server hands the schema a location, Trino 476 puts each new table in a fresh directory below it
   * (without one it made the table where the catalog would, found that directory non-empty and
   * failed with "Cannot create a table on a non-empty location"), and CREATE TABLE, INSERT, SELECT
   * and CREATE TABLE AS work.
   */
  @Test
  void createsInsertsAndSelectsInSchemaMadeWithoutLocation() {
    execute("CREATE SCHEMA lake.plain476");

    execute("CREATE TABLE lake.plain476.events (id BIGINT, name VARCHAR)");
    assertThat(execute("INSERT INTO lake.plain476.events VALUES (1, 'one'), (2, 'two')"))
        .as("rows inserted")
        .containsExactly(row(2L));
    assertThat(execute("SELECT id, name FROM lake.plain476.events ORDER BY id"))
        .containsExactly(row(1L, "one"), row(2L, "two"));

    assertThat(
            execute(
                "CREATE TABLE lake.plain476.copied AS "
                    + "SELECT id, upper(name) AS name FROM lake.plain476.events WHERE id > 1"))
        .as("rows written by CREATE TABLE AS")
        .containsExactly(row(1L));
    assertThat(execute("SELECT id, name FROM lake.plain476.copied"))
        .containsExactly(row(2L, "TWO"));

    assertThat(execute("SHOW TABLES FROM lake.plain476"))
        .containsExactlyInAnyOrder(row("events"), row("copied"));
    String schemaLocation = location("SHOW CREATE SCHEMA lake.plain476");
    assertThat(location("SHOW CREATE TABLE lake.plain476.events"))
        .startsWith(schemaLocation + "/events");
    assertThat(location("SHOW CREATE TABLE lake.plain476.copied"))
        .startsWith(schemaLocation + "/copied");
  }

  /**
   * Proves that Trino 476's {@code register_table} finds a table's latest metadata file by itself
   * (no {@code metadata_file_name}): Trino's local file system lists it as {@code local:///...},
   * which the server takes as the {@code file:} location it is; the table comes back with its rows
   * and its snapshot history.
   */
  @Test
  void registersUnregisteredTableFromItsLocation() {
    execute("CREATE SCHEMA lake.registered476");
    execute(
        "CREATE TABLE lake.registered476.points AS "
            + "SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS t (id, label)");
    execute("INSERT INTO lake.registered476.points VALUES (3, 'z')");
    String tableLocation = location("SHOW CREATE TABLE lake.registered476.points");
    List<List<Object>> snapshots =
        execute("SELECT snapshot_id FROM lake.registered476.\"points$snapshots\"");

    execute(
        "CALL lake.system.unregister_table(schema_name => 'registered476', table_name => 'points')");
    assertThat(execute("SHOW TABLES FROM lake.registered476")).isEmpty();

    execute(
        "CALL lake.system.register_table(schema_name => 'registered476', table_name => 'points', "
            + "table_location => '"
            + tableLocation
            + "')");
    assertThat(execute("SELECT id, label FROM lake.registered476.points ORDER BY id"))
        .containsExactly(row(1, "x"), row(2, "y"), row(3, "z"));
    assertThat(execute("SELECT snapshot_id FROM lake.registered476.\"points$snapshots\""))
        .containsExactlyInAnyOrderElementsOf(snapshots);
  }

  /** The {@code location} property in the text of a SHOW CREATE statement. */
  private static String location(String showCreate) {
    String text = (String) execute(showCreate).get(0).get(0);
    Matcher matcher = LOCATION.matcher(text);
    assertThat(matcher.find()).as("a location in " + text).isTrue();
    return matcher.group(1);
  }

  private static List<List<Object>> execute(String sql) {
    return trino.execute(sql).getMaterializedRows().stream()
        .map(MaterializedRow::getFields)
        .toList();
  }

  /** A row for comparison with {@link #execute}; unlike {@code List.of} it admits nulls. */
  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }
}
