package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drop TABLE}: drops a table and its stream data. */
@Command(
    name = "drop",
    mixinStandardHelpOptions = true,
    description = {
      "Drops a table from the catalog and its stream data; the lake table's files stay unless"
          + " --purge.",
      "A table that does not exist fails (exit 1) unless --if-exists."
    })
final class DropCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @Option(names = "--purge", description = "Also delete the table's files")
  boolean purge;

  @Option(names = "--if-exists", description = "Succeed when there is no such table")
  boolean ifExists;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    TablePath path = Tables.path(table);
    try (Connection connection = server.connect()) {
      boolean dropped = connection.admin().dropTable(path, purge);
      if (!dropped && !ifExists) {
        throw new CliFailure("Table " + path + " does not exist");
      }
      spec.commandLine()
          .getOut()
          .println(dropped ? "Dropped " + path : "Table " + path + " did not exist");
      spec.commandLine().getOut().flush();
    }
    return LakestreamCli.EXIT_OK;
  }
}
