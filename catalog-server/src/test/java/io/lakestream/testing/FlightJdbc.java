package io.lakestream.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The Flight SQL JDBC driver against a test server: its URL and results as plain lists. */
public final class FlightJdbc {
  private FlightJdbc() {}

  /** The JDBC URL of a server's Flight SQL endpoint on loopback, without TLS or credentials. */
  public static String url(int flightPort) {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + flightPort + "?useEncryption=false";
  }

  /** Runs {@code sql} on {@code connection} and returns its rows as {@link #rows} does. */
  public static List<List<Object>> query(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      return rows(result);
    }
  }

  /**
   * Reads the rest of {@code result}: whole numbers of every width as {@code long} (DuckDB answers
   * sums and counts in wider types than the columns), doubles and everything else as the driver
   * returns them.
   */
  public static List<List<Object>> rows(ResultSet result) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    int columns = result.getMetaData().getColumnCount();
    while (result.next()) {
      List<Object> row = new ArrayList<>();
      for (int column = 1; column <= columns; column++) {
        Object value = result.getObject(column);
        row.add(
            value instanceof Number number && !(value instanceof Double)
                ? number.longValue()
                : value);
      }
      rows.add(row);
    }
    return rows;
  }
}
