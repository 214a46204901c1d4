package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command of the command line against the packaged server (one process for the class), run
 * in-process through picocli with captured streams: output, exit codes and the one-line errors of
 * bad input. {@link #launcherRunsTablesAsAProcess} runs {@code bin/lakestream tables} for real.
 */
class CliIT {
  private static PackagedServer server;

  @TempDir Path files;

  /** What one command run printed and returned. */
  record Run(int exitCode, String out, String err) {
    List<String> outLines() {
      return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }
  }

  @BeforeAll
  static void startServer() throws Exception {
    // No LAKESTREAM_* variable of the machine running the tests may steer the commands.
    ServerOptions.environment = Map.of();
    server =
        PackagedServer.start(SharedPerTestRun.newRunDirectory("cli-"), Duration.ofSeconds(120));
  }

  @AfterAll
  static void stopServer() throws Exception {
    ServerOptions.environment = System.getenv();
    if (server != null) {
      SharedPerTestRun.terminateCleanly(server.process(), Duration.ofSeconds(60));
    }
  }

  private static String[] addresses() {
    return new String[] {
      "--server", "lakestream://127.0.0.1:" + server.rpcPort(),
      "--catalog", server.baseUri(),
      "--flight", "127.0.0.1:" + server.flightPort()
    };
  }

  /** Runs a command with the server's addresses after the command's name. */
  private static Run run(String command, String... args) {
    List<String> all = new ArrayList<>();
    all.addAll(Arrays.asList(command.split(" ")));
    all.addAll(Arrays.asList(addresses()));
    all.addAll(Arrays.asList(args));
    return runBare(all.toArray(String[]::new));
  }

  /** Runs a command line exactly as given. */
  private static Run runBare(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = LakestreamCli.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  private Path file(String name, String... lines) throws IOException {
    Path file = files.resolve(name);
    Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    return file;
  }

  private static void assertOk(Run run) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isZero();
    assertThat(run.err()).isEmpty();
  }

  /** Exit code and a single line on stderr that contains {@code message}. */
  private static void assertFails(Run run, int exitCode, String message) {
    assertThat(run.exitCode()).as("exit code; stdout: %s", run.out()).isEqualTo(exitCode);
    String firstLine = run.err().split("\n")[0];
    assertThat(firstLine).contains(message);
  }

  @Test
  void helpListsEveryCommandAndEveryCommandHasHelp() {
    Run help = runBare("--help");
    assertOk(help);
    List<String> commands =
        List.of(
            "tables",
            "describe",
            "create",
            "drop",
            "produce",
            "consume",
            "tail",
            "lookup",
            "sql",
            "tiering",
            "doctor");
    for (String command : commands) {
      assertThat(help.out()).containsPattern("(?m)^  " + command + " ");
      Run commandHelp = runBare(command, "--help");
      assertOk(commandHelp);
      assertThat(commandHelp.out()).startsWith("Usage: lakestream " + command);
    }
    assertOk(runBare("tiering", "status", "--help"));
  }

  @Test
  void badUsageExitsWithTwoAndOneLine() {
    assertFails(runBare("frobnicate"), 2, "Unmatched argument at index 0: 'frobnicate'");
    assertFails(run("create", "cli_usage.t", "--kind", "log"), 2, "--schema");
    assertFails(
        run("create", "cli_usage.t", "--kind", "log", "--schema", "id bogus"),
        2,
        "Unknown type 'bogus' of column 'id'");
    assertFails(
        run("create", "cli_usage.t", "--kind", "primary-key", "--schema", "id bigint"),
        2,
        "--kind primary-key needs --primary-key");
    assertFails(run("describe", "no_namespace"), 2, "Invalid table name 'no_namespace'");
    assertFails(run("consume", "cli_usage.t", "--format", "xml"), 2, "Unknown --format 'xml'");
    assertFails(run("consume", "cli_usage.t", "--from", "yesterday"), 2, "Invalid --from");
    assertFails(runBare("tables", "--server", "http://nope"), 2, "Invalid --server");
  }

  @Test
  void createDescribeListAndDropALogTable() {
    Run created =
        run(
            "create",
            "cli_ddl.clicks",
            "--kind",
            "log",
            "--schema",
            "id bigint not null, url string, at timestamp",
            "--buckets",
            "3");
    assertOk(created);
    assertThat(created.out()).isEqualTo("Created log table cli_ddl.clicks\n");
    assertFails(
        run("create", "cli_ddl.clicks", "--kind", "log", "--schema", "id bigint"),
        1,
        "Table cli_ddl.clicks exists already");

    Run described = run("describe", "cli_ddl.clicks");
    assertOk(described);
    assertThat(described.outLines())
        .contains(
            "Table:        cli_ddl.clicks",
            "Kind:         log",
            "Buckets:      3",
            "name | type      | nullable",
            "id   | long      | no",
            "url  | string    | yes",
            "at   | timestamp | yes",
            "partition | bucket | earliest | latest | tiered | lag",
            "          |      2 |        0 |      0 |     -1 |   0",
            "Total lag:    0");

    Run listed = run("tables", "cli_ddl");
    assertOk(listed);
    assertThat(listed.out())
        .isEqualTo(
            "namespace | table  | kind | buckets\n"
                + "----------+--------+------+--------\n"
                + "cli_ddl   | clicks | log  |       3\n");
    Run all = run("tables", "--format", "csv");
    assertOk(all);
    assertThat(all.outLines()).contains("namespace,table,kind,buckets", "cli_ddl,clicks,log,3");

    Run dropped = run("drop", "cli_ddl.clicks");
    assertOk(dropped);
    assertThat(dropped.out()).isEqualTo("Dropped cli_ddl.clicks\n");
    assertFails(run("describe", "cli_ddl.clicks"), 1, "Table cli_ddl.clicks does not exist");
    assertFails(run("drop", "cli_ddl.clicks"), 1, "Table cli_ddl.clicks does not exist");
    assertOk(run("drop", "cli_ddl.clicks", "--if-exists"));
  }

  @Test
  void unknownTableExitsWithOneAndNamesIt() throws IOException {
    Path rows = file("rows.csv", "id", "1");
    assertFails(run("describe", "cli_none.missing"), 1, "Table cli_none.missing does not exist");
    assertFails(run("consume", "cli_none.missing"), 1, "Table cli_none.missing does not exist");
    assertFails(
        run("produce", "cli_none.missing", rows.toString()),
        1,
        "Table cli_none.missing does not exist");
    assertFails(run("lookup", "cli_none.missing", "1"), 1, "Table cli_none.missing does not exist");
    assertFails(
        run("tiering status", "cli_none.missing"), 1, "Table cli_none.missing does not exist");
    assertFails(run("tables", "cli_none"), 1, "Namespace cli_none does not exist");
  }

  @Test
  void producesCsvAndJsonLinesAndConsumesThem() throws IOException {
    assertOk(
        run(
            "create",
            "cli_io.events",
            "--kind",
            "log",
            "--schema",
            "id bigint not null, name string, at timestamp, price decimal(10,2), ok boolean"));
    Path csv =
        file(
            "first.csv",
            "name,id,at,price,ok",
            "alice,1,2026-01-01T10:00:00,1.50,true",
            "\"bob, jr\",2,,2.00,false",
            "\"\",3,2026-01-02 11:30:00,,");
    Path json =
        file(
            "second.jsonl",
            "{\"id\": 4, \"name\": \"dan\", \"price\": 3.25}",
            "",
            "{\"id\": 5, \"at\": \"2026-03-01T00:00:00Z\", \"ok\": true}");
    Run produced = run("produce", "cli_io.events", csv.toString(), json.toString());
    assertOk(produced);
    assertThat(produced.out())
        .startsWith("Wrote 5 rows (")
        .contains("from 2 files to cli_io.events in");

    Run table = run("consume", "cli_io.events");
    assertOk(table);
    assertThat(table.out())
        .isEqualTo(
            "id | name    | at                  | price | ok\n"
                + "---+---------+---------------------+-------+------\n"
                + " 1 | alice   | 2026-01-01T10:00:00 |  1.50 |  true\n"
                + " 2 | bob, jr | NULL                |  2.00 | false\n"
                + " 3 |         | 2026-01-02T11:30:00 | NULL  | NULL\n"
                + " 4 | dan     | NULL                |  3.25 | NULL\n"
                + " 5 | NULL    | 2026-03-01T00:00:00 | NULL  |  true\n");

    Run csvOut = run("consume", "cli_io.events", "--format", "csv", "--columns", "name,id");
    assertOk(csvOut);
    assertThat(csvOut.out()).isEqualTo("name,id\nalice,1\n\"bob, jr\",2\n\"\",3\ndan,4\n,5\n");

    Run jsonOut =
        run(
            "consume",
            "cli_io.events",
            "--format",
            "jsonl",
            "--columns",
            "id,price,ok",
            "--from",
            "3",
            "--limit",
            "1");
    assertOk(jsonOut);
    assertThat(jsonOut.out()).isEqualTo("{\"id\":4,\"price\":3.25,\"ok\":null}\n");

    assertFails(
        run("consume", "cli_io.events", "--columns", "id,nope"),
        2,
        "Table cli_io.events has no column 'nope'");
  }

  /** Writes a Parquet file with parquet-java's example writer (snappy), one group per row. */
  private Path parquet(String name, MessageType schema, List<Group> rows) throws IOException {
    return parquet(name, schema, rows, CompressionCodecName.SNAPPY);
  }

  private Path parquet(
      String name, MessageType schema, List<Group> rows, CompressionCodecName codec)
      throws IOException {
    Path file = files.resolve(name);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withConf(new PlainParquetConfiguration())
            .withType(schema)
            .withCompressionCodec(codec)
            .build()) {
      for (Group row : rows) {
        writer.write(row);
      }
    }
    return file;
  }

  @Test
  void producesParquetByColumnName() throws IOException {
    assertOk(
        run(
            "create",
            "cli_pq.all",
            "--kind",
            "log",
            "--schema",
            "id bigint not null, n int, f float, d double, ok boolean, name string, raw binary,"
                + " day date, at timestamp, price decimal(10,2)"));
    // Not in the table's column order: columns map by name.
    MessageType schema =
        Types.buildMessage()
            .optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named("name")
            .required(PrimitiveTypeName.INT64)
            .named("id")
            .optional(PrimitiveTypeName.INT32)
            .named("n")
            .optional(PrimitiveTypeName.FLOAT)
            .named("f")
            .optional(PrimitiveTypeName.DOUBLE)
            .named("d")
            .optional(PrimitiveTypeName.BOOLEAN)
            .named("ok")
            .optional(PrimitiveTypeName.BINARY)
            .named("raw")
            .optional(PrimitiveTypeName.INT32)
            .as(LogicalTypeAnnotation.dateType())
            .named("day")
            .optional(PrimitiveTypeName.INT64)
            .as(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS))
            .named("at")
            .optional(PrimitiveTypeName.INT64)
            .as(LogicalTypeAnnotation.decimalType(2, 10))
            .named("price")
            .named("row");
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    Group first = groups.newGroup();
    first.add("name", "alice");
    first.add("id", 1L);
    first.add("n", 7);
    first.add("f", 1.5f);
    first.add("d", 2.25);
    first.add("ok", true);
    first.add("raw", Binary.fromConstantByteArray(new byte[] {0x01, (byte) 0xab}));
    first.add("day", 20455); // 2026-01-02
    first.add("at", 1_767_261_600_000_000L); // 2026-01-01T10:00:00Z
    first.add("price", 150L); // 1.50
    Group second = groups.newGroup();
    second.add("name", "bob, jr");
    second.add("id", 2L);
    Path file = parquet("rows.parquet", schema, List.of(first, second));

    Run produced = run("produce", "cli_pq.all", file.toString());
    assertOk(produced);
    assertThat(produced.out()).startsWith("Wrote 2 rows (");

    Run table = run("consume", "cli_pq.all", "--format", "csv");
    assertOk(table);
    assertThat(table.out())
        .isEqualTo(
            "id,n,f,d,ok,name,raw,day,at,price\n"
                + "1,7,1.5,2.25,true,alice,01ab,2026-01-02,2026-01-01T10:00:00,1.50\n"
                + "2,,,,,\"bob, jr\",,,,\n");
  }

  @Test
  void aParquetColumnOfTheWrongTypeNamesFileRowAndColumnAndWritesNothingOfIt() throws IOException {
    assertOk(run("create", "cli_pq.bad", "--kind", "log", "--schema", "id bigint, name string"));
    MessageType good =
        Types.buildMessage()
            .optional(PrimitiveTypeName.INT64)
            .named("id")
            .optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named("name")
            .named("row");
    SimpleGroupFactory goodGroups = new SimpleGroupFactory(good);
    Group a = goodGroups.newGroup();
    a.add("id", 1L);
    a.add("name", "a");
    Path goodFile = parquet("good.parquet", good, List.of(a));
    // name is an int64 here: the table's column is a string.
    MessageType wrong =
        Types.buildMessage()
            .optional(PrimitiveTypeName.INT64)
            .named("id")
            .optional(PrimitiveTypeName.INT64)
            .named("name")
            .named("row");
    SimpleGroupFactory wrongGroups = new SimpleGroupFactory(wrong);
    Group b = wrongGroups.newGroup();
    b.add("id", 10L);
    Group c = wrongGroups.newGroup();
    c.add("id", 11L);
    c.add("name", 5L);
    Path wrongFile = parquet("wrong.parquet", wrong, List.of(b, c));

    Run failed = run("produce", "cli_pq.bad", goodFile.toString(), wrongFile.toString());
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.err())
        .startsWith("lakestream produce: " + wrongFile + " row 2: column name: Parquet type int64")
        .contains("written before: " + goodFile + " (1 rows)");

    Run table = run("consume", "cli_pq.bad", "--format", "csv");
    assertOk(table);
    assertThat(table.out()).isEqualTo("id,name\n1,a\n");
  }

  @Test
  void aMalformedLineNamesFileAndLineAndWritesNothingOfThatFile() throws IOException {
    assertOk(run("create", "cli_bad.rows", "--kind", "log", "--schema", "id bigint, name string"));
    Path good = file("good.csv", "id,name", "1,a", "2,b");
    Path bad = file("bad.csv", "id,name", "10,x", "11,y", "notanumber,z", "12,w");
    Run failed = run("produce", "cli_bad.rows", good.toString(), bad.toString());
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.err())
        .isEqualTo(
            "lakestream produce: "
                + bad
                + " line 4: value 'notanumber' of column id is not a 64-bit integer; written"
                + " before: "
                + good
                + " (2 rows)\n");
    Run unclosed =
        run("produce", "cli_bad.rows", file("quote.csv", "id,name", "13,\"open").toString());
    assertFails(unclosed, 1, "quote.csv line 2: the quote opened on line 2 is not closed");
    Run unknownColumn =
        run("produce", "cli_bad.rows", file("header.csv", "id,colour", "14,red").toString());
    assertFails(unknownColumn, 1, "header.csv line 1: header names column 'colour'");
    Run badJson =
        run("produce", "cli_bad.rows", file("bad.jsonl", "{\"id\": 15}", "{\"id\": ").toString());
    assertFails(badJson, 1, "bad.jsonl line 2: not JSON");

    Run rows = run("consume", "cli_bad.rows", "--format", "csv");
    assertOk(rows);
    assertThat(rows.out()).isEqualTo("id,name\n1,a\n2,b\n");
  }

  @Test
  void upsertsLooksUpAndReadsTheChangelogOfAPrimaryKeyTable() throws IOException {
    assertOk(
        run(
            "create",
            "cli_pk.users",
            "--kind",
            "primary-key",
            "--schema",
            "id bigint not null, name string, region string",
            "--primary-key",
            "id",
            "--buckets",
            "2"));
    Run described = run("describe", "cli_pk.users");
    assertOk(described);
    assertThat(described.outLines())
        .contains(
            "Kind:         primary-key", "Merge engine: (default: last-row)", "Primary key:  id");
    assertOk(
        run(
            "produce",
            "cli_pk.users",
            file("users.csv", "id,name,region", "1,ann,eu", "2,ben,us", "1,ann2,eu").toString()));

    Run found = run("lookup", "cli_pk.users", "2", "1", "--format", "csv");
    assertOk(found);
    assertThat(found.out()).isEqualTo("id,name,region\n2,ben,us\n1,ann2,eu\n");
    Run missing = run("lookup", "cli_pk.users", "1", "3");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.out()).isEqualTo("id | name | region\n---+------+-------\n 1 | ann2 | eu\n");
    assertThat(missing.err()).isEqualTo("lakestream lookup: no row for key 3 in cli_pk.users\n");
    assertFails(run("lookup", "cli_pk.users", "x"), 2, "Invalid key 'x'");

    Run changelog = run("consume", "cli_pk.users", "--format", "csv", "--columns", "id,name");
    assertOk(changelog);
    // Two buckets: each key's changes in order, the keys' buckets in either order.
    assertThat(changelog.outLines()).first().isEqualTo("op,id,name");
    assertThat(changelog.outLines())
        .containsExactlyInAnyOrder("op,id,name", "+I,1,ann", "-U,1,ann", "+U,1,ann2", "+I,2,ben");
    List<String> keyOne =
        changelog.outLines().stream().filter(line -> line.contains(",1,")).toList();
    assertThat(keyOne).containsExactly("+I,1,ann", "-U,1,ann", "+U,1,ann2");

    assertFails(run("lookup", "cli_io_log.none", "1"), 1, "Table cli_io_log.none does not exist");
  }

  @Test
  void tailPrintsOnlyRowsWrittenAfterItStarted() throws Exception {
    assertOk(run("create", "cli_tail.ticks", "--kind", "log", "--schema", "id bigint"));
    assertOk(run("produce", "cli_tail.ticks", file("old.csv", "id", "1", "2", "3").toString()));
    CompletableFuture<Run> tail =
        CompletableFuture.supplyAsync(
            () -> run("tail", "cli_tail.ticks", "--limit", "2", "--format", "csv"));
    try (Connection connection = Connection.open("127.0.0.1", server.rpcPort());
        AppendWriter writer = connection.table(TablePath.of("cli_tail.ticks")).newAppendWriter()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      long next = 100;
      // Tail starts at the high watermark it sees when it subscribes: write until it has two.
      while (!tail.isDone() && System.nanoTime() < deadline) {
        writer.append(next++);
        writer.flush();
        try {
          tail.get(100, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          // Not done yet: write another row.
        }
      }
    }
    Run result = tail.get(1, TimeUnit.SECONDS);
    assertThat(result).as("tail finished within the deadline").isNotNull();
    assertOk(result);
    List<String> lines = result.outLines();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).isEqualTo("id");
    long first = Long.parseLong(lines.get(1));
    assertThat(first).isGreaterThanOrEqualTo(100);
    assertThat(lines.get(2)).isEqualTo(Long.toString(first + 1));
  }

  @Test
  void sqlPrintsAlignedResultsAndFailsOnBadSql() throws IOException {
    assertOk(run("create", "cli_sql.items", "--kind", "log", "--schema", "id bigint, name string"));
    assertOk(
        run(
            "produce",
            "cli_sql.items",
            file("items.csv", "id,name", "2,pear", "1,apple", "10,fig").toString()));
    Run query = run("sql", "-e", "SELECT id, name FROM cli_sql.items ORDER BY id");
    assertOk(query);
    assertThat(query.out())
        .isEqualTo(
            "id | name\n"
                + "---+------\n"
                + " 1 | apple\n"
                + " 2 | pear\n"
                + "10 | fig\n"
                + "(3 rows)\n");
    Run json = run("sql", "-e", "SELECT count(*) AS n FROM cli_sql.items", "--format", "jsonl");
    assertOk(json);
    assertThat(json.out()).isEqualTo("{\"n\":3}\n");
    Run bad = run("sql", "-e", "SELEC nonsense");
    assertFails(bad, 1, "syntax error");
    assertThat(bad.err().split("\n")).hasSize(1);
  }

  @Test
  void sqlReadsStatementsFromStandardInput() throws IOException {
    assertOk(run("create", "cli_shell.n", "--kind", "log", "--schema", "id bigint"));
    assertOk(run("produce", "cli_shell.n", file("n.csv", "id", "5", "6").toString()));
    String statements =
        "SELECT max(id) AS top\n  FROM cli_shell.n;\nSELEC broken;\n;\nSELECT 1 AS one;\nquit\n"
            + "SELECT 2;\n";
    SqlCommand.input =
        new java.io.ByteArrayInputStream(statements.getBytes(StandardCharsets.UTF_8));
    try {
      Run shell = run("sql", "--format", "csv");
      assertThat(shell.exitCode()).isEqualTo(1);
      assertThat(shell.out()).isEqualTo("top\n6\none\n1\n");
      assertThat(shell.err()).startsWith("lakestream sql: ").contains("syntax error");
      assertThat(shell.err().split("\n")).hasSize(1);
    } finally {
      SqlCommand.input = System.in;
    }
  }

  @Test
  void partitionedTablesAndReadingFromATime() throws IOException {
    assertOk(
        run(
            "create",
            "cli_parts.visits",
            "--kind",
            "log",
            "--schema",
            "id bigint not null, region string",
            "--partition-by",
            "region",
            "--buckets",
            "2",
            "--bucket-key",
            "id"));
    assertOk(
        run(
            "produce",
            "cli_parts.visits",
            file("visits.jsonl", "{\"id\":1,\"region\":\"eu\"}", "{\"id\":2,\"region\":\"us\"}")
                .toString()));
    Run described = run("describe", "cli_parts.visits");
    assertOk(described);
    assertThat(described.outLines()).contains("Bucket key:   id", "Partitioned:  region");
    assertThat(described.out()).containsPattern("(?m)^region=eu +\\| +[01] \\|");
    assertThat(described.out()).containsPattern("(?m)^region=us +\\| +[01] \\|");

    Run all =
        run("consume", "cli_parts.visits", "--format", "csv", "--from", "2000-01-01T00:00:00Z");
    assertOk(all);
    assertThat(all.outLines()).containsExactlyInAnyOrder("id,region", "1,eu", "2,us");
    Run none =
        run("consume", "cli_parts.visits", "--format", "csv", "--from", "2999-01-01T00:00:00Z");
    assertOk(none);
    assertThat(none.out()).isEqualTo("id,region\n");
  }

  @Test
  void aPlainIcebergTableIsListedDescribedAndNamedWhenStreamCommandsMeetIt() throws Exception {
    assertOk(run("create", "cli_plain.stream", "--kind", "log", "--schema", "id bigint"));
    // A plain Iceberg table, created through the REST catalog as any Iceberg client would.
    java.net.http.HttpResponse<String> created =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(server.baseUri() + "/v1/namespaces/cli_plain/tables"))
                    .header("Content-Type", "application/json")
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"name\": \"lake\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0,"
                                + " \"fields\": [{\"id\": 1, \"name\": \"id\", \"type\": \"long\","
                                + " \"required\": true}]}}"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    Run listed = run("tables", "cli_plain", "--format", "csv");
    assertOk(listed);
    assertThat(listed.out())
        .isEqualTo(
            "namespace,table,kind,buckets\ncli_plain,lake,iceberg,\ncli_plain,stream,log,1\n");
    Run described = run("describe", "cli_plain.lake");
    assertOk(described);
    assertThat(described.outLines()).contains("Kind:         iceberg", "id   | long | no");
    assertThat(described.out()).doesNotContain("Buckets:");
    String plain = "Table cli_plain.lake is a plain Iceberg table, not a streaming table";
    assertFails(run("consume", "cli_plain.lake"), 1, plain);
    assertFails(run("produce", "cli_plain.lake", file("p.csv", "id", "1").toString()), 1, plain);
    assertFails(
        run("tiering status", "cli_plain.lake"),
        1,
        "Table cli_plain.lake is a plain Iceberg table; it is not tiered");
  }

  @Test
  void tieringStatusAndDoctor() throws IOException {
    assertOk(run("create", "cli_ops.t", "--kind", "log", "--schema", "id bigint"));
    assertOk(run("produce", "cli_ops.t", file("t.csv", "id", "1", "2").toString()));
    Run one = run("tiering status", "cli_ops.t");
    assertOk(one);
    assertThat(one.outLines().get(0)).startsWith("Table cli_ops.t: lag ");
    assertThat(one.outLines().get(1)).isEqualTo("partition | bucket | latest | tiered | lag");
    assertThat(one.outLines().get(3)).startsWith("          |      0 |      2 |");
    Run all = run("tiering status");
    assertOk(all);
    // Other tests' tables may be listed too and widen the columns.
    assertThat(all.outLines().get(0))
        .matches("table +\\| kind +\\| log rows \\| lag +\\| buckets tiered");
    assertThat(all.outLines())
        .anyMatch(line -> line.matches("cli_ops\\.t +\\| log +\\| +2 \\| +[0-2] \\| [01]/1"));

    Run doctor = run("doctor", "--data-dir", server.dataDir().toString(), "--min-free-mib", "1");
    assertOk(doctor);
    assertThat(doctor.outLines())
        .anyMatch(line -> line.startsWith("ok   catalog "))
        .anyMatch(line -> line.startsWith("ok   stream rpc "))
        .anyMatch(line -> line.startsWith("ok   flight sql "))
        .anyMatch(line -> line.startsWith("ok   data directory "))
        .anyMatch(
            line -> line.matches("ok   catalog db +listed \\d+ top-level namespaces in \\d+ ms"))
        // The server's /v1/config names its warehouse (prefix) but no location.
        .anyMatch(
            line ->
                line.startsWith("skip warehouse ")
                    && line.contains("/v1/config names no warehouse location"));

    int closedPort = ServerProcess.freePort();
    Run down =
        runBare(
            "doctor",
            "--server",
            "lakestream://127.0.0.1:" + closedPort,
            "--catalog",
            server.baseUri(),
            "--flight",
            "127.0.0.1:" + server.flightPort(),
            "--token",
            "s3cret-never-printed");
    assertThat(down.exitCode()).isEqualTo(1);
    assertThat(down.outLines()).anyMatch(line -> line.startsWith("FAIL stream rpc "));
    assertThat(down.out() + down.err())
        .doesNotContain("s3cret-never-printed")
        .contains("token set");
  }

  @Test
  void profileFileSuppliesTheAddresses() throws IOException {
    assertOk(run("create", "cli_profile.t", "--kind", "log", "--schema", "id bigint"));
    Path profile =
        file(
            "profile",
            "server=lakestream://127.0.0.1:" + server.rpcPort(),
            "catalog=" + server.baseUri(),
            "flight=127.0.0.1:" + server.flightPort());
    Run viaFlag = runBare("tables", "cli_profile", "--profile", profile.toString());
    assertOk(viaFlag);
    assertThat(viaFlag.outLines()).contains("cli_profile | t     | log  |       1");
    ServerOptions.environment = Map.of("LAKESTREAM_PROFILE", profile.toString());
    try {
      Run viaEnvironment = runBare("tables", "cli_profile");
      assertOk(viaEnvironment);
      assertThat(viaEnvironment.out()).isEqualTo(viaFlag.out());
    } finally {
      ServerOptions.environment = Map.of();
    }
  }

  @Test
  void launcherRunsTablesAsAProcess() throws Exception {
    assertOk(run("create", "cli_launcher.t", "--kind", "log", "--schema", "id bigint"));
    List<String> command = new ArrayList<>();
    command.add(ServerProcess.home().resolve("bin/lakestream").toString());
    command.add("tables");
    command.add("cli_launcher");
    command.addAll(Arrays.asList(addresses()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("LAKESTREAM_NO_BUILD", "1");
    builder.environment().keySet().removeIf(name -> name.equals("LAKESTREAM_TOKEN"));
    Path out = files.resolve("launcher.out");
    Path err = files.resolve("launcher.err");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("launcher exited").isTrue();
    assertThat(process.exitValue()).as("exit code; stderr: %s", Files.readString(err)).isZero();
    assertThat(Files.readAllLines(out)).first().isEqualTo("namespace    | table | kind | buckets");
    assertThat(Files.readAllLines(out)).contains("cli_launcher | t     | log  |       1");

    ProcessBuilder help =
        new ProcessBuilder(ServerProcess.home().resolve("bin/lakestream").toString(), "--help");
    help.environment().put("LAKESTREAM_NO_BUILD", "1");
    Process helping = help.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(helping.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(helping.exitValue()).isZero();
    assertThat(Files.readString(out))
        .contains("bin/lakestream server [flags]")
        .containsPattern("(?m)^  produce  ")
        .containsPattern("(?m)^  doctor  ");

    ProcessBuilder missing =
        new ProcessBuilder(
            ServerProcess.home().resolve("bin/lakestream").toString(),
            "describe",
            "cli_launcher.missing",
            "--server",
            "lakestream://127.0.0.1:" + server.rpcPort());
    missing.environment().put("LAKESTREAM_NO_BUILD", "1");
    Process failing = missing.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(failing.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(failing.exitValue()).isEqualTo(1);
    assertThat(Files.readString(err))
        .isEqualTo("lakestream describe: Table cli_launcher.missing does not exist\n");
  }

  /**
   * bin/lakestream produce as a process, so with the distribution's classpath only (no Hadoop,
   * which the tests' own classpath has): snappy, gzip, zstd and uncompressed Parquet files.
   */
  @Test
  void launcherProducesParquetFilesOfEveryCodecWithTheDistributionAlone() throws Exception {
    assertOk(run("create", "cli_launcher.pq", "--kind", "log", "--schema", "id bigint, s string"));
    MessageType schema =
        Types.buildMessage()
            .optional(PrimitiveTypeName.INT64)
            .named("id")
            .optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named("s")
            .named("row");
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    List<String> command = new ArrayList<>();
    command.add(ServerProcess.home().resolve("bin/lakestream").toString());
    command.add("produce");
    command.add("cli_launcher.pq");
    long id = 0;
    for (CompressionCodecName codec :
        List.of(
            CompressionCodecName.SNAPPY,
            CompressionCodecName.GZIP,
            CompressionCodecName.ZSTD,
            CompressionCodecName.UNCOMPRESSED)) {
      Group row = groups.newGroup();
      row.add("id", ++id);
      row.add("s", codec.name().toLowerCase(java.util.Locale.ROOT));
      command.add(parquet(codec + ".parquet", schema, List.of(row), codec).toString());
    }
    command.addAll(Arrays.asList(addresses()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("LAKESTREAM_NO_BUILD", "1");
    builder.environment().keySet().removeIf(name -> name.equals("LAKESTREAM_TOKEN"));
    Path out = files.resolve("produce.out");
    Path err = files.resolve("produce.err");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("launcher exited").isTrue();
    assertThat(process.exitValue()).as("exit code; stderr: %s", Files.readString(err)).isZero();
    assertThat(Files.readString(out)).startsWith("Wrote 4 rows (");

    Run table = run("consume", "cli_launcher.pq", "--format", "csv");
    assertOk(table);
    assertThat(table.out()).isEqualTo("id,s\n1,snappy\n2,gzip\n3,zstd\n4,uncompressed\n");
  }

  /** The rows stored in an unpartitioned table's buckets, by their log end offsets. */
  private static long storedRows(String table, int buckets) {
    try (Connection connection = Connection.open("127.0.0.1", server.rpcPort())) {
      io.lakestream.client.Table target = connection.table(TablePath.of(table));
      long rows = 0;
      for (int bucket = 0; bucket < buckets; bucket++) {
        rows += target.latestOffset(bucket);
      }
      return rows;
    }
  }

  /**
   * A run of {@code bin/lakestream produce} killed with SIGKILL once some of its rows are stored,
   * then the same command again, then once more: every row of the file is stored exactly once, the
   * second run writes only what the first did not and the third writes nothing. With {@code
   * --allow-duplicates} the same file is stored again.
   */
  @Test
  void producingAFileAgainAfterAKilledRunStoresEachRowOnce() throws Exception {
    int buckets = 2;
    assertOk(
        run(
            "create",
            "cli_once.rows",
            "--kind",
            "log",
            "--buckets",
            Integer.toString(buckets),
            "--schema",
            "id bigint not null, name string"));
    int rows = 300_000;
    List<String> lines = new ArrayList<>(rows + 1);
    lines.add("id,name");
    for (int id = 0; id < rows; id++) {
      lines.add(id + ",row " + id);
    }
    Path csv = file("rows.csv", lines.toArray(String[]::new));

    List<String> command = new ArrayList<>();
    command.add(ServerProcess.home().resolve("bin/lakestream").toString());
    command.add("produce");
    command.add("cli_once.rows");
    command.add(csv.toString());
    command.addAll(Arrays.asList(addresses()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("LAKESTREAM_NO_BUILD", "1");
    builder.environment().keySet().removeIf(name -> name.equals("LAKESTREAM_TOKEN"));
    Process process =
        builder
            .redirectOutput(files.resolve("killed.out").toFile())
            .redirectError(files.resolve("killed.err").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (process.isAlive() && storedRows("cli_once.rows", buckets) == 0) {
      assertThat(System.nanoTime()).as("rows stored by the first run").isLessThan(deadline);
      process.waitFor(10, TimeUnit.MILLISECONDS);
    }
    process.destroyForcibly();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("killed run exited").isTrue();
    // Requests the killed run sent before it died may still be stored after it is gone: the count
    // now is a floor of what the second run finds stored.
    long storedByFirst = storedRows("cli_once.rows", buckets);
    assertThat(storedByFirst).as("rows stored by the killed run").isBetween(1L, (long) rows);

    Run second = run("produce", "cli_once.rows", csv.toString());
    assertOk(second);
    Matcher report =
        Pattern.compile(
                "^Wrote (\\d+) rows \\(.*; skipped (\\d+) rows an earlier run had stored already")
            .matcher(second.out());
    assertThat(report.find()).as("the second run's report: %s", second.out()).isTrue();
    long written = Long.parseLong(report.group(1));
    long skipped = Long.parseLong(report.group(2));
    assertThat(skipped).as("rows the second run skipped").isBetween(storedByFirst, (long) rows);
    assertThat(written).as("rows the second run wrote").isEqualTo(rows - skipped);
    assertThat(storedRows("cli_once.rows", buckets)).isEqualTo(rows);

    Run third = run("produce", "cli_once.rows", csv.toString());
    assertOk(third);
    assertThat(third.out())
        .startsWith("Wrote 0 rows (")
        .contains("; skipped " + rows + " rows an earlier run had stored already");
    assertThat(storedRows("cli_once.rows", buckets)).isEqualTo(rows);

    Run read = run("consume", "cli_once.rows", "--format", "csv", "--columns", "id");
    assertOk(read);
    List<String> ids = read.outLines().subList(1, read.outLines().size());
    assertThat(ids).hasSize(rows);
    assertThat(ids.stream().mapToLong(Long::parseLong).distinct().count()).isEqualTo(rows);

    Path small = file("small.csv", "id,name", "1,a", "2,b");
    assertOk(run("produce", "cli_once.rows", small.toString()));
    assertThat(run("produce", "cli_once.rows", small.toString()).out())
        .startsWith("Wrote 0 rows (");
    assertThat(run("produce", "cli_once.rows", "--allow-duplicates", small.toString()).out())
        .startsWith("Wrote 2 rows (");
    assertThat(storedRows("cli_once.rows", buckets)).isEqualTo(rows + 4);
  }
}
