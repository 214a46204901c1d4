package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import io.lakestream.client.Table;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.RpcException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lookup TABLE KEY...}: the rows of primary keys. */
@Command(
    name = "lookup",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the current row of each primary key of a primary-key table. A key of several"
          + " columns is given as their values in key order, separated by commas (1,eu).",
      "Keys without a row are named on stderr, one line each, and the command exits 1 after"
          + " printing the rows it found."
    })
final class LookupCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY", description = "Primary keys")
  List<String> keys;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table, csv or jsonl (default: ${DEFAULT-VALUE})")
  String format;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    TablePath path = Tables.path(table);
    RowPrinter.Format outputFormat = RowPrinter.Format.parse(format);
    List<String> missing = new ArrayList<>();
    try (Connection connection = server.connect()) {
      Table target = Tables.open(connection, path);
      if (!TableKind.PRIMARY_KEY.is(target.kind())) {
        throw new UsageError(
            "Table "
                + path
                + " is a "
                + target.kind()
                + " table; lookup needs a primary-key table");
      }
      List<Field> fields = target.rowSchema(target.schemaId()).getFields();
      List<String> keyColumns = target.primaryKey();
      List<Field> keyFields = new ArrayList<>();
      for (String column : keyColumns) {
        keyFields.add(
            fields.stream()
                .filter(field -> field.getName().equals(column))
                .findFirst()
                .orElseThrow());
      }
      Lookuper lookuper = target.newLookuper();
      List<CompletableFuture<Object[]>> results = new ArrayList<>();
      for (String key : keys) {
        results.add(lookuper.lookup(keyValues(key, keyFields)));
      }
      RowPrinter printer =
          new RowPrinter(
              spec.commandLine().getOut(),
              outputFormat,
              fields.stream()
                  .map(field -> new RowPrinter.Column(field.getName(), Values.isJsonLiteral(field)))
                  .toList());
      for (int i = 0; i < keys.size(); i++) {
        Object[] row;
        try {
          row = results.get(i).get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RpcException rpc) {
            throw rpc;
          }
          throw new CliFailure("Lookup of key " + keys.get(i) + " failed: " + e.getCause(), e);
        }
        if (row == null) {
          missing.add(keys.get(i));
          continue;
        }
        String[] values = new String[fields.size()];
        for (int column = 0; column < values.length; column++) {
          values[column] = Values.format(fields.get(column), row[column]);
        }
        printer.add(values);
      }
      printer.flush();
    }
    for (String key : missing) {
      spec.commandLine()
          .getErr()
          .println("lakestream lookup: no row for key " + key + " in " + path);
    }
    spec.commandLine().getErr().flush();
    return missing.isEmpty() ? LakestreamCli.EXIT_OK : LakestreamCli.EXIT_FAILURE;
  }

  private static Object[] keyValues(String key, List<Field> keyFields) {
    List<String> parts = keyFields.size() == 1 ? List.of(key) : List.of(key.split(",", -1));
    if (parts.size() != keyFields.size()) {
      throw new UsageError(
          "Key '"
              + key
              + "' has "
              + parts.size()
              + " values; the primary key has "
              + keyFields.size()
              + " columns "
              + keyFields.stream().map(Field::getName).toList());
    }
    Object[] values = new Object[parts.size()];
    for (int i = 0; i < values.length; i++) {
      try {
        values[i] = Values.parse(keyFields.get(i), parts.get(i));
      } catch (IllegalArgumentException e) {
        throw new UsageError("Invalid key '" + key + "': " + e.getMessage());
      }
    }
    return values;
  }
}
