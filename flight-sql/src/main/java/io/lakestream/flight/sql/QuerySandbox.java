package io.lakestream.flight.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/**
 * What a Flight SQL query may name besides Lakestream tables. Tables are the only way to data: the
 * engine's own views read exactly the files of the snapshots a query reads, and nothing else. So a
 * query may call no table function that reads files, URLs or other databases ({@code read_parquet},
 * {@code glob}, {@code read_blob}, {@code query} ...), only those that compute rows from values
 * ({@link #TABLE_FUNCTIONS}); may call no function that runs SQL it builds ({@link
 * #REFUSED_FUNCTIONS}); and may not name a file as a table ({@code FROM 'data.parquet'}), which
 * DuckDB would read through a replacement scan. Statements other than queries ({@code COPY}, {@code
 * ATTACH}, {@code INSTALL}, {@code LOAD}, {@code PRAGMA}, {@code SET}) never get here: {@link
 * TableReferences} refuses them.
 *
 * <p>This is checked on DuckDB's own parse tree of the query, and is the first of two locks: each
 * query's database can also read only its own files ({@code SandboxedDatabases}), so that a gap in
 * this list is not a hole.
 */
public final class QuerySandbox {
  /** Table functions a query may call: they make rows from their arguments alone. */
  static final Set<String> TABLE_FUNCTIONS =
      Set.of("range", "generate_series", "unnest", "json_each", "json_tree");

  /** Functions a query may not call anywhere: they run SQL or read files or the environment. */
  static final Set<String> REFUSED_FUNCTIONS =
      Set.of(
          "query",
          "query_table",
          "json_execute_serialized_sql",
          "read_blob",
          "read_text",
          "getenv",
          "glob");

  private QuerySandbox() {}

  /**
   * @param statement DuckDB's parse tree of one statement ({@code json_serialize_sql})
   * @param sql the statement's text, for messages
   * @throws InvalidQueryException naming the first function or file name the query may not use
   */
  static void check(JsonNode statement, String sql) {
    if (statement.isObject()) {
      String type = statement.path("type").asText("");
      if (type.equals("TABLE_FUNCTION")) {
        String name = functionName(statement.path("function"));
        if (!TABLE_FUNCTIONS.contains(name)) {
          throw new InvalidQueryException(
              "Table function "
                  + name
                  + " is not allowed in Flight SQL queries: queries read Lakestream tables only,"
                  + " never files, URLs or other databases (allowed table functions: "
                  + String.join(", ", TABLE_FUNCTIONS.stream().sorted().toList())
                  + "): "
                  + sql);
        }
      }
      if (statement.path("class").asText("").equals("FUNCTION")) {
        String name = functionName(statement);
        if (REFUSED_FUNCTIONS.contains(name)) {
          throw new InvalidQueryException(
              "Function " + name + " is not allowed in Flight SQL queries: " + sql);
        }
      }
      if (type.equals("BASE_TABLE")
          && statement.path("schema_name").asText("").isEmpty()
          && looksLikeFile(statement.path("table_name").asText(""))) {
        throw new InvalidQueryException(
            "'"
                + statement.path("table_name").asText("")
                + "' names a file, which Flight SQL queries may not read; name tables as"
                + " namespace.table: "
                + sql);
      }
      for (Iterator<JsonNode> children = statement.elements(); children.hasNext(); ) {
        check(children.next(), sql);
      }
    } else if (statement.isArray()) {
      for (JsonNode child : statement) {
        check(child, sql);
      }
    }
  }

  private static String functionName(JsonNode function) {
    return function.path("function_name").asText("").toLowerCase(Locale.ROOT);
  }

  /**
   * Whether an unqualified table name is one DuckDB may read as a file: it has an extension, a
   * path, a URL scheme or a glob pattern.
   */
  private static boolean looksLikeFile(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (".:/\\*?~".indexOf(name.charAt(i)) >= 0) {
        return true;
      }
    }
    return false;
  }
}
