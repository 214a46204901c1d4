package io.lakestream.flight.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Finds the tables a query reads with DuckDB's own parser ({@code json_serialize_sql}), so that
 * names inside joins, subqueries and common table expressions are all found and nothing that only
 * looks like a table name (a string literal, a column {@code t.c}) is.
 *
 * <p>Only schema-qualified names are Lakestream tables; unqualified names (a common table
 * expression, DuckDB's own tables) and DuckDB's system schemas and catalogs are left to DuckDB.
 */
public final class TableReferences {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog");
  private static final Set<String> SYSTEM_CATALOGS = Set.of("system", "temp", "memory");

  private TableReferences() {}

  /**
   * The Lakestream tables {@code sql} reads, in the order it names them, without duplicates.
   *
   * @param duckdb a DuckDB connection to parse with (nothing runs on it)
   * @throws InvalidQueryException when {@code sql} is not one query, with DuckDB's parser message
   */
  static Set<TableReference> of(Connection duckdb, String sql) {
    return parse(duckdb, sql).tables();
  }

  /**
   * What a query reads: its tables, and a superset of the column names it uses.
   *
   * @param tables the Lakestream tables, as {@link #of} finds them
   * @param columns every name the query uses as a column (each part of a qualified or struct
   *     reference, {@code USING} columns), lower case; a column whose name is not in it is not read
   *     by the query, unless {@link #allColumns()}
   * @param allColumns whether the query may read columns it does not name: {@code *} or {@code
   *     COLUMNS(...)}, positional references, natural joins, renamed columns ({@code t AS x(a,
   *     b)}), or a table or alias used as a value
   */
  public record Parsed(Set<TableReference> tables, Set<String> columns, boolean allColumns) {
    public Parsed {
      tables = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(tables));
      columns = Set.copyOf(columns);
    }

    /** Whether the query may read a column of this name. */
    public boolean reads(String column) {
      return allColumns || columns.contains(column.toLowerCase(Locale.ROOT));
    }
  }

  /**
   * Parses a query once for its tables and the columns it uses.
   *
   * @param duckdb a DuckDB connection to parse with (nothing runs on it)
   * @throws InvalidQueryException when {@code sql} is not one query, with DuckDB's parser message,
   *     or names a function or file a query may not ({@link QuerySandbox})
   */
  public static Parsed parse(Connection duckdb, String sql) {
    JsonNode tree;
    try (PreparedStatement statement = duckdb.prepareStatement("SELECT json_serialize_sql(?)")) {
      statement.setString(1, sql);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        tree = JSON.readTree(result.getString(1));
      }
    } catch (SQLException | java.io.IOException e) {
      throw new IllegalStateException("Cannot parse the query with DuckDB: " + e.getMessage(), e);
    }
    if (tree.path("error").asBoolean(false)) {
      String message = tree.path("error_message").asText("");
      if (message.contains("Only SELECT statements")) {
        throw new InvalidQueryException(
            "Only queries (SELECT, WITH, VALUES) are supported over Flight SQL so far: " + sql);
      }
      throw new InvalidQueryException("Invalid SQL: " + message);
    }
    JsonNode statements = tree.path("statements");
    if (statements.size() != 1) {
      throw new InvalidQueryException(
          "Expected one statement, got " + statements.size() + ": " + sql);
    }
    QuerySandbox.check(statements.get(0), sql);
    Set<TableReference> tables = new LinkedHashSet<>();
    collect(statements.get(0), tables);
    Set<String> columns = new java.util.HashSet<>();
    Set<String> bare = new java.util.HashSet<>();
    Set<String> relations = new java.util.HashSet<>();
    boolean all = collectColumns(statements.get(0), columns, bare, relations);
    for (String relation : relations) {
      all |= bare.contains(relation); // a table or alias as a value: its whole row
    }
    return new Parsed(tables, columns, all);
  }

  /**
   * Adds the column names {@code node} uses to {@code columns} (those used unqualified to {@code
   * bare} too) and the names its tables go by to {@code relations}; returns whether it may read
   * columns it does not name.
   */
  private static boolean collectColumns(
      JsonNode node, Set<String> columns, Set<String> bare, Set<String> relations) {
    boolean all = false;
    if (node.isObject()) {
      String kind = node.path("class").asText("");
      String type = node.path("type").asText("");
      if (kind.equals("STAR") || kind.equals("POSITIONAL_REFERENCE")) {
        all = true;
      }
      if (kind.equals("COLUMN_REF")) {
        JsonNode names = node.path("column_names");
        for (JsonNode name : names) {
          columns.add(name.asText().toLowerCase(Locale.ROOT));
        }
        if (names.size() == 1) {
          bare.add(names.get(0).asText().toLowerCase(Locale.ROOT));
        }
      }
      if (type.equals("JOIN")) {
        all |= node.path("ref_type").asText("").equals("NATURAL");
        for (JsonNode name : node.path("using_columns")) {
          columns.add(name.asText().toLowerCase(Locale.ROOT));
        }
      }
      if (type.equals("BASE_TABLE")) {
        all |= !node.path("column_name_alias").isEmpty();
        relations.add(node.path("table_name").asText("").toLowerCase(Locale.ROOT));
        relations.add(node.path("alias").asText("").toLowerCase(Locale.ROOT));
      }
      for (Iterator<JsonNode> children = node.elements(); children.hasNext(); ) {
        all |= collectColumns(children.next(), columns, bare, relations);
      }
    } else if (node.isArray()) {
      for (JsonNode child : node) {
        all |= collectColumns(child, columns, bare, relations);
      }
    }
    return all;
  }

  private static void collect(JsonNode node, Set<TableReference> tables) {
    if (node.isObject()) {
      if ("BASE_TABLE".equals(node.path("type").asText())) {
        String catalog = node.path("catalog_name").asText("");
        String schema = node.path("schema_name").asText("");
        String table = node.path("table_name").asText("");
        if (!schema.isEmpty()
            && !table.isEmpty()
            && !SYSTEM_SCHEMAS.contains(schema.toLowerCase(Locale.ROOT))
            && !SYSTEM_CATALOGS.contains(catalog.toLowerCase(Locale.ROOT))) {
          tables.add(new TableReference(catalog, schema, table));
        }
      }
      for (Iterator<JsonNode> children = node.elements(); children.hasNext(); ) {
        collect(children.next(), tables);
      }
    } else if (node.isArray()) {
      for (JsonNode child : node) {
        collect(child, tables);
      }
    }
  }
}
