package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.sparktests.SparkSql;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One Spark SQL session in a separate JVM ({@link SparkSql} from the spark-tests module, on the
 * classpath that module packages into {@code spark-tests/target/lib}), so that Spark and Trino
 * never share a classpath. Its catalog {@code lake} points at a Lakestream server. Statements run
 * one at a time; not thread safe.
 */
final class SparkSqlProcess implements AutoCloseable {
  // By name: the class needs Spark, which is deliberately not on this classpath.
  private static final String SPARK_SQL_MAIN_CLASS = "io.lakestream.sparktests.SparkSql";
  private static final Pattern SEPARATOR = Pattern.compile(Pattern.quote(SparkSql.SEPARATOR));
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final BufferedWriter statements;
  private final BlockingQueue<Optional<String>> output = new LinkedBlockingQueue<>();
  private final Path stderr;

  private SparkSqlProcess(Process process, Path stderr) {
    this.process = requireNonNull(process, "process is null");
    this.stderr = requireNonNull(stderr, "stderr is null");
    this.statements =
        new BufferedWriter(
            new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    Thread reader = new Thread(this::readOutput, "spark-sql-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the JVM; returns at once, while Spark creates its session in the background.
   *
   * @param sparkLibrary {@code spark-tests/target/lib}: the runner's jar and every runtime
   *     dependency; its sibling {@code spark-sql.jvm-options} holds the JVM flags Spark needs
   * @param workDirectory where Spark keeps its scratch files and its standard error
   * @param catalogUri the Lakestream server's REST base URI
   */
  static SparkSqlProcess start(Path sparkLibrary, Path workDirectory, String catalogUri)
      throws IOException {
    Path jvmOptions = sparkLibrary.resolveSibling("spark-sql.jvm-options");
    if (!Files.isDirectory(sparkLibrary) || !Files.isRegularFile(jvmOptions)) {
      throw new IllegalStateException(
          "No packaged Spark runner at "
              + sparkLibrary
              + " (with "
              + jvmOptions.getFileName()
              + " beside it); build the spark-tests module first (mvn -pl spark-tests package)");
    }
    Files.createDirectories(workDirectory);
    Path stderr = workDirectory.resolve("spark-sql.err");
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "@" + jvmOptions,
            "-Xmx1g",
            // A short-lived JVM: the C1 compiler alone gets it going sooner.
            "-XX:TieredStopAtLevel=1",
            "-Duser.timezone=UTC",
            "-cp",
            sparkLibrary + File.separator + "*",
            SPARK_SQL_MAIN_CLASS,
            catalogUri,
            workDirectory.toString());
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return new SparkSqlProcess(builder.start(), stderr);
  }

  /**
   * Runs one statement and returns the rows it printed, each as its values in text ({@link
   * SparkSql#NULL} for null). The first call also waits for the session to be created.
   *
   * @throws IllegalStateException if the statement fails, Spark exits, or no answer comes within
   *     {@code timeout}
   */
  List<List<String>> execute(String statement, Duration timeout)
      throws IOException, InterruptedException {
    if (statement.contains("\n") || statement.contains("\r")) {
      throw new IllegalArgumentException("Statement must be one line: " + statement);
    }
    statements.write(statement);
    statements.newLine();
    statements.flush();

    List<List<String>> rows = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<String> line = output.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw failure("No answer within " + timeout + " to: " + statement);
      }
      if (line.isEmpty()) {
        throw failure("Spark SQL exited while running: " + statement);
      }
      String text = line.get();
      if (text.equals(SparkSql.OK)) {
        return rows;
      }
      if (text.startsWith(SparkSql.ERROR_PREFIX)) {
        throw failure("Spark SQL failed: " + statement + "\n" + text);
      }
      if (text.startsWith(SparkSql.ROW_PREFIX)) {
        String values = text.substring(SparkSql.ROW_PREFIX.length());
        rows.add(List.of(SEPARATOR.split(values, -1)));
      }
    }
  }

  /** Ends the session (end of standard input) and waits for the JVM to exit. */
  @Override
  public void close() throws IOException {
    try {
      statements.close();
    } catch (IOException e) {
      // Already gone; the wait below tells how it ended.
    }
    boolean exited;
    try {
      exited = process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new InterruptedIOException("Interrupted while waiting for Spark SQL to exit");
    }
    if (!exited) {
      process.destroyForcibly();
      throw failure("Spark SQL did not exit within " + EXIT_TIMEOUT + " of the end of its input");
    }
    if (process.exitValue() != 0) {
      throw failure("Spark SQL exited with " + process.exitValue());
    }
  }

  private void readOutput() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.add(Optional.of(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      output.add(Optional.empty());
    }
  }

  private IllegalStateException failure(String message) throws IOException {
    List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
    String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    return new IllegalStateException(message + "\nSpark's standard error (last lines):\n" + tail);
  }
}
