package io.lakestream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakestream.client.Connection;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
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
          + " has free space (at least --min-free-mib). It also lists the catalog's namespaces"
          + " (a read from the catalog database) and checks the warehouse location when"
          + " /v1/config names a local file: path (otherwise that line says skip and why).",
      "Prints one line per check (ok, FAIL or skip) and exits 1 when any check failed."
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
    check("catalog db", () -> checkCatalogDatabase(catalog));
    checkWarehouse(catalog);
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

  /**
   * The server reports nothing about its database but readiness, so this lists the top-level
   * namespaces, a read the catalog answers from its database.
   */
  private static String checkCatalogDatabase(CatalogClient catalog) {
    long start = System.nanoTime();
    JsonNode namespaces = catalog.getJson("/v1/namespaces").path("namespaces");
    long millis = (System.nanoTime() - start) / 1_000_000;
    return "listed " + namespaces.size() + " top-level namespaces in " + millis + " ms";
  }

  /**
   * The object store: the server exposes no check of its own, so this looks for a warehouse
   * location in {@code /v1/config}'s overrides or defaults and checks it when it is a local {@code
   * file:} path; otherwise it prints skip with the reason.
   */
  private void checkWarehouse(CatalogClient catalog) {
    JsonNode config;
    try {
      config = catalog.getJson("/v1/config");
    } catch (CliFailure e) {
      report(Status.SKIP, "warehouse", "no /v1/config: " + e.getMessage());
      return;
    }
    String location = warehouseLocation(config);
    if (location == null) {
      String prefix = config.path("overrides").path("prefix").asText("");
      report(
          Status.SKIP,
          "warehouse",
          "the server's /v1/config names no warehouse location"
              + (prefix.isEmpty() ? "" : " (warehouse " + prefix + ")")
              + "; the object store is checked by the server only");
      return;
    }
    check("warehouse", () -> checkWarehouseLocation(location));
  }

  /** The location /v1/config gives, overrides first; null when it gives none. */
  static String warehouseLocation(JsonNode config) {
    for (String section : new String[] {"overrides", "defaults"}) {
      String value = config.path(section).path("warehouse").asText("");
      if (value.contains("/")) {
        return value;
      }
    }
    return null;
  }

  private String checkWarehouseLocation(String location) throws IOException {
    Path path;
    if (location.startsWith("/")) {
      path = Path.of(location);
    } else if (location.startsWith("file:")) {
      path = Path.of(URI.create(location));
    } else {
      skipped = location + " is not a local file: path; the object store is checked by the server";
      return null;
    }
    if (!Files.isDirectory(path)) {
      throw new CliFailure(location + " is not a directory this command line can see");
    }
    if (!Files.isReadable(path) || !Files.isWritable(path)) {
      throw new CliFailure(location + " is not readable and writable");
    }
    FileStore store = Files.getFileStore(path);
    return location
        + ": "
        + ProduceCommand.bytes(store.getUsableSpace())
        + " free of "
        + ProduceCommand.bytes(store.getTotalSpace());
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

  private enum Status {
    OK("ok"),
    FAIL("FAIL"),
    SKIP("skip");

    final String label;

    Status(String label) {
      this.label = label;
    }
  }

  // Set by a check that cannot run here; its line then says skip with this reason.
  private String skipped;

  private void check(String name, Check check) {
    skipped = null;
    try {
      String detail = check.run();
      if (skipped != null) {
        report(Status.SKIP, name, skipped);
      } else {
        report(Status.OK, name, detail);
      }
    } catch (Exception e) {
      report(Status.FAIL, name, e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  private void report(boolean ok, String name, String detail) {
    report(ok ? Status.OK : Status.FAIL, name, detail);
  }

  private void report(Status status, String name, String detail) {
    if (status == Status.FAIL) {
      failed = true;
    }
    out.printf(Locale.ROOT, "%-4s %-15s %s%n", status.label, name, LakestreamCli.oneLine(detail));
    out.flush();
  }
}
