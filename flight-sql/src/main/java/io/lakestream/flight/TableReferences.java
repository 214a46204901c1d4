package io.lakestream.flight;

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
final class TableReferences {
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
    Set<TableReference> tables = new LinkedHashSet<>();
    collect(statements.get(0), tables);
    return tables;
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
