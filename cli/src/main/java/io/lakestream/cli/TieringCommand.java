package io.lakestream.cli;

import io.lakestream.client.Admin;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescription;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.RpcException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code tiering status [TABLE]}: how far the lake tables are behind their logs. */
@Command(
    name = "tiering",
    mixinStandardHelpOptions = true,
    description = "Tiering of streaming tables into the lake.",
    subcommands = {TieringCommand.Status.class})
final class TieringCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing a subcommand");
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = {
        "Without TABLE: every streaming table (namespaces from the REST catalog) with its rows in"
            + " the log (high watermarks summed), rows not tiered yet (lag) and buckets tiered at"
            + " least once.",
        "With TABLE: per bucket its high watermark, tiered offset (the next offset to tier; -1"
            + " when nothing was tiered) and lag, and the table's tiering interval."
      })
  static final class Status implements Callable<Integer> {
    @Mixin ServerOptions server;

    @Parameters(arity = "0..1", paramLabel = "TABLE", description = "namespace.table")
    String table;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (Connection connection = server.connect()) {
        Admin admin = connection.admin();
        if (table != null) {
          TablePath path = Tables.path(table);
          TableDescription description;
          try {
            description = admin.describe(path);
          } catch (RpcException e) {
            throw Tables.notFound(path, e);
          }
          if (description.kind().isEmpty()) {
            throw new CliFailure("Table " + path + " is a plain Iceberg table; it is not tiered");
          }
          out.println(
              "Table "
                  + path
                  + ": lag "
                  + description.totalLag()
                  + " rows, tiering interval "
                  + description
                      .properties()
                      .getOrDefault(LakestreamProperties.TIERING_INTERVAL, "(server default)"));
          RowPrinter buckets =
              new RowPrinter(
                  out,
                  RowPrinter.Format.TABLE,
                  List.of(
                      new RowPrinter.Column("partition", false),
                      new RowPrinter.Column("bucket", true),
                      new RowPrinter.Column("latest", true),
                      new RowPrinter.Column("tiered", true),
                      new RowPrinter.Column("lag", true)));
          description
              .buckets()
              .forEach(
                  (bucket, status) ->
                      buckets.add(
                          new String[] {
                            bucket.partition(),
                            Integer.toString(bucket.bucket()),
                            Long.toString(status.latestOffset()),
                            Long.toString(status.tieredOffset()),
                            Long.toString(status.lag())
                          }));
          buckets.flush();
          return LakestreamCli.EXIT_OK;
        }
        RowPrinter tables =
            new RowPrinter(
                out,
                RowPrinter.Format.TABLE,
                List.of(
                    new RowPrinter.Column("table", false),
                    new RowPrinter.Column("kind", false),
                    new RowPrinter.Column("log rows", true),
                    new RowPrinter.Column("lag", true),
                    new RowPrinter.Column("buckets tiered", false)));
        for (List<String> namespace :
            new CatalogClient(server.catalogUri(), server.token()).allNamespaces()) {
          for (String name : admin.listTables(null, namespace)) {
            TableDescription description = admin.describe(new TablePath(null, namespace, name));
            if (description.kind().isEmpty()) {
              continue;
            }
            long rows = 0;
            long tiered = 0;
            for (TableDescription.BucketStatus status : description.buckets().values()) {
              rows += status.latestOffset();
              tiered += status.tieredOffset() >= 0 ? 1 : 0;
            }
            tables.add(
                new String[] {
                  description.path().toString(),
                  description.kind().map(TableKind::value).orElseThrow(),
                  Long.toString(rows),
                  Long.toString(description.totalLag()),
                  tiered + "/" + description.buckets().size()
                });
          }
        }
        tables.flush();
      }
      return LakestreamCli.EXIT_OK;
    }
  }
}
