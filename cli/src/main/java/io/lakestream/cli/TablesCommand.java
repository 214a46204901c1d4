package io.lakestream.cli;

import io.lakestream.client.Admin;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescription;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tables [NAMESPACE]}: namespaces and their tables, with each table's kind and buckets. */
@Command(
    name = "tables",
    mixinStandardHelpOptions = true,
    description = {
      "Lists every namespace and its tables, or one namespace's tables, with each table's kind"
          + " (log, primary-key, or iceberg for a plain Iceberg table) and bucket count.",
      "Listing every namespace asks the REST catalog (--catalog); the rest goes over the stream"
          + " RPC (--server)."
    })
final class TablesCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Parameters(arity = "0..1", paramLabel = "NAMESPACE", description = "Only this namespace")
  String namespace;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table, csv or jsonl (default: ${DEFAULT-VALUE})")
  String format;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    RowPrinter.Format outputFormat = RowPrinter.Format.parse(format);
    List<List<String>> namespaces =
        namespace != null
            ? List.of(Tables.namespace(namespace))
            : new CatalogClient(server.catalogUri(), server.token()).allNamespaces();
    RowPrinter printer =
        new RowPrinter(
            spec.commandLine().getOut(),
            outputFormat,
            List.of(
                new RowPrinter.Column("namespace", false),
                new RowPrinter.Column("table", false),
                new RowPrinter.Column("kind", false),
                new RowPrinter.Column("buckets", true)));
    try (Connection connection = server.connect()) {
      Admin admin = connection.admin();
      for (List<String> levels : namespaces) {
        String dotted = String.join(".", levels);
        List<String> names;
        try {
          names = admin.listTables(null, levels);
        } catch (RpcException e) {
          if (e.error() == ErrorCode.UNKNOWN_NAMESPACE) {
            throw new CliFailure("Namespace " + dotted + " does not exist", e);
          }
          throw e;
        }
        if (names.isEmpty() && namespace == null) {
          printer.add(new String[] {dotted, "", "", null});
        }
        for (String name : names) {
          TableDescription description = admin.describe(new TablePath(null, levels, name));
          printer.add(
              new String[] {
                dotted,
                name,
                description.kind().map(TableKind::value).orElse("iceberg"),
                description.properties().get(LakestreamProperties.BUCKETS)
              });
        }
      }
    }
    printer.flush();
    return LakestreamCli.EXIT_OK;
  }
}
