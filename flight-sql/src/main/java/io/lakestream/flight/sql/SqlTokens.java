package io.lakestream.flight.sql;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;

/**
 * Reads the head of a SQL statement the endpoint interprets itself (the writes of {@code SqlWrite},
 * the bulk-ingest {@code InsertStatement}): keywords, names, literals; skips blanks and comments.
 * Errors are {@link InvalidQueryException}s that quote the statement.
 */
public final class SqlTokens {
  private final String text;
  private int position;

  public SqlTokens(String text) {
    this.text = requireNonNull(text, "text is null");
  }

  private void skipBlanks() {
    while (position < text.length()) {
      char c = text.charAt(position);
      if (Character.isWhitespace(c)) {
        position++;
      } else if (text.startsWith("--", position)) {
        int end = text.indexOf('\n', position);
        position = end < 0 ? text.length() : end + 1;
      } else if (text.startsWith("/*", position)) {
        int end = text.indexOf("*/", position + 2);
        position = end < 0 ? text.length() : end + 2;
      } else {
        return;
      }
    }
  }

  public boolean atEnd() {
    skipBlanks();
    if (position < text.length() && text.charAt(position) == ';') {
      position++;
      skipBlanks();
    }
    return position >= text.length();
  }

  /** The next bare word, upper-cased, or empty when the next token is not one. */
  public String peekKeyword() {
    int saved = position;
    String word = keyword();
    position = saved;
    return word;
  }

  public String keyword() {
    skipBlanks();
    int start = position;
    while (position < text.length()
        && (Character.isLetterOrDigit(text.charAt(position)) || text.charAt(position) == '_')) {
      position++;
    }
    return text.substring(start, position).toUpperCase(Locale.ROOT);
  }

  public void expect(String keyword, String message) {
    if (!keyword().equals(keyword)) {
      throw new InvalidQueryException(message);
    }
  }

  public String identifier(String sql) {
    skipBlanks();
    if (position < text.length() && text.charAt(position) == '"') {
      StringBuilder name = new StringBuilder();
      position++;
      while (position < text.length()) {
        char c = text.charAt(position++);
        if (c == '"') {
          if (position < text.length() && text.charAt(position) == '"') {
            name.append('"');
            position++;
          } else {
            return name.toString();
          }
        } else {
          name.append(c);
        }
      }
      throw new InvalidQueryException("Unterminated quoted name in " + sql);
    }
    int start = position;
    while (position < text.length()
        && (Character.isLetterOrDigit(text.charAt(position))
            || text.charAt(position) == '_'
            || text.charAt(position) == '$')) {
      position++;
    }
    if (start == position) {
      throw new InvalidQueryException("Expected a name at position " + (start + 1) + ": " + sql);
    }
    return text.substring(start, position);
  }

  /** {@code schema.table} or {@code catalog.schema.table}. */
  public TableReference tableName(String sql) {
    List<String> parts = new ArrayList<>();
    parts.add(identifier(sql));
    while (tryPunctuation('.')) {
      parts.add(identifier(sql));
    }
    return switch (parts.size()) {
      case 2 -> new TableReference("", parts.get(0), parts.get(1));
      case 3 -> new TableReference(parts.get(0), parts.get(1), parts.get(2));
      default ->
          throw new InvalidQueryException(
              "Name tables as namespace.table or warehouse.namespace.table: "
                  + String.join(".", parts));
    };
  }

  public boolean tryPunctuation(char c) {
    skipBlanks();
    if (position < text.length() && text.charAt(position) == c) {
      position++;
      return true;
    }
    return false;
  }

  public void symbol(char c, String sql) {
    if (!tryPunctuation(c)) {
      throw new InvalidQueryException("Expected '" + c + "' in " + sql);
    }
  }

  /** A string literal ({@code 'value'}) or a bare word such as {@code 4} or {@code log}. */
  public String literalOrName(String sql) {
    skipBlanks();
    if (position < text.length() && text.charAt(position) == '\'') {
      StringBuilder value = new StringBuilder();
      position++;
      while (position < text.length()) {
        char c = text.charAt(position++);
        if (c == '\'') {
          if (position < text.length() && text.charAt(position) == '\'') {
            value.append('\'');
            position++;
          } else {
            return value.toString();
          }
        } else {
          value.append(c);
        }
      }
      throw new InvalidQueryException("Unterminated string in " + sql);
    }
    int start = position;
    while (position < text.length()
        && (Character.isLetterOrDigit(text.charAt(position))
            || "._-".indexOf(text.charAt(position)) >= 0)) {
      position++;
    }
    if (start == position) {
      throw new InvalidQueryException("Expected a value at position " + (start + 1) + ": " + sql);
    }
    return text.substring(start, position);
  }

  public String rest() {
    skipBlanks();
    String rest = text.substring(position);
    position = text.length();
    return rest.endsWith(";") ? rest.substring(0, rest.length() - 1) : rest;
  }

  /**
   * The first index from {@code from} that lies outside quotes and parentheses and that {@code
   * stop} accepts, or -1.
   */
  public static int topLevel(String text, int from, IntPredicate stop) {
    return scan(
        text, from, (i, depth) -> depth == 0 && "()".indexOf(text.charAt(i)) < 0 && stop.test(i));
  }

  /** SQL text whose parameters are numbered, and how many it has. */
  public record Numbered(String text, int count) {}

  /**
   * {@code text} with each {@code ?} outside quotes written as a numbered parameter ({@code $n}),
   * counting from {@code first}: a statement rewritten into a query of another shape keeps the
   * order in which its parameters were bound.
   */
  public static Numbered numberParameters(String text, int first) {
    StringBuilder numbered = new StringBuilder(text.length());
    int next = first;
    int copied = 0;
    for (int at = scan(text, 0, (i, depth) -> text.charAt(i) == '?');
        at >= 0;
        at = scan(text, at + 1, (i, depth) -> text.charAt(i) == '?')) {
      numbered.append(text, copied, at).append('$').append(next++);
      copied = at + 1;
    }
    numbered.append(text, copied, text.length());
    return new Numbered(numbered.toString(), next - first);
  }

  /** The index of the parenthesis closing the one at {@code open}, or -1. */
  public static int matchingParenthesis(String text, int open) {
    return scan(text, open, (i, depth) -> depth == 0 && text.charAt(i) == ')');
  }

  /** Which character a {@link #scan} stops at, given the parenthesis depth after it. */
  @FunctionalInterface
  private interface Stop {
    boolean at(int index, int depth);
  }

  /**
   * The first index from {@code from} outside quotes that {@code stop} accepts, or -1; the depth is
   * counted from {@code from}, after the character at the index.
   */
  private static int scan(String text, int from, Stop stop) {
    int depth = 0;
    char quote = 0;
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        continue;
      }
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (stop.at(i, depth)) {
        return i;
      }
    }
    return -1;
  }
}
