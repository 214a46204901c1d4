package io.lakestream.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints rows of text values in one of the output formats: {@code table} (columns aligned, NULL for
 * null; rows are buffered up to {@link #flush()}, which a streaming reader calls after each poll),
 * {@code csv} (a header row, RFC 4180 quoting, empty for null) or {@code jsonl} (one JSON object
 * per row; numbers and booleans unquoted). Not thread safe.
 */
final class RowPrinter {
  /** The output formats. */
  enum Format {
    TABLE,
    CSV,
    JSONL;

    static Format parse(String text) {
      try {
        return valueOf(text.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new UsageError("Unknown --format '" + text + "': expected table, csv or jsonl");
      }
    }
  }

  /** An output column: its name and whether its values are JSON numbers or booleans. */
  record Column(String name, boolean jsonLiteral) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintWriter out;
  private final Format format;
  private final List<Column> columns;
  private final List<String[]> pending = new ArrayList<>();
  private int[] widths;
  private boolean headerPrinted;

  RowPrinter(PrintWriter out, Format format, List<Column> columns) {
    this.out = out;
    this.format = format;
    this.columns = List.copyOf(columns);
  }

  void add(String[] row) {
    switch (format) {
      case TABLE -> pending.add(row);
      case CSV -> {
        printCsvHeader();
        out.println(csvLine(row));
      }
      case JSONL -> out.println(jsonLine(row));
    }
  }

  /** Prints the buffered rows of the table format (with the header, the first time). */
  void flush() {
    if (format == Format.CSV) {
      printCsvHeader();
    }
    if (format == Format.TABLE && (!pending.isEmpty() || !headerPrinted)) {
      if (widths == null) {
        widths = new int[columns.size()];
        for (int i = 0; i < widths.length; i++) {
          widths[i] = columns.get(i).name().length();
        }
        for (String[] row : pending) {
          for (int i = 0; i < widths.length; i++) {
            widths[i] = Math.max(widths[i], cell(row[i]).length());
          }
        }
      }
      if (!headerPrinted) {
        String[] names = columns.stream().map(Column::name).toArray(String[]::new);
        out.println(tableLine(names, false));
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
          rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
        }
        out.println(rule);
        headerPrinted = true;
      }
      for (String[] row : pending) {
        out.println(tableLine(row, true));
      }
      pending.clear();
    }
    out.flush();
  }

  private void printCsvHeader() {
    if (!headerPrinted) {
      out.println(csvLine(columns.stream().map(Column::name).toArray(String[]::new)));
      headerPrinted = true;
    }
  }

  private String tableLine(String[] row, boolean values) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      String text = values ? cell(row[i]) : row[i];
      if (i > 0) {
        line.append(" | ");
      }
      boolean right = values && columns.get(i).jsonLiteral() && row[i] != null;
      String padding = " ".repeat(Math.max(0, widths[i] - text.length()));
      line.append(right ? padding + text : text + (i == widths.length - 1 ? "" : padding));
    }
    return line.toString();
  }

  private static String cell(String value) {
    return value == null ? "NULL" : value;
  }

  static String csvLine(String[] row) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < row.length; i++) {
      if (i > 0) {
        line.append(',');
      }
      String value = row[i];
      if (value == null) {
        continue;
      }
      if (value.isEmpty()
          || value.contains(",")
          || value.contains("\"")
          || value.contains("\n")
          || value.contains("\r")) {
        line.append('"').append(value.replace("\"", "\"\"")).append('"');
      } else {
        line.append(value);
      }
    }
    return line.toString();
  }

  private String jsonLine(String[] row) {
    ObjectNode object = JSON.createObjectNode();
    for (int i = 0; i < columns.size(); i++) {
      Column column = columns.get(i);
      String value = row[i];
      if (value == null) {
        object.putNull(column.name());
      } else if (column.jsonLiteral() && (value.equals("true") || value.equals("false"))) {
        object.put(column.name(), Boolean.parseBoolean(value));
      } else if (column.jsonLiteral() && isNumber(value)) {
        object.put(column.name(), new BigDecimal(value));
      } else {
        object.put(column.name(), value);
      }
    }
    return object.toString();
  }

  private static boolean isNumber(String value) {
    try {
      new BigDecimal(value);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
