package io.lakestream.sparktests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark SQL session over a Lakestream catalog named {@code lake}, driven through standard input
 * and output, for tests that must not have Spark on their own classpath: they start this class as a
 * separate JVM once and send it statements while it keeps one session warm.
 *
 * <p>Usage: {@code SparkSql <catalog-uri> <work-dir>}. Once the session exists it prints {@value
 * #READY}. It then reads one statement per line from standard input and runs each in turn: every
 * row the statement returns is printed as one line, {@value #ROW_PREFIX} followed by the values
 * joined with {@value #SEPARATOR} ({@code null} printed as {@value #NULL}; values themselves must
 * not contain the separator or line breaks), and then one closing line: {@value #OK}, or {@value
 * #ERROR_PREFIX} with the failure's message (its stack trace goes to standard error, and the
 * session stays usable). At the end of standard input the session stops and the JVM exits with 0;
 * if the session cannot be created it exits with 1. Spark's logging goes to standard error only.
 */
public final class SparkSql {
  public static final String READY = "ready";
  public static final String ROW_PREFIX = "row: ";
  public static final String SEPARATOR = "|";
  public static final String NULL = "NULL";
  public static final String OK = "ok";
  public static final String ERROR_PREFIX = "error: ";

  private SparkSql() {}

  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: SparkSql <catalog-uri> <work-dir>");
      System.exit(2);
    }
    int exitCode = 0;
    try {
      SparkSession spark = LakestreamSpark.session("lake", args[0], Path.of(args[1]));
      try {
        serve(spark, System.out);
      } finally {
        spark.stop();
      }
    } catch (Throwable failure) {
      failure.printStackTrace();
      exitCode = 1;
    }
    System.out.flush();
    // Spark leaves non-daemon threads behind; end the JVM explicitly.
    System.exit(exitCode);
  }

  private static void serve(SparkSession spark, PrintStream out) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    out.println(READY);
    out.flush();
    String statement;
    while ((statement = in.readLine()) != null) {
      if (statement.isBlank()) {
        continue;
      }
      try {
        for (Row row : spark.sql(statement).collectAsList()) {
          out.println(ROW_PREFIX + format(row));
        }
        out.println(OK);
      } catch (Exception failure) {
        failure.printStackTrace();
        out.println(ERROR_PREFIX + String.valueOf(failure.getMessage()).replaceAll("\\R", " "));
      }
      out.flush();
    }
  }

  private static String format(Row row) {
    return IntStream.range(0, row.length())
        .mapToObj(i -> row.isNullAt(i) ? NULL : String.valueOf(row.get(i)))
        .collect(Collectors.joining(SEPARATOR));
  }
}
