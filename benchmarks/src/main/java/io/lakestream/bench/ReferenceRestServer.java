package io.lakestream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Iceberg's reference REST catalog server, {@code org.apache.iceberg.rest.RESTCatalogServer} from
 * the {@code iceberg-open-api} test fixtures, started in its own JVM the way Iceberg's {@code
 * iceberg-rest-fixture} image starts it: {@code CATALOG_*} environment variables, which the server
 * turns into catalog properties ({@code CATALOG_} dropped, {@code __} to {@code -}, {@code _} to
 * {@code .}, lower case).
 *
 * <p>Its class path is {@code benchmarks/target/reference-lib}, which the benchmarks build resolves
 * separately ({@code src/reference-server/pom.xml}) so that none of it reaches the benchmark's own
 * class path.
 *
 * <p>The backing catalog is the server's default, {@code JdbcCatalog}, configured for a fair
 * baseline rather than the server's bare defaults:
 *
 * <ul>
 *   <li>{@code uri} is a SQLite database file in the server's directory, and {@code clients} (the
 *       JDBC connection pool size) is 1. The default, {@code jdbc:sqlite::memory:} with a pool of
 *       two connections, gives each connection its own empty in-memory database and answers 500
 *       under concurrency. One connection to a file serializes the catalog's queries, which is what
 *       SQLite does with writers anyway.
 *   <li>{@code warehouse} is a local directory; the FileIO is the default {@code HadoopFileIO} on
 *       the local file system (no fsync, unlike Lakestream's {@code LocalFileIO}).
 *   <li>{@code jdbc.strict-mode} is true, as in Iceberg's image.
 *   <li>Logging is at warn: at its default info level the server logs two lines per loadTable,
 *       which would be measured as part of its cost.
 * </ul>
 *
 * <p>The server listens on every interface ({@code RESTCatalogServer} has no bind setting); the
 * benchmark only ever connects to it through loopback.
 */
final class ReferenceRestServer {
  static final String MAIN_CLASS = "org.apache.iceberg.rest.RESTCatalogServer";

  private ReferenceRestServer() {}

  /**
   * The reference server's class path directory under the repository root; fails with what to run
   * when the build has not produced it.
   */
  static Path classPath(Path lakestreamHome) throws IOException {
    Path directory =
        lakestreamHome.resolve("benchmarks").resolve("target").resolve("reference-lib");
    if (!Files.isDirectory(directory)) {
      throw new IllegalStateException(
          "No reference server class path at "
              + directory
              + "; build the benchmarks module first (mvn -pl benchmarks -am package)");
    }
    try (Stream<Path> jars = Files.list(directory)) {
      if (jars.noneMatch(jar -> jar.getFileName().toString().startsWith("iceberg-open-api-"))) {
        throw new IllegalStateException(
            "The reference server class path " + directory + " has no iceberg-open-api jar");
      }
    }
    return directory;
  }

  /**
   * The command that starts the server on {@code port}, keeping its catalog database and warehouse
   * under {@code directory}.
   */
  static ProcessBuilder command(Path classPath, Path directory, int port) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(LakestreamLauncher.JVM_FLAGS);
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(classPath.toAbsolutePath() + "/*");
    command.add(MAIN_CLASS);
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> environment = builder.environment();
    // The server reads every CATALOG_* variable; the caller's must not leak in.
    environment.keySet().removeIf(name -> name.startsWith("CATALOG_"));
    environment.putAll(catalogEnvironment(directory, port));
    return builder;
  }

  /** The {@code CATALOG_*} variables the server is started with; the report lists them. */
  static Map<String, String> catalogEnvironment(Path directory, int port) {
    Map<String, String> environment = new TreeMap<>();
    environment.put(
        "CATALOG_URI", "jdbc:sqlite:" + directory.resolve("catalog.db").toAbsolutePath());
    environment.put("CATALOG_CLIENTS", "1");
    environment.put(
        "CATALOG_WAREHOUSE", directory.resolve("warehouse").toAbsolutePath().toString());
    environment.put("CATALOG_JDBC_STRICT__MODE", "true");
    environment.put("CATALOG_REST_PORT", Integer.toString(port));
    return Collections.unmodifiableMap(environment);
  }
}
