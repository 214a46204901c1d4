package io.lakestream.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sql}: queries over Flight SQL, one from {@code -e} or statements from stdin. */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = {
      "Runs SQL over the server's Flight SQL endpoint (--flight, default the server's host, port"
          + " 32010) with the Arrow Flight SQL JDBC driver: the statement of -e, else the"
          + " statements read from standard input, each ended by ';' ('quit' or end of input"
          + " ends). On a terminal that is a shell with line editing and history"
          + " (~/.lakestream/sql_history).",
      "Streaming tables read as their lake snapshot plus every row acknowledged before the"
          + " query started. A failing statement prints one line on stderr and exits 1 (in a"
          + " session reading stdin, the session goes on and exits 1 at its end)."
    })
final class SqlCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Option(
      names = {"-e", "--execute"},
      paramLabel = "SQL",
      description = "The statement to run")
  String statement;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table, csv or jsonl (default: ${DEFAULT-VALUE})")
  String format;

  @Option(names = "--flight-tls", description = "Connect to the Flight endpoint with TLS")
  boolean tls;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /** Where statements come from without -e off a terminal; standard input unless a test sets it. */
  static InputStream input = System.in;

  @Override
  public Integer call() throws IOException {
    RowPrinter.Format outputFormat = RowPrinter.Format.parse(format);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String url = "jdbc:arrow-flight-sql://" + server.flightAddress();
    Properties properties = new Properties();
    properties.setProperty("useEncryption", Boolean.toString(tls));
    String token = server.token();
    if (token != null) {
      properties.setProperty("token", token);
    }
    try (Connection connection = connect(url, properties)) {
      if (statement != null) {
        run(connection, statement, outputFormat, out);
        return LakestreamCli.EXIT_OK;
      }
      boolean failed = false;
      try (SqlLines lines = Terminal.isInteractive() ? SqlLines.terminal() : SqlLines.of(input)) {
        StringBuilder pending = new StringBuilder();
        while (true) {
          String line = lines.next(pending.length() == 0 ? "lakestream> " : "         -> ");
          if (line == null
              || (pending.length() == 0 && line.trim().matches("(?i)quit|exit|\\\\q"))) {
            break;
          }
          pending.append(line).append('\n');
          String text = pending.toString().trim();
          if (!text.endsWith(";")) {
            continue;
          }
          pending.setLength(0);
          String sql = text.substring(0, text.length() - 1).trim();
          if (sql.isEmpty()) {
            continue;
          }
          try {
            run(connection, sql, outputFormat, out);
          } catch (CliFailure e) {
            err.println("lakestream sql: " + LakestreamCli.oneLine(e.getMessage()));
            err.flush();
            failed = true;
          }
        }
        if (!pending.toString().isBlank()) {
          err.println("lakestream sql: the last statement has no ';' and was not run");
          failed = true;
        }
      }
      err.flush();
      return failed ? LakestreamCli.EXIT_FAILURE : LakestreamCli.EXIT_OK;
    } catch (SQLException e) {
      throw new CliFailure("Flight SQL at " + server.flightAddress() + ": " + e.getMessage(), e);
    }
  }

  private static Connection connect(String url, Properties properties) throws SQLException {
    try {
      return DriverManager.getConnection(url, properties);
    } catch (SQLException e) {
      throw new CliFailure("Cannot connect to Flight SQL at " + url + ": " + e.getMessage(), e);
    }
  }

  private static void run(
      Connection connection, String sql, RowPrinter.Format format, PrintWriter out) {
    try (Statement statement = connection.createStatement()) {
      if (!statement.execute(sql)) {
        out.println("OK, " + statement.getUpdateCount() + " rows changed");
        out.flush();
        return;
      }
      try (ResultSet result = statement.getResultSet()) {
        ResultSetMetaData metadata = result.getMetaData();
        List<RowPrinter.Column> columns = new ArrayList<>();
        for (int i = 1; i <= metadata.getColumnCount(); i++) {
          columns.add(new RowPrinter.Column(metadata.getColumnLabel(i), isLiteral(metadata, i)));
        }
        RowPrinter printer = new RowPrinter(out, format, columns);
        long rows = 0;
        while (result.next()) {
          String[] values = new String[columns.size()];
          for (int i = 0; i < values.length; i++) {
            values[i] = result.getString(i + 1);
          }
          printer.add(values);
          rows++;
        }
        printer.flush();
        if (format == RowPrinter.Format.TABLE) {
          out.println("(" + rows + (rows == 1 ? " row)" : " rows)"));
          out.flush();
        }
      }
    } catch (SQLException e) {
      throw new CliFailure(e.getMessage(), e);
    }
  }

  private static boolean isLiteral(ResultSetMetaData metadata, int column) throws SQLException {
    switch (metadata.getColumnType(column)) {
      case Types.TINYINT:
      case Types.SMALLINT:
      case Types.INTEGER:
      case Types.BIGINT:
      case Types.FLOAT:
      case Types.REAL:
      case Types.DOUBLE:
      case Types.DECIMAL:
      case Types.NUMERIC:
      case Types.BOOLEAN:
      case Types.BIT:
        return true;
      default:
        return false;
    }
  }
}
