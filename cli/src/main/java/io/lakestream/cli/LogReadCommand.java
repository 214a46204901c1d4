package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.BatchFilter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code consume} and {@code tail} share: read every bucket of a table's log from a start,
 * print the rows, and stop once caught up (consume) or go on waiting for new rows (tail, or {@code
 * --follow}). A primary-key table's changelog is read, with each row's change type ({@code +I},
 * {@code -U}, {@code +U}, {@code -D}) in a first column {@code op}.
 */
abstract class LogReadCommand implements Callable<Integer> {
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);

  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "COLUMNS",
      description = "Only these columns, comma-separated (default: all)")
  List<String> columns;

  @Option(
      names = "--from",
      paramLabel = "START",
      description =
          "earliest, latest, an offset (in every bucket) or an ISO-8601 instant such as"
              + " 2026-01-31T12:00:00Z (default: earliest for consume, latest for tail)")
  String from;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Stop after N rows (default: no limit)")
  Long limit;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table, csv or jsonl (default: ${DEFAULT-VALUE})")
  String format;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /** The start when --from is not given. */
  abstract String defaultFrom();

  /** Whether to go on reading after catching up. */
  abstract boolean follow();

  @Override
  public Integer call() {
    TablePath path = Tables.path(table);
    RowPrinter.Format outputFormat = RowPrinter.Format.parse(format);
    LogScanner.Start start = start(from == null ? defaultFrom() : from);
    if (limit != null && limit < 0) {
      throw new UsageError("--limit must be 0 or more, got " + limit);
    }
    try (Connection connection = server.connect()) {
      Table target = Tables.open(connection, path);
      List<Field> all = target.rowSchema(target.schemaId()).getFields();
      List<String> names = all.stream().map(Field::getName).toList();
      List<String> selected = columns == null ? List.of() : columns;
      for (String column : selected) {
        if (!names.contains(column)) {
          throw new UsageError(
              "Table " + path + " has no column '" + column + "' (it has " + names + ")");
        }
      }
      List<Field> fields =
          selected.isEmpty()
              ? all
              : selected.stream().map(name -> all.get(names.indexOf(name))).toList();
      boolean changelog = TableKind.PRIMARY_KEY.is(target.kind());
      List<RowPrinter.Column> printed = new ArrayList<>();
      if (changelog) {
        printed.add(new RowPrinter.Column("op", false));
      }
      fields.forEach(
          field ->
              printed.add(new RowPrinter.Column(field.getName(), Values.isJsonLiteral(field))));
      RowPrinter printer = new RowPrinter(spec.commandLine().getOut(), outputFormat, printed);
      long printedRows = 0;
      try (LogScanner scanner = target.newScanner(selected, BatchFilter.MATCH_ALL)) {
        scanner.subscribeAll(start);
        boolean done = limit != null && limit == 0;
        while (!done) {
          for (ScanBatch batch : scanner.poll(POLL_TIMEOUT)) {
            try (batch) {
              for (int row = 0; row < batch.rowCount() && !done; row++) {
                printer.add(row(batch, row, fields, changelog));
                printedRows++;
                done = limit != null && printedRows >= limit;
              }
            }
          }
          printer.flush();
          if (!follow() && scanner.caughtUp()) {
            done = true;
          }
        }
      }
      printer.flush();
    }
    return LakestreamCli.EXIT_OK;
  }

  private static String[] row(ScanBatch batch, int row, List<Field> fields, boolean changelog) {
    String[] values = new String[fields.size() + (changelog ? 1 : 0)];
    int column = 0;
    if (changelog) {
      values[column++] = batch.changeType(row).shortString();
    }
    for (Field field : fields) {
      FieldVector vector = batch.root().getVector(field.getName());
      values[column++] = vector == null ? null : Values.format(field, ArrowValues.get(vector, row));
    }
    return values;
  }

  private static LogScanner.Start start(String text) {
    if (text.equals("earliest")) {
      return LogScanner.earliest();
    }
    if (text.equals("latest")) {
      return LogScanner.latest();
    }
    if (text.matches("[0-9]+")) {
      return LogScanner.offset(Long.parseLong(text));
    }
    try {
      return LogScanner.timestamp(Instant.parse(text).toEpochMilli());
    } catch (DateTimeParseException e) {
      throw new UsageError(
          "Invalid --from '"
              + text
              + "': expected earliest, latest, an offset or an ISO-8601 instant");
    }
  }
}
