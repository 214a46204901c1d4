package io.lakestream.flight.scan;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.duckdb.DuckDBAppender;

/** Writes one value of a row of some vector to a DuckDB appender. */
@FunctionalInterface
interface ValueWriter {
  void write(DuckDBAppender appender, int row) throws SQLException;

  /**
   * A writer of a vector's values into a column of DuckDB type {@code type}, or null when the
   * vector does not hold values of exactly that type (or is null).
   */
  static ValueWriter of(FieldVector vector, String type) {
    ValueWriter values =
        switch (vector) {
          case null -> null;
          case BitVector v when type.equals("BOOLEAN") ->
              (appender, row) -> appender.append(v.get(row) != 0);
          case TinyIntVector v when type.equals("TINYINT") ->
              (appender, row) -> appender.append(v.get(row));
          case SmallIntVector v when type.equals("SMALLINT") ->
              (appender, row) -> appender.append(v.get(row));
          case IntVector v when type.equals("INTEGER") ->
              (appender, row) -> appender.append(v.get(row));
          case BigIntVector v when type.equals("BIGINT") ->
              (appender, row) -> appender.append(v.get(row));
          case Float4Vector v when type.equals("FLOAT") ->
              (appender, row) -> appender.append(v.get(row));
          case Float8Vector v when type.equals("DOUBLE") ->
              (appender, row) -> appender.append(v.get(row));
          case VarCharVector v when type.equals("VARCHAR") ->
              (appender, row) -> appender.append(new String(v.get(row), StandardCharsets.UTF_8));
          case DateDayVector v when type.equals("DATE") ->
              (appender, row) -> appender.appendEpochDays(v.get(row));
          case TimeMicroVector v when type.equals("TIME") ->
              (appender, row) -> appender.appendDayMicros(v.get(row));
          case TimeStampMicroVector v when type.equals("TIMESTAMP") ->
              (appender, row) -> appender.appendEpochMicros(v.get(row));
          case DecimalVector v
              when type.equals("DECIMAL(" + v.getPrecision() + "," + v.getScale() + ")") ->
              (appender, row) -> appender.append(v.getObject(row));
          default -> null;
        };
    if (values == null) {
      return null;
    }
    return (appender, row) -> {
      if (vector.isNull(row)) {
        appender.appendNull();
      } else {
        values.write(appender, row);
      }
    };
  }
}
