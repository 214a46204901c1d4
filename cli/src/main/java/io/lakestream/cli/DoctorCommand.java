package io.lakestream.cli;

import io.lakestream.client.Connection;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code doctor}: checks that the server's endpoints answer and a data directory has room. */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    description = {
      "Checks the configuration this command line uses, that the REST catalog is up and ready,"
          + " that the stream RPC accepts a connection (and the token), that Flight SQL answers"
          + " SELECT 1, and with --data-dir that a local data directory exists, is writable and"
          + " has free space (at least --min-free-mib).",
      "Prints one line per check (ok or FAIL) and exits 1 when any check failed."
    })
final class DoctorCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "A local server data directory")
  Path dataDir;

  @Option(
      names = "--min-free-mib",
      paramLabel = "MIB",
      defaultValue = "1024",
      description = "Free space --data-dir needs (default: ${DEFAULT-VALUE})")
  long minFreeMib;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  private PrintWriter out;
  private boolean failed;

  @Override
  public Integer call() {
    out = spec.commandLine().getOut();
    report(
        true,
        "versions",
        "lakestream command line "
            + LakestreamCli.Version.version()
            + ", Java "
            + System.getProperty("java.version"));
    report(
        true,
        "configuration",
        "server "
            + server.serverUri()
            + ", catalog "
            + server.catalogUri()
            + ", flight "
            + server.flightAddress()
            + ", token "
            + (server.token() == null ? "not set" : "set"));
    CatalogClient catalog = new CatalogClient(server.catalogUri(), server.token());
    check(
        "catalog",
        () -> {
          int ready = catalog.status("/ready");
          int config = catalog.status("/v1/config");
          if (ready != 200) {
            throw new CliFailure(server.catalogUri() + "/ready answered " + ready);
          }
          if (config != 200) {
            throw new CliFailure(
                server.catalogUri()
                    + "/v1/config answered "
                    + config
                    + (config == 401 ? " (a token is needed)" : ""));
          }
          return server.catalogUri() + " ready";
        });
    check(
        "stream rpc",
        () -> {
          long start = System.nanoTime();
          Connection connection = server.connect();
          long millis = (System.nanoTime() - start) / 1_000_000;
          connection.close();
          return server.serverUri() + " connected in " + millis + " ms";
        });
    check(
        "flight sql",
        () -> {
          Properties properties = new Properties();
          properties.setProperty("useEncryption", "false");
          if (server.token() != null) {
            properties.setProperty("token", server.token());
          }
          try (java.sql.Connection connection =
                  DriverManager.getConnection(
                      "jdbc:arrow-flight-sql://" + server.flightAddress(), properties);
              Statement statement = connection.createStatement();
              ResultSet result = statement.executeQuery("SELECT 1")) {
            if (!result.next() || result.getInt(1) != 1) {
              throw new CliFailure("SELECT 1 did not return 1");
            }
          }
          return server.flightAddress() + " answered SELECT 1";
        });
    if (dataDir != null) {
      check("data directory", this::checkDataDir);
    }
    out.flush();
    return failed ? LakestreamCli.EXIT_FAILURE : LakestreamCli.EXIT_OK;
  }

  private String checkDataDir() throws IOException {
    if (!Files.isDirectory(dataDir)) {
      throw new CliFailure(dataDir + " is not a directory");
    }
    if (!Files.isWritable(dataDir)) {
      throw new CliFailure(dataDir + " is not writable");
    }
    FileStore store = Files.getFileStore(dataDir);
    long free = store.getUsableSpace();
    long total = store.getTotalSpace();
    String space =
        String.format(
            Locale.ROOT,
            "%s: %s free of %s (%.0f%%)",
            dataDir,
            ProduceCommand.bytes(free),
            ProduceCommand.bytes(total),
            total == 0 ? 0.0 : 100.0 * free / total);
    if (free < minFreeMib * 1024 * 1024) {
      throw new CliFailure(space + ", below --min-free-mib " + minFreeMib);
    }
    return space;
  }

  private interface Check {
    String run() throws Exception;
  }

  private void check(String name, Check check) {
    try {
      report(true, name, check.run());
    } catch (Exception e) {
      report(false, name, e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private void report(boolean ok, String name, String detail) {
    if (!ok) {
      failed = true;
    }
    out.printf(
        Locale.ROOT, "%-4s %-15s %s%n", ok ? "ok" : "FAIL", name, LakestreamCli.oneLine(detail));
    out.flush();
  }
}
