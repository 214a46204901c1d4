package io.lakestream.flight.write;

import static java.util.Objects.requireNonNull;

import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.SqlTokens;
import io.lakestream.flight.sql.TableReference;
import java.util.ArrayList;
import java.util.List;

/**
 * The one kind of {@code INSERT} the endpoint prepares: {@code INSERT INTO name [(column, ...)]
 * VALUES (?, ...)}, whose parameter batches are ingested into a log table (ADBC's bulk ingest and a
 * JDBC {@code PreparedStatement} send this). Names are identifiers, bare or in double quotes
 * ({@code ""} escapes a quote); bare ones are taken as written.
 *
 * @param table the table, its catalog empty when the statement names none
 * @param columns the column list, or empty for every column of the table
 * @param parameters the number of {@code ?} placeholders
 */
record InsertStatement(TableReference table, List<String> columns, int parameters) {
  InsertStatement {
    requireNonNull(table, "table is null");
    columns = List.copyOf(columns);
  }

  /** Whether a statement starts with {@code INSERT} (and so is not a query). */
  static boolean isInsert(String sql) {
    String trimmed = requireNonNull(sql, "sql is null").stripLeading();
    return trimmed.regionMatches(true, 0, "INSERT", 0, 6)
        && (trimmed.length() == 6 || !Character.isLetterOrDigit(trimmed.charAt(6)));
  }

  /**
   * Parses an {@code INSERT} statement.
   *
   * @throws InvalidQueryException for any other shape, saying what is supported
   */
  static InsertStatement parse(String sql) {
    SqlTokens tokens = new SqlTokens(sql);
    try {
      tokens.expect("INSERT", "Expected INSERT: " + sql);
      tokens.expect("INTO", "Expected INSERT INTO: " + sql);
      TableReference table = tokens.tableName(sql);
      List<String> columns = new ArrayList<>();
      if (tokens.tryPunctuation('(')) {
        do {
          columns.add(tokens.identifier(sql));
        } while (tokens.tryPunctuation(','));
        tokens.symbol(')', sql);
      }
      tokens.expect("VALUES", "Expected VALUES with one ? per column: " + sql);
      tokens.symbol('(', sql);
      int parameters = 0;
      do {
        tokens.symbol('?', sql);
        parameters++;
      } while (tokens.tryPunctuation(','));
      tokens.symbol(')', sql);
      if (!tokens.atEnd()) {
        throw new InvalidQueryException("Unexpected text after VALUES (...): " + sql);
      }
      if (!columns.isEmpty() && columns.size() != parameters) {
        throw new InvalidQueryException(
            "The INSERT names " + columns.size() + " columns but has " + parameters + " values");
      }
      return new InsertStatement(table, columns, parameters);
    } catch (InvalidQueryException e) {
      throw new InvalidQueryException(
          "Unsupported INSERT: "
              + e.getMessage()
              + ". The endpoint writes INSERT INTO namespace.table [(column, ...)] VALUES (?, ...)"
              + " with the rows bound as parameters",
          e);
    }
  }
}
