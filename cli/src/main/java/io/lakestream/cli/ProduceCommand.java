package io.lakestream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.PreparedBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.client.rpc.RpcException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code produce TABLE FILE...}: writes rows from CSV, JSON-lines and Parquet files. */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description = {
      "Writes the rows of CSV, JSON-lines and Parquet files to a log table (appends) or a primary-key"
          + " table (upserts), file by file in the order given.",
      "CSV: the first row names the columns (any order, any subset; a missing column is null);"
          + " an unquoted empty field is null, \"\" the empty string. JSON lines: one object per"
          + " line, keys naming columns. Parquet: top-level columns mapped by name (int32, int64,"
          + " float, double, boolean, binary, UTF-8 strings, date, time, timestamps, decimal)."
          + " The format comes from the extension (.csv; .json, .jsonl, .ndjson; .parquet) or"
          + " --input-format; '-' reads standard input (not for Parquet).",
      "Values: numbers, true/false, YYYY-MM-DD dates, ISO-8601 timestamps (UTC when without"
          + " zone) or microseconds since 1970, hex for binary.",
      "All or nothing per file: each file is read, checked and converted in full (held in"
          + " memory) before the first of its rows is sent. A malformed line fails the command"
          + " (exit 1) with a message naming the file and line (Parquet: row and column), and nothing of that file is"
          + " written; the files before it were written in full, the files after it are not"
          + " read.",
      "Idempotent on retry: a batch whose answer was lost is resent and stored once, and"
          + " running the same command again never stores a row twice. Into a log table, each"
          + " file is written by a writer whose id is derived from the table, the file's name"
          + " and its rows, so the batches of a second run are the very same batches and the"
          + " server skips those it holds (as long as it still remembers the writer: until the"
          + " log segments holding them are deleted by retention). After a failure, run the"
          + " same command again: it writes what is missing; the summary counts the rows"
          + " skipped. Upserts into a primary-key table are idempotent by their key.",
      "Progress (rows, rows/s, bytes) goes to stderr when it is a terminal; a summary line to"
          + " stdout."
    })
