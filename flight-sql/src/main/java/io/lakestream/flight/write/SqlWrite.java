package io.lakestream.flight.write;

import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.SqlTokens;
import io.lakestream.flight.sql.TableReference;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A SQL statement that changes tables, as the Flight SQL endpoint runs it: {@code CREATE TABLE},
 * {@code DROP TABLE}, {@code INSERT} and {@code DELETE}. {@link #parse} says whether a statement is
 * one and takes it apart; everything else is a query.
 *
 * <p>Only the statement's head (keywords and the table name) is read here. What follows is SQL that
 * DuckDB parses: the column definitions of {@code CREATE TABLE} (turned into an Iceberg schema by
 * creating the table in a scratch DuckDB database and reading its columns back), the query or
 * {@code VALUES} of {@code INSERT}, the condition of {@code DELETE}.
 */
public sealed interface SqlWrite {
  /** The table the statement changes. */
  TableReference table();

  /**
   * {@code CREATE TABLE [IF NOT EXISTS] name (columns) [PARTITIONED BY (term, ...)] [WITH
   * ('property' = 'value', ...)]}, where a partition term is a column (identity) or {@code
   * year|month|day|hour(column)}.
   *
   * @param schema the columns as an Iceberg schema; a {@code PRIMARY KEY} becomes its identifier
   *     fields
   * @param spec the partition spec over {@code schema}; unpartitioned without {@code PARTITIONED
   *     BY}
   * @param properties the {@code WITH} properties, as given
   */
  record CreateTable(
      TableReference table,
      boolean ifNotExists,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> properties)
      implements SqlWrite {}

  /** {@code DROP TABLE [IF EXISTS] name}. */
  record DropTable(TableReference table, boolean ifExists) implements SqlWrite {}

  /**
   * {@code INSERT INTO name [(columns)] source}.
   *
   * @param columns the column list as written, with its parentheses, or empty
   * @param source the rows: a query or {@code VALUES}
   */
  record Insert(TableReference table, String columns, String source) implements SqlWrite {}

  /**
   * {@code DELETE FROM name [[AS] alias] [WHERE condition]}.
   *
   * @param alias the alias, or empty
   * @param where the condition, or empty for every row
   */
  record Delete(TableReference table, String alias, String where) implements SqlWrite {}

  /**
   * {@code UPDATE name [[AS] alias] SET column = value [, ...] [WHERE condition]}.
   *
   * @param alias the alias, or empty
   * @param assignments each column named after {@code SET} (as written) to its value expression
   * @param where the condition, or empty for every row
   */
  record Update(TableReference table, String alias, Map<String, String> assignments, String where)
      implements SqlWrite {}

  /**
   * The statement as a write, or empty when it is not one (a query).
   *
   * @param duckdb a DuckDB connection for parsing column definitions (a scratch schema is created
   *     and dropped on it)
   * @throws InvalidQueryException when it is a write this endpoint cannot run, saying why
   */
  static Optional<SqlWrite> parse(Connection duckdb, String sql) {
    SqlTokens tokens = new SqlTokens(sql);
    String first = tokens.keyword();
    return switch (first) {
      case "CREATE" -> Optional.of(createTable(duckdb, tokens, sql));
      case "DROP" -> Optional.of(dropTable(tokens, sql));
      case "INSERT" -> Optional.of(insert(tokens, sql));
      case "DELETE" -> Optional.of(delete(tokens, sql));
      case "UPDATE" -> Optional.of(update(tokens, sql));
      case "MERGE", "ALTER", "TRUNCATE", "COPY" ->
          throw new InvalidQueryException(
              first
                  + " is not supported over Flight SQL; supported writes are CREATE TABLE, DROP"
                  + " TABLE, INSERT, and UPDATE and DELETE (primary-key tables)");
      default -> Optional.empty();
    };
  }

  private static SqlWrite createTable(Connection duckdb, SqlTokens tokens, String sql) {
    tokens.expect("TABLE", "Only CREATE TABLE is supported over Flight SQL: " + sql);
    boolean ifNotExists = false;
    if (tokens.peekKeyword().equals("IF")) {
      tokens.keyword();
      tokens.expect("NOT", "Expected IF NOT EXISTS: " + sql);
      tokens.expect("EXISTS", "Expected IF NOT EXISTS: " + sql);
      ifNotExists = true;
    }
    TableReference table = tokens.tableName(sql);
    String rest = tokens.rest().trim();
    if (rest.toUpperCase(Locale.ROOT).startsWith("AS")) {
      throw new InvalidQueryException(
          "CREATE TABLE ... AS is not supported over Flight SQL; create the table, then INSERT INTO"
              + " it ... SELECT");
    }
    if (!rest.startsWith("(")) {
      throw new InvalidQueryException("Expected the column definitions of " + table + ": " + sql);
    }
    int close = SqlTokens.matchingParenthesis(rest, 0);
    if (close < 0) {
      throw new InvalidQueryException("Unbalanced parentheses in " + sql);
    }
    String columns = rest.substring(0, close + 1);
    Schema schema = schema(duckdb, columns);
    SqlTokens tail = new SqlTokens(rest.substring(close + 1));
    PartitionSpec spec = PartitionSpec.unpartitioned();
    if (tail.peekKeyword().equals("PARTITIONED")) {
      tail.keyword();
      tail.expect("BY", "Expected PARTITIONED BY (...): " + sql);
      spec = partitioning(tail, schema, sql);
    }
    return new CreateTable(table, ifNotExists, schema, spec, properties(tail, sql));
  }

  /**
   * The terms of {@code PARTITIONED BY (...)}: columns (identity) or {@code year}, {@code month},
   * {@code day} or {@code hour} of a column, as Iceberg partitions tables; the catalog then checks
   * that a streaming table can be partitioned so.
   */
  private static PartitionSpec partitioning(SqlTokens tokens, Schema schema, String sql) {
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    tokens.symbol('(', sql);
    do {
      String name = tokens.identifier(sql);
      try {
        if (tokens.tryPunctuation('(')) {
          String column = tokens.identifier(sql);
          tokens.symbol(')', sql);
          switch (name.toLowerCase(Locale.ROOT)) {
            case "year" -> spec.year(column);
            case "month" -> spec.month(column);
            case "day" -> spec.day(column);
            case "hour" -> spec.hour(column);
            default ->
                throw new InvalidQueryException(
                    "Unsupported partition transform "
                        + name
                        + "; use a column, year(c), month(c), day(c) or hour(c): "
                        + sql);
          }
        } else {
          spec.identity(name);
        }
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw new InvalidQueryException("Invalid PARTITIONED BY: " + e.getMessage(), e);
      }
    } while (tokens.tryPunctuation(','));
    tokens.symbol(')', sql);
    try {
      return spec.build();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw new InvalidQueryException("Invalid PARTITIONED BY: " + e.getMessage(), e);
    }
  }

  /** The optional {@code WITH ('key' = 'value', ...)} that ends a {@code CREATE TABLE}. */
  private static Map<String, String> properties(SqlTokens tokens, String sql) {
    Map<String, String> properties = new LinkedHashMap<>();
    if (tokens.atEnd()) {
      return properties;
    }
    tokens.expect("WITH", "Unexpected text after the column definitions: " + sql);
    tokens.symbol('(', sql);
    while (true) {
      String key = tokens.literalOrName(sql);
      tokens.symbol('=', sql);
      String value = tokens.literalOrName(sql);
      if (properties.put(key, value) != null) {
        throw new InvalidQueryException("Property '" + key + "' is given twice: " + sql);
      }
      if (tokens.tryPunctuation(',')) {
        continue;
      }
      tokens.symbol(')', sql);
      break;
    }
    if (!tokens.atEnd()) {
      throw new InvalidQueryException("Unexpected text after WITH (...): " + sql);
    }
    return properties;
  }

  /** The columns of a {@code CREATE TABLE} body, by creating it in a scratch DuckDB schema. */
  private static Schema schema(Connection duckdb, String columns) {
    String scratch = "lakestream_ddl_" + Long.toUnsignedString(System.nanoTime());
    try {
      try (Statement statement = duckdb.createStatement()) {
        statement.execute("CREATE SCHEMA " + scratch);
      }
      try {
        try (Statement statement = duckdb.createStatement()) {
          statement.execute("CREATE TABLE " + scratch + ".t " + columns);
        } catch (SQLException e) {
          throw new InvalidQueryException("Invalid column definitions: " + e.getMessage(), e);
        }
        List<Types.NestedField> fields = new ArrayList<>();
        Set<String> key = primaryKey(duckdb, scratch);
        try (PreparedStatement columnsQuery =
            duckdb.prepareStatement(
                "SELECT column_name, data_type, is_nullable, numeric_precision, numeric_scale"
                    + " FROM duckdb_columns() WHERE schema_name = ? AND table_name = 't'"
                    + " ORDER BY column_index")) {
          columnsQuery.setString(1, scratch);
          try (ResultSet result = columnsQuery.executeQuery()) {
            int id = 1;
            while (result.next()) {
              String name = result.getString(1);
              Type type =
                  icebergType(name, result.getString(2), result.getInt(4), result.getInt(5));
              boolean required = !result.getBoolean(3) || key.contains(name);
              fields.add(
                  required
                      ? Types.NestedField.required(id++, name, type)
                      : Types.NestedField.optional(id++, name, type));
            }
          }
        }
        Set<Integer> identifiers = new java.util.HashSet<>();
        for (Types.NestedField field : fields) {
          if (key.contains(field.name())) {
            identifiers.add(field.fieldId());
          }
        }
        return new Schema(fields, identifiers);
      } finally {
        try (Statement statement = duckdb.createStatement()) {
          statement.execute("DROP SCHEMA " + scratch + " CASCADE");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read column definitions: " + e.getMessage(), e);
    }
  }

  private static Set<String> primaryKey(Connection duckdb, String scratch) throws SQLException {
    try (PreparedStatement query =
        duckdb.prepareStatement(
            "SELECT unnest(constraint_column_names) FROM duckdb_constraints()"
                + " WHERE schema_name = ? AND table_name = 't' AND constraint_type = 'PRIMARY KEY'")) {
      query.setString(1, scratch);
      Set<String> key = new java.util.LinkedHashSet<>();
      try (ResultSet result = query.executeQuery()) {
        while (result.next()) {
          key.add(result.getString(1));
        }
      }
      return key;
    }
  }

  /** The Iceberg type of a DuckDB column type. */
  static Type icebergType(String column, String duckdbType, int precision, int scale) {
    String type = duckdbType.toUpperCase(Locale.ROOT);
    if (type.startsWith("DECIMAL")) {
      return Types.DecimalType.of(precision, scale);
    }
    return switch (type) {
      case "BOOLEAN" -> Types.BooleanType.get();
      case "TINYINT", "SMALLINT", "INTEGER", "UTINYINT", "USMALLINT" -> Types.IntegerType.get();
      case "BIGINT", "UINTEGER" -> Types.LongType.get();
      case "FLOAT" -> Types.FloatType.get();
      case "DOUBLE" -> Types.DoubleType.get();
      case "VARCHAR" -> Types.StringType.get();
      case "BLOB" -> Types.BinaryType.get();
      case "DATE" -> Types.DateType.get();
      case "TIME" -> Types.TimeType.get();
      case "TIMESTAMP" -> Types.TimestampType.withoutZone();
      case "TIMESTAMP WITH TIME ZONE" -> Types.TimestampType.withZone();
      case "UUID" -> Types.UUIDType.get();
      default ->
          throw new InvalidQueryException(
              "Column "
                  + column
                  + " has type "
                  + duckdbType
                  + ", which Lakestream tables cannot hold; use BOOLEAN, INTEGER, BIGINT, FLOAT,"
                  + " DOUBLE, DECIMAL(p, s), VARCHAR, BLOB, DATE, TIME, TIMESTAMP, TIMESTAMPTZ or"
                  + " UUID");
    };
  }

  private static SqlWrite dropTable(SqlTokens tokens, String sql) {
    tokens.expect("TABLE", "Only DROP TABLE is supported over Flight SQL: " + sql);
    boolean ifExists = false;
    if (tokens.peekKeyword().equals("IF")) {
      tokens.keyword();
      tokens.expect("EXISTS", "Expected IF EXISTS: " + sql);
      ifExists = true;
    }
    TableReference table = tokens.tableName(sql);
    if (!tokens.atEnd()) {
      throw new InvalidQueryException("Unexpected text after the table name: " + sql);
    }
    return new DropTable(table, ifExists);
  }

  private static SqlWrite insert(SqlTokens tokens, String sql) {
    tokens.expect("INTO", "Expected INSERT INTO: " + sql);
    TableReference table = tokens.tableName(sql);
    String rest = tokens.rest().trim();
    String columns = "";
    if (rest.startsWith("(")) {
      int close = SqlTokens.matchingParenthesis(rest, 0);
      if (close < 0) {
        throw new InvalidQueryException("Unbalanced parentheses in " + sql);
      }
      String inside = rest.substring(1, close).trim().toUpperCase(Locale.ROOT);
      // "(SELECT ...)" is a parenthesised source, not a column list.
      if (!inside.startsWith("SELECT") && !inside.startsWith("WITH")) {
        columns = rest.substring(0, close + 1);
        rest = rest.substring(close + 1).trim();
      }
    }
    String head = new SqlTokens(rest).peekKeyword();
    if (!Set.of("SELECT", "VALUES", "WITH", "FROM", "TABLE").contains(head)
        && !rest.startsWith("(")) {
      throw new InvalidQueryException(
          "Expected the rows to insert (VALUES or a query) after " + table + ": " + sql);
    }
    return new Insert(table, columns, rest);
  }

  private static SqlWrite delete(SqlTokens tokens, String sql) {
    tokens.expect("FROM", "Expected DELETE FROM: " + sql);
    TableReference table = tokens.tableName(sql);
    String alias = alias(tokens, "WHERE", sql);
    String where = "";
    if (tokens.peekKeyword().equals("WHERE")) {
      tokens.keyword();
      where = tokens.rest().trim();
      if (where.isEmpty()) {
        throw new InvalidQueryException("WHERE without a condition: " + sql);
      }
    } else if (!tokens.atEnd()) {
      throw new InvalidQueryException("Unexpected text after the table name: " + sql);
    }
    return new Delete(table, alias, where);
  }

  /** The optional {@code [AS] alias} after a table name, before {@code following}; or empty. */
  private static String alias(SqlTokens tokens, String following, String sql) {
    String next = tokens.peekKeyword();
    if (next.equals("AS")) {
      tokens.keyword();
      return tokens.identifier(sql);
    }
    return next.isEmpty() || next.equals(following) ? "" : tokens.identifier(sql);
  }

  private static SqlWrite update(SqlTokens tokens, String sql) {
    TableReference table = tokens.tableName(sql);
    String alias = alias(tokens, "SET", sql);
    tokens.expect("SET", "Expected UPDATE table SET column = value, ...: " + sql);
    String rest = tokens.rest();
    int whereAt = topLevelWord(rest, "WHERE");
    String where = whereAt < 0 ? "" : rest.substring(whereAt + "WHERE".length()).trim();
    if (whereAt >= 0 && where.isEmpty()) {
      throw new InvalidQueryException("WHERE without a condition: " + sql);
    }
    Map<String, String> assignments = new LinkedHashMap<>();
    for (String assignment : splitTopLevel(whereAt < 0 ? rest : rest.substring(0, whereAt))) {
      SqlTokens parts = new SqlTokens(assignment);
      String column = parts.identifier(sql);
      parts.symbol('=', sql);
      String value = parts.rest().trim();
      if (value.isEmpty()) {
        throw new InvalidQueryException("No value for column " + column + ": " + sql);
      }
      if (assignments.put(column.toLowerCase(Locale.ROOT), value) != null) {
        throw new InvalidQueryException("Column " + column + " is set twice: " + sql);
      }
    }
    return new Update(table, alias, assignments, where);
  }

  /**
   * Where {@code word} stands as a whole word in {@code text} outside quotes and parentheses
   * (case-insensitive), or -1.
   */
  static int topLevelWord(String text, String word) {
    return SqlTokens.topLevel(
        text,
        0,
        i ->
            text.regionMatches(true, i, word, 0, word.length())
                && (i == 0 || !isWordCharacter(text.charAt(i - 1)))
                && (i + word.length() == text.length()
                    || !isWordCharacter(text.charAt(i + word.length()))));
  }

  /** The pieces of {@code text} between commas outside quotes and parentheses, trimmed. */
  static List<String> splitTopLevel(String text) {
    List<String> pieces = new ArrayList<>();
    int start = 0;
    for (int comma = SqlTokens.topLevel(text, 0, i -> text.charAt(i) == ',');
        comma >= 0;
        comma = SqlTokens.topLevel(text, comma + 1, i -> text.charAt(i) == ',')) {
      pieces.add(text.substring(start, comma).trim());
      start = comma + 1;
    }
    pieces.add(text.substring(start).trim());
    return pieces;
  }

  private static boolean isWordCharacter(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
