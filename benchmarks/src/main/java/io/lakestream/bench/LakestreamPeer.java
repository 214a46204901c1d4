package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Lakestream as one of the peers: the packaged server started with {@code bin/lakestream server} at
 * its defaults (fsync on: an append is acknowledged once forced to disk), and each workload run by
 * {@link LakestreamClientWorkload} in a fresh JVM through the ordinary client.
 *
 * <p>The client JVM's class path is this JVM's (the benchmark's {@code target/lib}: the client and
 * its dependencies beside the benchmark's other jars, of which the workload loads only the client's
 * and Iceberg's schema API); its heap is 2 GiB with G1, the JVM flags the client's README asks for.
 * Not thread safe.
 */
final class LakestreamPeer implements PeerSystem {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration WORKLOAD_DEADLINE = Duration.ofMinutes(30);
  private static final Pattern RESULT = Pattern.compile("^RESULT ([a-z0-9_]+)=(\\S+)$");
  private static final Pattern CLIENT_JAR = Pattern.compile("lakestream-client-(.+)\\.jar");

  private final Path launcher;
  private final List<String> clientHeapFlags;
  private LaunchedServer server;
  private Path directory;
  private int runs;

  LakestreamPeer(Path lakestreamHome) {
    this(lakestreamHome, List.of());
  }

  /** A peer whose client JVMs get {@code clientHeapFlags} ({@link #CLIENT_HEAP_FLAGS} or none). */
  LakestreamPeer(Path lakestreamHome, List<String> clientHeapFlags) {
    this.launcher =
        LakestreamLauncher.find(requireNonNull(lakestreamHome, "lakestreamHome is null"));
    this.clientHeapFlags = List.copyOf(clientHeapFlags);
  }

  @Override
  public String label() {
    return "Lakestream " + version();
  }

  @Override
  public boolean fsyncedAcknowledgement() {
    return true;
  }

  @Override
  public boolean supports(PeerWorkload.Kind kind) {
    return true;
  }

  @Override
  public void start(Path directory) throws Exception {
    if (server != null) {
      throw new IllegalStateException("Lakestream peer already started in " + this.directory);
    }
    Files.createDirectories(directory);
    this.directory = directory;
    server =
        LaunchedServer.start(
            launcher,
            dataDirectory(),
            directory.resolve("server.log"),
            "Lakestream server",
            List.of(),
            LaunchedServer.httpClient(REQUEST_TIMEOUT),
            REQUEST_TIMEOUT);
  }

  @Override
  public Map<String, Double> run(PeerWorkload workload) throws Exception {
    if (server == null) {
      throw new IllegalStateException("Lakestream peer not started");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xms256m",
            "-Xmx2g",
            "-XX:+UseG1GC",
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    command.addAll(clientHeapFlags);
    command.addAll(
        List.of(
            ChildProcess.temporaryDirectoryFlag(directory),
            "-cp",
            System.getProperty("java.class.path"),
            LakestreamClientWorkload.class.getName(),
            workload.kind().name()));
    for (Map.Entry<String, String> argument : workload.arguments().entrySet()) {
      command.add(argument.getKey() + "=" + argument.getValue());
    }
    command.add("server=" + serverUri());
    runs++;
    Path output = directory.resolve("client-" + runs + "-" + workload.kind() + ".log");
    try (ChildProcess client =
        ChildProcess.start(
            "Lakestream client " + workload.kind() + " on " + workload.table(),
            new ProcessBuilder(command),
            output)) {
      int exitCode = client.awaitExit(WORKLOAD_DEADLINE);
      if (exitCode != 0) {
        throw client.failure("exited with " + exitCode);
      }
      Map<String, Double> results = results(client.output());
      if (results.isEmpty()) {
        throw client.failure("printed no RESULT line");
      }
      return results;
    }
  }

  /** Drops {@code table} and deletes its files, so that a long run's disk stays bounded. */
  @Override
  public void dropTable(String table) {
    try (Connection connection = Connection.open(serverUri())) {
      connection.admin().dropTable(TablePath.of("peers." + table), true);
    }
  }

  @Override
  public long diskBytes() throws IOException {
    if (directory == null) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dataDirectory())) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              file -> {
                try {
                  return Files.size(file);
                } catch (IOException e) {
                  if (!Files.exists(file)) {
                    return 0; // deleted while walking
                  }
                  throw new UncheckedIOException(e);
                }
              })
          .sum();
    }
  }

  @Override
  public void close() throws Exception {
    if (server == null) {
      return;
    }
    try {
      server.stopCleanly();
    } finally {
      server.close();
      server = null;
    }
  }

  /** The {@code RESULT name=value} lines of a client's output. */
  static Map<String, Double> results(String output) {
    Map<String, Double> results = new LinkedHashMap<>();
    for (String line : output.lines().toList()) {
      Matcher matcher = RESULT.matcher(line);
      if (matcher.matches()) {
        results.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
      }
    }
    return results;
  }

  private String serverUri() {
    return "lakestream://127.0.0.1:" + server.rpcPort();
  }

  private Path dataDirectory() {
    return directory.resolve("data");
  }

  private static String version() {
    String location =
        Connection.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    Matcher matcher = CLIENT_JAR.matcher(Path.of(location).getFileName().toString());
    return matcher.matches() ? matcher.group(1) : "(this build)";
  }
}