final class ProduceCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PROGRESS_INTERVAL_NANOS = 200_000_000L;

  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "FILE", description = "Input files")
  List<String> files;

  @Option(
      names = "--input-format",
      paramLabel = "FORMAT",
      description = "csv, jsonl or parquet, for every file (default: by extension)")
  String inputFormat;

  @Option(names = "--no-progress", description = "Never print progress")
  boolean noProgress;

  @Option(
      names = "--allow-duplicates",
      description =
          "Log tables: append the rows even if an earlier run stored them already (a random"
              + " writer id), e.g. to load one file twice on purpose")
  boolean allowDuplicates;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  private long rowsWritten;
  private long rowsSkipped;
  // Rows of the files done, for progress: rowsWritten and rowsSkipped grow as batches are answered.
  private long rowsDone;
  private long bytesWritten;
  private long startNanos;
  private long lastProgressNanos;

  @Override
  public Integer call() throws IOException {
    TablePath path = Tables.path(table);
    for (String file : files) {
      format(file);
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean progress = !noProgress && Terminal.isStderrTerminal();
    List<String> written = new ArrayList<>();
    startNanos = System.nanoTime();
    try (Connection connection = server.connect()) {
      Table target = Tables.open(connection, path);
      boolean primaryKey = TableKind.PRIMARY_KEY.is(target.kind());
      Schema schema =
          primaryKey ? target.rowSchema(target.schemaId()) : target.arrowSchema(target.schemaId());
      try {
        for (String file : files) {
          long size = file.equals("-") ? 0 : sizeOf(file);
          List<Object[]> rows = read(file, schema);
          long rowsBefore = rowsWritten;
          long skippedBefore = rowsSkipped;
          try (Writer writer =
              primaryKey
                  ? upserts(target)
                  : new IdempotentAppends(
                      target,
                      allowDuplicates
                          ? randomWriterId()
                          : ProduceWriterIds.of(target, file, rows))) {
            long index = 0;
            for (Object[] row : rows) {
              writer.write(row);
              index++;
              if (progress) {
                showProgress(
                    rowsDone + index,
                    bytesWritten + (rows.isEmpty() ? 0 : size * index / rows.size()));
              }
            }
            writer.flush();
          }
          bytesWritten += size;
          rowsDone += rows.size();
          long skipped = rowsSkipped - skippedBefore;
          written.add(
              file
                  + " ("
                  + (rowsWritten - rowsBefore)
                  + " rows"
                  + (skipped == 0 ? "" : ", " + skipped + " already stored")
                  + ")");
        }
      } catch (CliFailure e) {
        if (!written.isEmpty()) {
          throw new CliFailure(e.getMessage() + "; written before: " + String.join(", ", written));
        }
        throw e;
      } catch (RpcException e) {
        throw new CliFailure(
            "Writing to "
                + path
                + " failed: "
                + e.getMessage()
                + " ("
                + e.error()
                + "); written in full before: "
                + (written.isEmpty() ? "nothing" : String.join(", ", written)),
            e);
      }
    }
    if (progress) {
      System.err.print("\r\033[K");
      System.err.flush();
    }
    double seconds = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
    out.printf(
        Locale.ROOT,
        "Wrote %d rows (%s) from %d file%s to %s in %.1f s (%.0f rows/s)%s%n",
        rowsWritten,
        bytes(bytesWritten),
        files.size(),
        files.size() == 1 ? "" : "s",
        path,
        seconds,
        (rowsWritten + rowsSkipped) / seconds,
        rowsSkipped == 0
            ? ""
            : "; skipped " + rowsSkipped + " rows an earlier run had stored already");
    out.flush();
    return LakestreamCli.EXIT_OK;
  }

  private void showProgress(long rows, long bytes) {
    long now = System.nanoTime();
    if (now - lastProgressNanos < PROGRESS_INTERVAL_NANOS) {
      return;
    }
    lastProgressNanos = now;
    double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
    System.err.printf(
        Locale.ROOT, "\r\033[K%d rows, %.0f rows/s, %s", rows, rows / seconds, bytes(bytes));
    System.err.flush();
  }

  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }

  private static long sizeOf(String file) {
    try {
      return Files.size(Path.of(file));
    } catch (IOException e) {
      return 0;
    }
  }

  private String format(String file) {
    if (inputFormat != null) {
      String format = inputFormat.toLowerCase(Locale.ROOT);
      if (!format.equals("csv") && !format.equals("jsonl") && !format.equals("parquet")) {
        throw new UsageError(
            "Unknown --input-format '" + inputFormat + "': expected csv, jsonl or parquet");
      }
      if (format.equals("parquet") && file.equals("-")) {
        throw new UsageError("Parquet input cannot be read from standard input ('-')");
      }
      return format;
    }
    String lower = file.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".csv")) {
      return "csv";
    }
    if (lower.endsWith(".json") || lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) {
      return "jsonl";
    }
    if (lower.endsWith(".parquet")) {
      return "parquet";
    }
    throw new UsageError(
        "Cannot tell the format of '"
            + file
            + "' by its name: use --input-format csv|jsonl|parquet");
  }

  /**
   * Reads, checks and converts every row of a file.
   *
   * @throws CliFailure naming the file and line of the first malformed line
   */
  private List<Object[]> read(String file, Schema schema) throws IOException {
    Map<String, Integer> positions = new HashMap<>();
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      positions.put(fields.get(i).getName(), i);
    }
    if (format(file).equals("parquet")) {
      return ParquetInput.read(file, fields, positions);
    }
    try (Reader reader = open(file)) {
      return format(file).equals("csv")
          ? readCsv(file, reader, fields, positions)
          : readJsonLines(file, reader, fields, positions);
    }
  }

  private Reader open(String file) throws IOException {
    if (file.equals("-")) {
      return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }
    try {
      return Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CliFailure("No such file: " + file);
    }
  }

  private static List<Object[]> readCsv(
      String file, Reader reader, List<Field> fields, Map<String, Integer> positions)
      throws IOException {
    CsvReader csv = new CsvReader(reader);
    List<String> header;
    try {
      header = csv.next();
    } catch (IllegalArgumentException e) {
      throw new CliFailure(file + " line " + csv.recordLine() + ": " + e.getMessage());
    }
    if (header == null) {
      return List.of();
    }
    int[] columns = new int[header.size()];
    for (int i = 0; i < columns.length; i++) {
      String name = header.get(i) == null ? "" : header.get(i).trim();
      Integer position = positions.get(name);
      if (position == null) {
        throw new CliFailure(
            file
                + " line "
                + csv.recordLine()
                + ": header names column '"
                + name
                + "', which the table does not have (it has "
                + positions.keySet().stream().sorted().toList()
                + ")");
      }
      columns[i] = position;
    }
    List<Object[]> rows = new ArrayList<>();
    while (true) {
      List<String> record;
      try {
        record = csv.next();
      } catch (IllegalArgumentException e) {
        throw new CliFailure(file + " line " + csv.recordLine() + ": " + e.getMessage());
      }
      if (record == null) {
        return rows;
      }
      int line = csv.recordLine();
      if (record.size() != columns.length) {
        throw new CliFailure(
            file
                + " line "
                + line
                + ": "
                + record.size()
                + " fields, but the header has "
                + columns.length);
      }
      Object[] row = new Object[fields.size()];
      for (int i = 0; i < columns.length; i++) {
        String text = record.get(i);
        if (text == null) {
          continue;
        }
        Field field = fields.get(columns[i]);
        try {
          row[columns[i]] =
              field.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8
                  ? text
                  : Values.parse(field, text);
        } catch (IllegalArgumentException e) {
          throw new CliFailure(file + " line " + line + ": " + e.getMessage());
        }
      }
      checkRequired(file, line, fields, row);
      rows.add(row);
    }
  }

  private static List<Object[]> readJsonLines(
      String file, Reader reader, List<Field> fields, Map<String, Integer> positions)
      throws IOException {
    BufferedReader lines = new BufferedReader(reader);
    List<Object[]> rows = new ArrayList<>();
    int line = 0;
    String text;
    while ((text = lines.readLine()) != null) {
      line++;
      if (text.isBlank()) {
        continue;
      }
      JsonNode object;
      try {
        object = JSON.readTree(text);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new CliFailure(
            file
                + " line "
                + line
                + ": not JSON ("
                + LakestreamCli.oneLine(e.getOriginalMessage())
                + ")");
      }
      if (object == null || !object.isObject()) {
        throw new CliFailure(file + " line " + line + ": expected a JSON object");
      }
      Object[] row = new Object[fields.size()];
      for (Map.Entry<String, JsonNode> entry : object.properties()) {
        Integer position = positions.get(entry.getKey());
        if (position == null) {
          throw new CliFailure(
              file
                  + " line "
                  + line
                  + ": key '"
                  + entry.getKey()
                  + "' names no column of the table (it has "
                  + positions.keySet().stream().sorted().toList()
                  + ")");
        }
        try {
          row[position] = Values.parse(fields.get(position), entry.getValue());
        } catch (IllegalArgumentException e) {
          throw new CliFailure(file + " line " + line + ": " + e.getMessage());
        }
      }
      checkRequired(file, line, fields, row);
      rows.add(row);
    }
    return rows;
  }

  private static void checkRequired(String file, int line, List<Field> fields, Object[] row) {
    for (int i = 0; i < row.length; i++) {
      if (row[i] == null && !fields.get(i).isNullable()) {
        throw new CliFailure(
            file
                + " line "
                + line
                + ": column "
                + fields.get(i).getName()
                + " is required (not null)");
      }
    }
  }

  /** Appends or upserts. */
  private interface Writer extends AutoCloseable {
    void write(Object[] row);

    void flush();

    @Override
    void close();
  }

  private static long randomWriterId() {
    return new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
  }

  /**
   * Appends through a preparing writer with the given id, sending its batches every {@link
   * #SEND_ROWS} rows with {@link Table#sendInOrder}: the batches are cut at the same rows on every
   * run, so a second run of the same rows sends the same batches, and the server stores only those
   * it does not hold. One group of batches is in flight while the next is encoded.
   */
  private final class IdempotentAppends implements Writer {
    private static final int SEND_ROWS = 8 * WriterOptions.DEFAULT_BATCH_ROWS;

    private final Table table;
    private final AppendWriter writer;
    private CompletableFuture<Void> sending = CompletableFuture.completedFuture(null);
    private int unsent;

    IdempotentAppends(Table table, long writerId) {
      this.table = table;
      this.writer = table.newPreparingAppendWriter(ProduceWriterIds.OPTIONS, writerId);
    }

    @Override
    public void write(Object[] row) {
      writer.append(row);
      if (++unsent == SEND_ROWS) {
        send();
      }
    }

    private void send() {
      List<PreparedBatch> batches = writer.prepare();
      unsent = 0;
      awaitSending();
      sending =
          table
              .sendInOrder(batches)
              .thenAccept(
                  outcomes -> {
                    for (int i = 0; i < outcomes.size(); i++) {
                      long rows = batches.get(i).rowCount();
                      if (outcomes.get(i) == PreparedBatch.Outcome.ALREADY_STORED) {
                        rowsSkipped += rows;
                      } else {
                        rowsWritten += rows;
                      }
                    }
                  });
    }

    private void awaitSending() {
      try {
        sending.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RpcException rpc) {
          throw rpc;
        }
        throw e;
      }
    }

    @Override
    public void flush() {
      send();
      awaitSending();
    }

    @Override
    public void close() {
      writer.close();
    }
  }

  private Writer upserts(Table table) {
    UpsertWriter writer = table.newUpsertWriter();
    return new Writer() {
      @Override
      public void write(Object[] row) {
        writer.upsert(row);
        rowsWritten++;
      }

      @Override
      public void flush() {
        writer.flush();
      }

      @Override
      public void close() {
        writer.close();
      }
    };
  }
}
