package io.lakestream.testing;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What every tested Trino release's Iceberg connector ({@code iceberg.catalog.type=rest}) does with
 * Lakestream as its catalog, whatever its version: tables in a schema made by a plain {@code CREATE
 * SCHEMA}, and {@code register_table} from a table's location. The statements are the same for
 * every release; one subclass per release (trino-plugin for 483, trino-compat-tests for 476, each
 * pinned to its own Trino) runs them on its query runner and names its schemas after its version.
 */
public abstract class TrinoCatalogContract {
  private static final Pattern LOCATION = Pattern.compile("location = '([^']+)'");

  private final String version;

  /**
   * @param version the Trino release, which suffixes the names of the schemas the tests make
   */
  protected TrinoCatalogContract(String version) {
    this.version = requireNonNull(version, "version is null");
  }

  /**
   * The properties of a Trino Iceberg catalog on the server at {@code restUri}: REST catalog type,
   * {@code register_table} enabled, and Trino's local file system (enabled by {@code
   * localFileSystemFlag}, whose name changed between releases) rooted at {@code /}, which serves
   * the {@code file:} scheme of the server's warehouse too.
   */
  public static Map<String, String> icebergCatalogProperties(
      String restUri, String localFileSystemFlag) {
    return Map.of(
        "iceberg.catalog.type",
        "rest",
        "iceberg.rest-catalog.uri",
        restUri,
        "iceberg.register-table-procedure.enabled",
        "true",
        localFileSystemFlag,
        "true",
        "local.location",
        "/");
  }

  /** Runs a statement in the release's query runner and returns its rows, values as Trino's. */
  protected abstract List<List<Object>> query(String sql);

  /**
   * Proves that Trino creates, fills and reads tables in a schema made without a location: the
   * server hands the schema a location (as Polaris and Lakekeeper do), Trino puts each new table in
   * a fresh directory below it (without one, Trino 476 made the table where the catalog would,
   * found that directory non-empty and failed with "Cannot create a table on a non-empty
   * location"), and CREATE TABLE, INSERT, SELECT and CREATE TABLE AS work.
   */
  @Test
  void createsInsertsAndSelectsInSchemaMadeWithoutLocation() {
    String schema = "lake.plain" + version;
    query("CREATE SCHEMA " + schema);

    query("CREATE TABLE " + schema + ".events (id BIGINT, name VARCHAR)");
    assertThat(query("INSERT INTO " + schema + ".events VALUES (1, 'one'), (2, 'two')"))
        .as("rows inserted")
        .containsExactly(row(2L));
    assertThat(query("SELECT id, name FROM " + schema + ".events ORDER BY id"))
        .containsExactly(row(1L, "one"), row(2L, "two"));

    assertThat(
            query(
                "CREATE TABLE "
                    + schema
                    + ".copied AS "
                    + "SELECT id, upper(name) AS name FROM "
                    + schema
                    + ".events WHERE id > 1"))
        .as("rows written by CREATE TABLE AS")
        .containsExactly(row(1L));
    assertThat(query("SELECT id, name FROM " + schema + ".copied")).containsExactly(row(2L, "TWO"));

    assertThat(query("SHOW TABLES FROM " + schema))
        .containsExactlyInAnyOrder(row("events"), row("copied"));
    String schemaLocation = location("SHOW CREATE SCHEMA " + schema);
    assertThat(location("SHOW CREATE TABLE " + schema + ".events"))
        .startsWith(schemaLocation + "/events");
    assertThat(location("SHOW CREATE TABLE " + schema + ".copied"))
        .startsWith(schemaLocation + "/copied");
  }

  /**
   * Proves that Trino's {@code register_table} finds a table's latest metadata file by itself (no
   * {@code metadata_file_name}): Trino's local file system lists it as {@code local:///...}, which
   * the server takes as the {@code file:} location it is; the table comes back with its rows and
   * its snapshot history.
   */
  @Test
  void registersUnregisteredTableFromItsLocation() {
    String name = "registered" + version;
    String schema = "lake." + name;
    query("CREATE SCHEMA " + schema);
    query(
        "CREATE TABLE "
            + schema
            + ".points AS "
            + "SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS t (id, label)");
    query("INSERT INTO " + schema + ".points VALUES (3, 'z')");
    String tableLocation = location("SHOW CREATE TABLE " + schema + ".points");
    List<List<Object>> snapshots =
        query("SELECT snapshot_id FROM " + schema + ".\"points$snapshots\"");

    query(
        "CALL lake.system.unregister_table(schema_name => '" + name + "', table_name => 'points')");
    assertThat(query("SHOW TABLES FROM " + schema)).isEmpty();

    query(
        "CALL lake.system.register_table(schema_name => '"
            + name
            + "', table_name => 'points', "
            + "table_location => '"
            + tableLocation
            + "')");
    assertThat(query("SELECT id, label FROM " + schema + ".points ORDER BY id"))
        .containsExactly(row(1, "x"), row(2, "y"), row(3, "z"));
    assertThat(query("SELECT snapshot_id FROM " + schema + ".\"points$snapshots\""))
        .containsExactlyInAnyOrderElementsOf(snapshots);
  }

  /** The {@code location} property in the text of a SHOW CREATE statement. */
  private String location(String showCreate) {
    String text = (String) query(showCreate).get(0).get(0);
    Matcher matcher = LOCATION.matcher(text);
    assertThat(matcher.find()).as("a location in " + text).isTrue();
    return matcher.group(1);
  }

  /** A row for comparison with {@link #query}; unlike {@code List.of} it admits nulls. */
  protected static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }
}
