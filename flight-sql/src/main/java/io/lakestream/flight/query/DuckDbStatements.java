package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import io.lakestream.flight.sql.InvalidQueryException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBResultSet;

/**
 * The DuckDB calls of a query's statement: preparing it in a locked database, finding its result
 * and parameter schemas without computing rows, running it, and reading its rows as Arrow batches;
 * DuckDB's errors become the endpoint's ({@link InvalidQueryException}, {@link
 * QueryLimitException}). Thread safe.
 */
final class DuckDbStatements {
  private final BufferAllocator allocator;

  DuckDbStatements(BufferAllocator allocator) {
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /**
   * The schema of the rows {@code statement} (prepared from {@code sql}) returns, found by running
   * it under {@code LIMIT 0}, which DuckDB answers without computing anything, with its columns
   * named as {@code statement} names them; null when it cannot be found that way ({@code EXPLAIN},
   * or SQL that is not valid as a subquery), and the statement must run to tell.
   *
   * @param parameters the values bound to {@code statement}, or null to bind nulls
   */
  Schema resultSchema(
      Connection duckdb,
      String sql,
      PreparedStatement statement,
      List<Object> parameters,
      RunningQueries.Query query)
      throws SQLException {
    if (!explained(sql).equals(sql)) {
      return null;
    }
    String body = TRAILING_SEMICOLONS.matcher(sql).replaceFirst("");
    Schema schema;
    try (PreparedStatement empty =
        duckdb.prepareStatement("SELECT * FROM (\n" + body + "\n) LIMIT 0")) {
      query.executing(empty);
      int count = empty.getParameterMetaData().getParameterCount();
      for (int i = 1; i <= count; i++) {
        if (parameters == null) {
          empty.setNull(i, Types.NULL);
        } else {
          empty.setObject(i, parameters.get(i - 1));
        }
      }
      try (ResultSet rows = empty.executeQuery();
          ArrowReader reader = arrow(rows, 1)) {
        schema = reader.getVectorSchemaRoot().getSchema();
      } catch (IOException e) {
        return null;
      }
    } catch (SQLException | RuntimeException e) {
      query.checkRunning();
      return null;
    }
    // A subquery's duplicate column names come out renamed (a, a_1); the statement's are not.
    java.sql.ResultSetMetaData columns = statement.getMetaData();
    if (columns == null || columns.getColumnCount() != schema.getFields().size()) {
      return schema;
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < schema.getFields().size(); i++) {
      Field field = schema.getFields().get(i);
      fields.add(
          new Field(columns.getColumnName(i + 1), field.getFieldType(), field.getChildren()));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  private static final java.util.regex.Pattern TRAILING_SEMICOLONS =
      java.util.regex.Pattern.compile("[\\s;]+$");

  /**
   * The query an {@code EXPLAIN} or {@code EXPLAIN ANALYZE} statement explains (which is what it
   * reads), or {@code sql} itself.
   */
  static String explained(String sql) {
    java.util.regex.Matcher explain = EXPLAIN.matcher(sql);
    return explain.lookingAt() ? sql.substring(explain.end()) : sql;
  }

  private static final java.util.regex.Pattern EXPLAIN =
      java.util.regex.Pattern.compile(
          "\\s*EXPLAIN\\s+(ANALYZE\\s+)?", java.util.regex.Pattern.CASE_INSENSITIVE);

  static PreparedStatement prepare(Connection duckdb, String sql, boolean locked) {
    try (Statement lock = duckdb.createStatement()) {
      if (!locked) {
        lock.execute("SET enable_external_access = false; SET lock_configuration = true");
      }
      return duckdb.prepareStatement(sql);
    } catch (SQLException e) {
      throw queryError(e, sql);
    }
  }

  static ResultSet execute(PreparedStatement statement, String sql, RunningQueries.Query query) {
    try {
      ResultSet result = statement.executeQuery();
      if (query.stopped() != null) { // interrupted just as it ended
        result.close();
        query.checkRunning();
      }
      return result;
    } catch (SQLException e) {
      RuntimeException stopped = query.stoppedError(e);
      throw stopped != null ? stopped : queryError(e, sql);
    }
  }

  ArrowReader arrow(ResultSet result, int batchRows) throws SQLException {
    return (ArrowReader)
        result.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows);
  }

  static RuntimeException queryError(SQLException e, String sql) {
    String message = String.valueOf(e.getMessage());
    if (message.startsWith("Out of Memory Error")) {
      return new QueryLimitException("The query exceeded its memory limit: " + message, e);
    }
    return new InvalidQueryException(message, e);
  }

  /** The Arrow types of a prepared statement's parameters, from DuckDB's type names. */
  static Schema parameterSchema(ParameterMetaData metadata) throws SQLException {
    List<Field> fields = new ArrayList<>();
    for (int i = 1; i <= metadata.getParameterCount(); i++) {
      String type;
      try {
        type = String.valueOf(metadata.getParameterTypeName(i)).toUpperCase(Locale.ROOT);
      } catch (SQLException e) {
        type = "UNKNOWN";
      }
      fields.add(Field.nullable("parameter_" + i, arrowType(type)));
    }
    return new Schema(fields);
  }

  private static ArrowType arrowType(String duckdbType) {
    if (duckdbType.startsWith("DECIMAL(")) {
      String[] scale = duckdbType.substring(8, duckdbType.length() - 1).split(",");
      return new ArrowType.Decimal(
          Integer.parseInt(scale[0].trim()), Integer.parseInt(scale[1].trim()), 128);
    }
    return switch (duckdbType) {
      case "BOOLEAN" -> ArrowType.Bool.INSTANCE;
      case "TINYINT" -> new ArrowType.Int(8, true);
      case "SMALLINT" -> new ArrowType.Int(16, true);
      case "INTEGER" -> new ArrowType.Int(32, true);
      case "BIGINT" -> new ArrowType.Int(64, true);
      case "FLOAT" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "DOUBLE" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "DATE" -> new ArrowType.Date(DateUnit.DAY);
      case "TIMESTAMP" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case "TIMESTAMP WITH TIME ZONE" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case "BLOB" -> ArrowType.Binary.INSTANCE;
      default -> ArrowType.Utf8.INSTANCE;
    };
  }
}
