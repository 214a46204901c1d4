package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The parts of the command line that need no server: parsing of schemas, CSV and settings, output
 * formats, and the exit codes of bad usage and of a server that is not there.
 */
class CommandLineTest {
  @TempDir Path directory;

  @BeforeEach
  void noEnvironment() {
    ServerOptions.environment = Map.of();
  }

  @AfterEach
  void restoreEnvironment() {
    ServerOptions.environment = System.getenv();
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = LakestreamCli.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return new Run(commandLine.execute(args), out.toString(), err.toString());
  }

  @Test
  void usageErrorsExitWithTwo() {
    Run missingCommand = run();
    assertThat(missingCommand.exitCode()).isEqualTo(2);
    assertThat(missingCommand.err())
        .isEqualTo("lakestream: Missing a command\nTry 'lakestream --help'.\n");
    Run unknownOption = run("tables", "--bogus");
    assertThat(unknownOption.exitCode()).isEqualTo(2);
    assertThat(unknownOption.err())
        .isEqualTo(
            "lakestream tables: Unknown option: '--bogus'\nTry 'lakestream tables --help'.\n");
    Run badBuckets =
        run("create", "a.b", "--kind", "log", "--schema", "id bigint", "--buckets", "0");
    assertThat(badBuckets.exitCode()).isEqualTo(2);
    assertThat(badBuckets.err()).startsWith("lakestream create: Invalid bucket count 0");
    Run noFormat = run("produce", "a.b", "rows.txt");
    assertThat(noFormat.exitCode()).isEqualTo(2);
    assertThat(noFormat.err())
        .isEqualTo(
            "lakestream produce: Cannot tell the format of 'rows.txt' by its name: use"
                + " --input-format csv|jsonl|parquet\n");
    Run parquetStdin = run("produce", "a.b", "-", "--input-format", "parquet");
    assertThat(parquetStdin.exitCode()).isEqualTo(2);
    assertThat(parquetStdin.err())
        .startsWith("lakestream produce: Parquet input cannot be read from standard input ('-')\n");
  }

