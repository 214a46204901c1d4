package io.lakestream.flight;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one kind of {@code INSERT} the endpoint prepares: {@code INSERT INTO name [(column, ...)]
 * VALUES (?, ...)}, whose parameter batches are ingested into a log table (ADBC's bulk ingest and a
 * JDBC {@code PreparedStatement} send this). Names are identifiers, bare or in double quotes
 * ({@code ""} escapes a quote); bare ones are taken as written.
 *
 * @param name the table name's parts: namespace and table, or warehouse, namespace and table
 * @param columns the column list, or empty for every column of the table
 * @param parameters the number of {@code ?} placeholders
 */
record InsertStatement(List<String> name, List<String> columns, int parameters) {
  InsertStatement {
    name = List.copyOf(name);
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
    Parser parser = new Parser(sql);
    try {
      parser.keyword("INSERT");
      parser.keyword("INTO");
      List<String> name = new ArrayList<>();
      name.add(parser.identifier());
      while (parser.accept('.')) {
        name.add(parser.identifier());
      }
      if (name.size() < 2 || name.size() > 3) {
        throw new InvalidQueryException(
            "Name the table of an INSERT as namespace.table or warehouse.namespace.table, not "
                + String.join(".", name));
      }
      List<String> columns = new ArrayList<>();
      if (parser.accept('(')) {
        do {
          columns.add(parser.identifier());
        } while (parser.accept(','));
        parser.expect(')');
      }
      parser.keyword("VALUES");
      parser.expect('(');
      int parameters = 0;
      do {
        parser.expect('?');
        parameters++;
      } while (parser.accept(','));
      parser.expect(')');
      parser.accept(';');
      parser.end();
      if (!columns.isEmpty() && columns.size() != parameters) {
        throw new InvalidQueryException(
            "The INSERT names " + columns.size() + " columns but has " + parameters + " values");
      }
      return new InsertStatement(name, columns, parameters);
    } catch (IllegalStateException e) {
      throw new InvalidQueryException(
          "Unsupported INSERT: "
              + e.getMessage()
              + ". The endpoint writes INSERT INTO namespace.table [(column, ...)] VALUES (?, ...)"
              + " with the rows bound as parameters",
          e);
    }
  }

  private static final class Parser {
    private final String sql;
    private int position;

    Parser(String sql) {
      this.sql = sql;
    }

    private void skipSpace() {
      while (position < sql.length() && Character.isWhitespace(sql.charAt(position))) {
        position++;
      }
    }

    void keyword(String word) {
      skipSpace();
      int end = position;
      while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
        end++;
      }
      if (!sql.substring(position, end).toUpperCase(Locale.ROOT).equals(word)) {
        throw new IllegalStateException("expected " + word + " at position " + position);
      }
      position = end;
    }

    boolean accept(char c) {
      skipSpace();
      if (position < sql.length() && sql.charAt(position) == c) {
        position++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!accept(c)) {
        throw new IllegalStateException("expected '" + c + "' at position " + position);
      }
    }

    String identifier() {
      skipSpace();
      if (position < sql.length() && sql.charAt(position) == '"') {
        StringBuilder name = new StringBuilder();
        position++;
        while (position < sql.length()) {
          char c = sql.charAt(position++);
          if (c == '"') {
            if (position < sql.length() && sql.charAt(position) == '"') {
              name.append('"');
              position++;
            } else {
              return name.toString();
            }
          } else {
            name.append(c);
          }
        }
        throw new IllegalStateException("unterminated quoted name");
      }
      int start = position;
      while (position < sql.length()
          && (Character.isLetterOrDigit(sql.charAt(position))
              || sql.charAt(position) == '_'
              || sql.charAt(position) == '$')) {
        position++;
      }
      if (start == position) {
        throw new IllegalStateException("expected a name at position " + start);
      }
      return sql.substring(start, position);
    }

    void end() {
      skipSpace();
      if (position != sql.length()) {
        throw new IllegalStateException("unexpected text at position " + position);
      }
    }
  }
}
