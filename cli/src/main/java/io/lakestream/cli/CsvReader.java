package io.lakestream.cli;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads CSV records (RFC 4180: comma-separated, fields in double quotes may hold commas, quotes
 * written twice and line breaks). An unquoted empty field reads as null, a quoted one ({@code ""})
 * as the empty string. Knows the line each record starts on, for error messages. Not thread safe.
 */
final class CsvReader {
  private final Reader in;
  private int line = 1;
  private int recordLine;
  private int peeked = -2;

  CsvReader(Reader in) {
    this.in = in;
  }

  /** The line the record last returned starts on (1-based). */
  int recordLine() {
    return recordLine;
  }

  /**
   * The next record, or null at the end of the input; a blank line is skipped.
   *
   * @throws IllegalArgumentException for a quote that is not closed or text after a closing quote
   */
  List<String> next() throws IOException {
    while (true) {
      int c = read();
      if (c == -1) {
        return null;
      }
      if (c == '\n') {
        line++;
        continue;
      }
      if (c == '\r') {
        continue;
      }
      unread(c);
      recordLine = line;
      return record();
    }
  }

  private List<String> record() throws IOException {
    List<String> fields = new ArrayList<>();
    while (true) {
      int c = read();
      String field;
      if (c == '"') {
        field = quoted();
        c = read();
        while (c == ' ' || c == '\t') {
          c = read();
        }
        if (c != ',' && c != '\n' && c != '\r' && c != -1) {
          throw new IllegalArgumentException("text after a closing quote");
        }
      } else {
        StringBuilder text = new StringBuilder();
        while (c != ',' && c != '\n' && c != '\r' && c != -1) {
          if (c == '"') {
            throw new IllegalArgumentException("a quote inside an unquoted field");
          }
          text.append((char) c);
          c = read();
        }
        field = text.length() == 0 ? null : text.toString();
      }
      fields.add(field);
      if (c == ',') {
        continue;
      }
      if (c == '\r') {
        int next = read();
        if (next != '\n') {
          unread(next);
        }
      }
      if (c == '\n' || c == '\r') {
        line++;
      }
      return fields;
    }
  }

  private String quoted() throws IOException {
    StringBuilder text = new StringBuilder();
    int startLine = line;
    while (true) {
      int c = read();
      if (c == -1) {
        throw new IllegalArgumentException(
            "the quote opened on line " + startLine + " is not closed");
      }
      if (c == '"') {
        int next = read();
        if (next == '"') {
          text.append('"');
          continue;
        }
        unread(next);
        return text.toString();
      }
      if (c == '\n') {
        line++;
      }
      text.append((char) c);
    }
  }

  private int read() throws IOException {
    if (peeked != -2) {
      int c = peeked;
      peeked = -2;
      return c;
    }
    return in.read();
  }

  private void unread(int c) {
    peeked = c;
  }
}