  @Test
  void aServerThatIsNotThereExitsWithOne() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Run run = run("describe", "a.b", "--server", "lakestream://127.0.0.1:" + port);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("lakestream describe: Cannot connect to 127.0.0.1:" + port)
        .endsWith("(NETWORK_ERROR)\n");
    assertThat(run.err().split("\n")).hasSize(1);
  }

  @Test
  void settingsComeFromFlagThenEnvironmentThenProfileThenDefaults() throws IOException {
    Path profile = directory.resolve("profile");
    Files.writeString(
        profile, "server=lakestream://10.0.0.1:1000\ncatalog=http://10.0.0.1:2000\ntoken=p\n");
    ServerOptions options = new ServerOptions();
    options.profile = profile;
    assertThat(options.serverUri()).isEqualTo("lakestream://10.0.0.1:1000");
    assertThat(options.catalogUri()).isEqualTo("http://10.0.0.1:2000");
    assertThat(options.flightAddress()).isEqualTo("10.0.0.1:32010");
    assertThat(options.token()).isEqualTo("p");

    ServerOptions.environment =
        Map.of("LAKESTREAM_SERVER", "lakestream://10.0.0.2:1000", "LAKESTREAM_TOKEN", "e");
    assertThat(options.serverUri()).isEqualTo("lakestream://10.0.0.2:1000");
    assertThat(options.token()).isEqualTo("e");
    options.server = "lakestream://10.0.0.3:1000";
    options.token = "f";
    assertThat(options.serverUri()).isEqualTo("lakestream://10.0.0.3:1000");
    assertThat(options.token()).isEqualTo("f");

    ServerOptions.environment = Map.of();
    ServerOptions defaults = new ServerOptions();
    defaults.profile = directory.resolve("empty");
    Files.writeString(defaults.profile, "");
    assertThat(defaults.serverUri()).isEqualTo("lakestream://127.0.0.1:9123");
    assertThat(defaults.catalogUri()).isEqualTo("http://127.0.0.1:8181");
    assertThat(defaults.flightAddress()).isEqualTo("127.0.0.1:32010");
    assertThat(defaults.token()).isNull();

    ServerOptions missing = new ServerOptions();
    missing.profile = directory.resolve("no-such-profile");
    assertThatThrownBy(missing::serverUri)
        .isInstanceOf(CliFailure.class)
        .hasMessageStartingWith("Cannot read the profile " + missing.profile);
  }

  @Test
  void parsesSchemasAndPartitionSpecs() {
    Schema schema =
        SchemaSpec.parse(
            "id bigint not null, name string, price decimal(10, 2), at timestamptz, day date");
    assertThat(schema.asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get()),
                Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)),
                Types.NestedField.optional(4, "at", Types.TimestampType.withZone()),
                Types.NestedField.optional(5, "day", Types.DateType.get())));
    PartitionSpec spec = SchemaSpec.partitionSpec(schema, "name, day(at)");
    assertThat(spec.fields()).hasSize(2);
    assertThat(spec.fields().get(0).transform().toString()).isEqualTo("identity");
    assertThat(spec.fields().get(0).sourceId()).isEqualTo(2);
    assertThat(spec.fields().get(1).transform().toString()).isEqualTo("day");
    assertThat(spec.fields().get(1).sourceId()).isEqualTo(4);

    assertThatThrownBy(() -> SchemaSpec.parse("id bigint, id int"))
        .isInstanceOf(UsageError.class)
        .hasMessage("Column 'id' appears twice in --schema");
    assertThatThrownBy(() -> SchemaSpec.parse("id"))
        .isInstanceOf(UsageError.class)
        .hasMessage("Invalid column 'id' in --schema: expected 'name type [not null]'");
    assertThatThrownBy(() -> SchemaSpec.partitionSpec(schema, "colour"))
        .isInstanceOf(UsageError.class)
        .hasMessage("--partition-by names column 'colour', which --schema lacks");
  }

  @Test
  void readsCsvRecordsWithQuotesNullsAndLineNumbers() throws IOException {
    CsvReader csv =
        new CsvReader(
            new StringReader("a,b\r\n1,\"x, \"\"y\"\"\"\n\n2,\n3,\"two\nlines\"\n4,\"\"\n"));
    List<List<String>> records = new ArrayList<>();
    List<Integer> lines = new ArrayList<>();
    List<String> record;
    while ((record = csv.next()) != null) {
      records.add(record);
      lines.add(csv.recordLine());
    }
    assertThat(records)
        .containsExactly(
            List.of("a", "b"),
            List.of("1", "x, \"y\""),
            Arrays.asList("2", null),
            List.of("3", "two\nlines"),
            List.of("4", ""));
    assertThat(lines).containsExactly(1, 2, 4, 5, 7);

    CsvReader unclosed = new CsvReader(new StringReader("a\n\"open\n"));
    unclosed.next();
    assertThatThrownBy(unclosed::next).hasMessage("the quote opened on line 2 is not closed");
    CsvReader stray = new CsvReader(new StringReader("a\"b\n"));
    assertThatThrownBy(stray::next).hasMessage("a quote inside an unquoted field");
  }

  @Test
  void printsTablesCsvAndJsonLines() {
    List<RowPrinter.Column> columns =
        List.of(new RowPrinter.Column("id", true), new RowPrinter.Column("name", false));
    StringWriter table = new StringWriter();
    RowPrinter tablePrinter =
        new RowPrinter(new PrintWriter(table), RowPrinter.Format.TABLE, columns);
    tablePrinter.add(new String[] {"7", "seven"});
    tablePrinter.add(new String[] {"1000", null});
    tablePrinter.flush();
    assertThat(table.toString())
        .isEqualTo("id   | name\n-----+------\n   7 | seven\n1000 | NULL\n");

    StringWriter csv = new StringWriter();
    RowPrinter csvPrinter = new RowPrinter(new PrintWriter(csv), RowPrinter.Format.CSV, columns);
    csvPrinter.add(new String[] {"1", "a,\"b\""});
    csvPrinter.add(new String[] {null, ""});
    csvPrinter.flush();
    assertThat(csv.toString()).isEqualTo("id,name\n1,\"a,\"\"b\"\"\"\n,\"\"\n");

    StringWriter json = new StringWriter();
    RowPrinter jsonPrinter =
        new RowPrinter(new PrintWriter(json), RowPrinter.Format.JSONL, columns);
    jsonPrinter.add(new String[] {"1.50", "x"});
    jsonPrinter.add(new String[] {null, "1"});
    jsonPrinter.flush();
    assertThat(json.toString())
        .isEqualTo("{\"id\":1.50,\"name\":\"x\"}\n{\"id\":null,\"name\":\"1\"}\n");
  }

  @Test
  void doctorFindsTheWarehouseLocationInTheConfigResponse() throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(
            DoctorCommand.warehouseLocation(
                json.readTree(
                    "{\"defaults\":{\"warehouse\":\"file:/d/w\"},"
                        + "\"overrides\":{\"warehouse\":\"s3://b/w\"}}")))
        .isEqualTo("s3://b/w");
    assertThat(
            DoctorCommand.warehouseLocation(
                json.readTree("{\"defaults\":{\"warehouse\":\"file:/d/w\"},\"overrides\":{}}")))
        .isEqualTo("file:/d/w");
    // A bare warehouse name (the prefix) is no location.
    assertThat(
            DoctorCommand.warehouseLocation(
                json.readTree("{\"defaults\":{},\"overrides\":{\"prefix\":\"main\"}}")))
        .isNull();
  }
}
