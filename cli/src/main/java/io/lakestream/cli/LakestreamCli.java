package io.lakestream.cli;

import io.lakestream.client.rpc.RpcException;
import java.io.PrintWriter;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bin/lakestream <command>}: everyday tasks against a running server. Exit codes a script
 * can rely on: {@value #EXIT_OK} success, {@value #EXIT_FAILURE} a failure talking to the server or
 * a thing that does not exist (a table, a key) or malformed input, {@value #EXIT_USAGE} a usage
 * error. Every error is one line on stderr that names the problem.
 */
@Command(
    name = "lakestream",
    mixinStandardHelpOptions = true,
    versionProvider = LakestreamCli.Version.class,
    description = "Lakestream's command line: tables, writing, reading and SQL.",
    commandListHeading = "%nCommands:%n",
    footer = {
      "",
      "Also: bin/lakestream server | test | bench (see bin/lakestream's header).",
      "Exit codes: 0 ok, 1 failure talking to the server / not found / bad input, 2 usage error."
    },
    subcommands = {
      TablesCommand.class,
      DescribeCommand.class,
      CreateCommand.class,
      DropCommand.class,
      ProduceCommand.class,
      ConsumeCommand.class,
      TailCommand.class,
      LookupCommand.class,
      SqlCommand.class,
      TieringCommand.class,
      DoctorCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LakestreamCli implements Runnable {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILURE = 1;
  public static final int EXIT_USAGE = 2;

  // The Flight SQL JDBC driver logs its allocator's set-up at INFO through java.util.logging; a
  // command line prints only its own output. Held here so the setting is not collected.
  private static final Logger FLIGHT_JDBC_LOGGER = Logger.getLogger("org.apache.arrow.driver.jdbc");

  static {
    FLIGHT_JDBC_LOGGER.setLevel(Level.WARNING);
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing a command");
  }

  /** A command line with this program's error handling; set its streams with setOut/setErr. */
  public static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new LakestreamCli());
    commandLine.setExecutionExceptionHandler(LakestreamCli::executionFailed);
    commandLine.setParameterExceptionHandler(LakestreamCli::usageFailed);
    commandLine.setExitCodeExceptionMapper(
        error -> error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE);
    return commandLine;
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  private static int usageFailed(CommandLine.ParameterException error, String[] args) {
    CommandLine command = error.getCommandLine();
    PrintWriter err = command.getErr();
    err.println(prefix(command) + oneLine(error.getMessage()));
    err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help'.");
    err.flush();
    return EXIT_USAGE;
  }

  private static int executionFailed(
      Exception error, CommandLine command, CommandLine.ParseResult parseResult) {
    PrintWriter err = command.getErr();
    int exitCode;
    String message;
    if (error instanceof UsageError) {
      exitCode = EXIT_USAGE;
      message = error.getMessage();
    } else if (error instanceof CliFailure) {
      exitCode = EXIT_FAILURE;
      message = error.getMessage();
    } else if (error instanceof RpcException rpc) {
      exitCode = EXIT_FAILURE;
      message = rpc.getMessage() + " (" + rpc.error() + ")";
    } else if (error instanceof IllegalArgumentException) {
      // The client refuses values that are wrong on their face (a bucket count out of range).
      exitCode = EXIT_USAGE;
      message = error.getMessage();
    } else {
      exitCode = EXIT_FAILURE;
      message = error.toString();
    }
    err.println(prefix(command) + oneLine(message));
    err.flush();
    return exitCode;
  }

  private static String prefix(CommandLine command) {
    return command.getCommandSpec().qualifiedName() + ": ";
  }

  static String oneLine(String message) {
    if (message == null) {
      return "(no message)";
    }
    return message.replace("\r", " ").replace('\n', ' ').trim();
  }

  /** This command line's version, from its jar's manifest when there is one. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"lakestream " + version()};
    }

    static String version() {
      String version = LakestreamCli.class.getPackage().getImplementationVersion();
      return version == null ? "(development build)" : version;
    }
  }
}
