package io.lakestream.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs each example as an application would: in a child JVM of the oldest JDK the client supports
 * (17), with the {@code --add-opens} flag the README asks for, whose class path is the example
 * classes and the client artifact with its runtime dependencies, or the shaded client jar alone,
 * never a server jar; against the packaged server ({@code bin/lakestream server}). Each test checks
 * the example's exit code and output, and what the server holds afterwards, read with the client.
 */
class ExamplesIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration EXAMPLE_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static final String ARROW_FLAG = "--add-opens=java.base/java.nio=ALL-UNNAMED";

  private static Path runDirectory;
  private static ServerProcess server;
  private static String uri;
  private static Connection client;

  @BeforeAll
  static void startServer() throws Exception {
    runDirectory = SharedPerTestRun.newRunDirectory("examples-");
    int httpPort = ServerProcess.freePort();
    int rpcPort = ServerProcess.freePort();
    server =
        ServerProcess.launch(
            runDirectory.resolve("logs"),
            httpPort,
            List.of(
                "--data-dir", runDirectory.resolve("data").toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(rpcPort),
                "--flight-port", Integer.toString(ServerProcess.freePort()),
                "--tiering-enabled", "false"));
    server.awaitReady(START_TIMEOUT);
    uri = "lakestream://127.0.0.1:" + rpcPort;
    client = Connection.open(uri);
  }

  @AfterAll
  static void stopServer() throws Exception {
    try (ServerProcess stopped = server;
        Connection closed = client) {
      // Closed in reverse order.
    }
  }

  @Test
  void clientClassPathHasNoServerJars() throws IOException {
    List<String> jars =
        clientClassPath().stream().map(jar -> Path.of(jar).getFileName().toString()).toList();
    assertThat(jars)
        .as("the client's runtime class path")
        .anyMatch(jar -> jar.startsWith("lakestream-client"))
        .noneMatch(jar -> jar.startsWith("lakestream-") && !jar.startsWith("lakestream-client"))
        .noneMatch(jar -> jar.startsWith("iceberg-core"))
        .noneMatch(jar -> jar.startsWith("rocksdbjni"))
        .noneMatch(jar -> jar.startsWith("hadoop-"))
        .noneMatch(jar -> jar.startsWith("paimon-"))
        .noneMatch(jar -> jar.startsWith("junit-") || jar.startsWith("assertj-"));
  }

  @Test
  void logTableExampleAppendsAndScans() throws Exception {
    Result result = run(clientApplicationClassPath(), LogTableExample.class, uri, "");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.lines())
        .as(result.toString())
        .contains("appended 3 rows to examples.events", "scanned 3 rows of examples.events");
    // Each row's acknowledgement names a bucket of the four and an offset range.
    assertThat(result.lines().stream().filter(line -> line.startsWith("acknowledged: ")))
        .hasSize(3)
        .allMatch(line -> line.matches("acknowledged: bucket [0-3], offsets \\d+\\.\\.\\d+"));
    assertThat(result.lines().stream().filter(line -> line.startsWith("bucket ")))
        .map(line -> line.substring(line.indexOf(": ") + 2))
        .containsExactlyInAnyOrder("[1, signup]", "[2, login]", "[1, purchase]");

    List<Object[]> rows = readAll(client.table(TablePath.of("examples.events")));
    assertThat(rows)
        .extracting(Arrays::asList)
        .containsExactlyInAnyOrder(
            List.of(1L, "signup"), List.of(2L, "login"), List.of(1L, "purchase"));
    // Rows of one id share a bucket, in the order they were appended.
    assertThat(rows.stream().filter(row -> row[0].equals(1L)).map(row -> row[1]))
        .containsExactly("signup", "purchase");
  }

  @Test
  void primaryKeyTableExampleUpsertsDeletesAndLooksUp() throws Exception {
    Result result = run(clientApplicationClassPath(), PrimaryKeyTableExample.class, uri, "");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.lines())
        .as(result.toString())
        .contains(
            "wrote 4 upserts and 1 delete to examples.users",
            "id 1: [1, ada, cambridge]",
            "id 2: no row",
            "id 3: [3, linus, helsinki]");

    Table users = client.table(TablePath.of("examples.users"));
    assertThat(users.primaryKey()).containsExactly("id");
    Lookuper lookuper = users.newLookuper();
    assertThat(lookuper.lookup(1L).join()).containsExactly(1L, "ada", "cambridge");
    assertThat(lookuper.lookup(2L).join()).isNull();
    assertThat(lookuper.lookup(3L).join()).containsExactly(3L, "linus", "helsinki");

    // The table's changelog, read by the reading example: an update is -U/+U, a delete -D with
    // the removed row.
    Result changelog =
        run(clientApplicationClassPath(), ReadTableExample.class, uri, "", "examples.users");
    assertThat(changelog.exitCode()).as(changelog.toString()).isZero();
    assertThat(changelog.lines())
        .as(changelog.toString())
        .containsExactlyInAnyOrder(
            "+I [1, ada, london]",
            "+I [2, grace, arlington]",
            "+I [3, linus, helsinki]",
            "-U [1, ada, london]",
            "+U [1, ada, cambridge]",
            "-D [2, grace, arlington]",
            "caught up after 6 rows of examples.users");
    assertThat(changelog.lines().stream().filter(line -> line.contains("[1, ")))
        .as("the changes of key 1, in their order")
        .containsExactly("+I [1, ada, london]", "-U [1, ada, london]", "+U [1, ada, cambridge]");
  }

  @Test
  void readTableExampleRunsOnTheShadedJarAlone() throws Exception {
    Path shadedJar = Path.of(System.getProperty("examples.client.all.jar"));
    try (ZipFile jar = new ZipFile(shadedJar.toFile())) {
      assertThat(jar.getEntry("io/lakestream/client/Connection.class")).isNotNull();
      assertThat(
              jar.getEntry("io/lakestream/shaded/org/apache/arrow/vector/VectorSchemaRoot.class"))
          .isNotNull();
      assertThat(jar.stream().map(entry -> entry.getName()))
          .as("third-party classes left unrelocated in %s", shadedJar)
          .noneMatch(name -> name.startsWith("org/apache/arrow/"))
          .noneMatch(name -> name.startsWith("org/apache/iceberg/"))
          .noneMatch(name -> name.startsWith("com/fasterxml/"))
          .noneMatch(name -> name.startsWith("com/google/"));
    }
    TablePath path = TablePath.of("examples.shaded_read");
    client.admin().createNamespaceIfNotExists(null, List.of("examples"));
    client.admin().createTable(path, TableDescriptor.logTable(eventSchema(), 3));
    try (AppendWriter writer = client.table(path).newAppendWriter()) {
      for (long id = 1; id <= 5; id++) {
        writer.append(id, "row-" + id);
      }
    }

    String classPath = System.getProperty("examples.classes") + File.pathSeparator + shadedJar;
    Result result = run(classPath, ReadTableExample.class, uri, "", path.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.lines())
        .as(result.toString())
        .containsExactlyInAnyOrder(
            "+I [1, row-1]",
            "+I [2, row-2]",
            "+I [3, row-3]",
            "+I [4, row-4]",
            "+I [5, row-5]",
            "caught up after 5 rows of examples.shaded_read");
  }

  @Test
  void withoutTheArrowFlagTheClientFailsNamingIt() throws Exception {
    TablePath path = TablePath.of("examples.flagless");
    client.admin().createNamespaceIfNotExists(null, List.of("examples"));
    client.admin().createTable(path, TableDescriptor.logTable(eventSchema(), 1));

    Result result =
        run(
            List.of(),
            clientApplicationClassPath(),
            ReadTableExample.class,
            uri,
            "",
            "examples.flagless");

    // Arrow's memory module reads java.nio.Buffer's address field, which Java 17 keeps closed.
    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.stderr())
        .as(result.toString())
        .contains("Failed to initialize MemoryUtil")
        .contains("--add-opens=java.base/java.nio=");
  }

  private static Schema eventSchema() {
    return new Schema(
        Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()));
  }

  /** Every row of a table, read with this test's own client until caught up. */
  private static List<Object[]> readAll(Table table) {
    List<Object[]> rows = new ArrayList<>();
    long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    try (LogScanner scanner = table.newScanner()) {
      scanner.subscribeAll(LogScanner.earliest());
      do {
        if (System.nanoTime() - deadline > 0) {
          fail("Not caught up with %s after %s", table.path(), READ_TIMEOUT);
        }
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          try (batch) {
            rows.addAll(batch.rows());
          }
        }
      } while (!scanner.caughtUp());
    }
    return rows;
  }

  private static List<String> clientClassPath() throws IOException {
    String classPath =
        Files.readString(Path.of(System.getProperty("examples.client.classpath"))).strip();
    return List.of(classPath.split(File.pathSeparator));
  }

  /** The example classes and the client artifact with its runtime dependencies. */
  private static String clientApplicationClassPath() throws IOException {
    return System.getProperty("examples.classes")
        + File.pathSeparator
        + String.join(File.pathSeparator, clientClassPath());
  }

  /** A finished child JVM. */
  private record Result(String command, int exitCode, String stdout, String stderr) {
    List<String> lines() {
      return stdout.lines().toList();
    }

    @Override
    public String toString() {
      return command + "\nexit code " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /**
   * Runs an example's main class in a new JDK 17 JVM (the build's JDK when there is none) with the
   * flag Arrow needs.
   */
  private static Result run(String classPath, Class<?> example, String... arguments)
      throws IOException, InterruptedException {
    return run(List.of(ARROW_FLAG), classPath, example, arguments);
  }

  private static Result run(
      List<String> jvmFlags, String classPath, Class<?> example, String... arguments)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(java().toString());
    command.add("-Xmx256m");
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(classPath);
    command.add(example.getName());
    command.addAll(List.of(arguments));
    Path stdout = Files.createTempFile(runDirectory, example.getSimpleName() + "-", ".out");
    Path stderr = Files.createTempFile(runDirectory, example.getSimpleName() + "-", ".err");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    if (!process.waitFor(EXAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      fail("%s did not finish within %s", example.getSimpleName(), EXAMPLE_TIMEOUT);
    }
    return new Result(
        String.join(" ", command),
        process.exitValue(),
        Files.readString(stdout, StandardCharsets.UTF_8),
        Files.readString(stderr, StandardCharsets.UTF_8));
  }

  private static Path java() {
    Path java17 = Path.of(System.getProperty("examples.java.home"), "bin", "java");
    return Files.isExecutable(java17)
        ? java17
        : Path.of(System.getProperty("java.home"), "bin", "java");
  }
}
