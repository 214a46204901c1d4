package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Apache Fluss 0.9.1 as a {@link PeerSystem} (issue 37): its ZooKeeper, one coordinator server and
 * one tablet server as child processes on loopback ports, and every workload run by {@code
 * io.lakestream.bench.peers.fluss.FlussWorkload} through Fluss's public Java client.
 *
 * <p>The class paths are built by {@code benchmarks/src/peers/fluss/pom.xml} (run by the benchmarks
 * build through the invoker plugin) into {@code benchmarks/target/peers/fluss/lib}: {@code server}
 * holds the shaded {@code fluss-server} jar, whose relocated ZooKeeper is also the ZooKeeper the
 * Fluss distribution starts, and {@code client} holds the shaded {@code fluss-client} jar and the
 * workload; the two hold the same classes in different builds, so they are kept apart.
 *
 * <p>Fluss acknowledges a write once it is in the log's page cache: {@code
 * log.flush.interval-messages} defaults to {@code Long.MAX_VALUE} ({@code
 * ConfigOptions.LOG_FLUSH_INTERVAL_MESSAGES}), and {@code LogTablet} flushes only when that many
 * messages are unflushed (and on segment roll), so {@link #fsyncedAcknowledgement()} is false.
 */
final class FlussPeer implements PeerSystem {
  static final String VERSION = "0.9.1";
  static final String WORKLOAD_MAIN = "io.lakestream.bench.peers.fluss.FlussWorkload";
  static final String ZOOKEEPER_MAIN =
      "org.apache.fluss.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServerMain";
  static final String COORDINATOR_MAIN = "org.apache.fluss.server.coordinator.CoordinatorServer";
  static final String TABLET_SERVER_MAIN = "org.apache.fluss.server.tablet.TabletServer";

  /**
   * Fluss's lookup batching for {@link PeerWorkload.Kind#W2_LOOKUP}, the best of the settings tried
   * (issue 37): the default {@code client.lookup.batch-timeout} of 100 ms holds every batch that is
   * not full for 100 ms, so a lookup alone in flight waits that long; 1 ms with batches of at most
   * {@code inFlight} lookups sends a batch as soon as every lookup in flight has joined it.
   */
  static final String LOOKUP_BATCH_TIMEOUT = "1ms";

  private static final Duration START_DEADLINE = Duration.ofSeconds(120);
  private static final Duration STOP_DEADLINE = Duration.ofSeconds(30);
  private static final Duration WORKLOAD_DEADLINE = Duration.ofMinutes(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private final Path serverClassPath;
  private final Path clientClassPath;
  private final Map<String, String> clientSettings;
  private final List<String> clientHeapFlags;
  private final List<ChildProcess> processes = new ArrayList<>();
  private Path directory;
  private int coordinatorPort;
  private int runs;

  /**
   * A peer with the class paths under {@code lib} and {@code clientSettings} (Fluss client
   * configuration keys) given to every workload's client, over the workload's own settings.
   */
  FlussPeer(Path lib, Map<String, String> clientSettings) {
    this(lib, clientSettings, List.of());
  }

  /** As {@link #FlussPeer(Path, Map)}, its client JVMs with {@code clientHeapFlags}. */
  FlussPeer(Path lib, Map<String, String> clientSettings, List<String> clientHeapFlags) {
    this.serverClassPath = requireNonNull(lib, "lib is null").resolve("server");
    this.clientClassPath = lib.resolve("client");
    this.clientSettings = Map.copyOf(clientSettings);
    this.clientHeapFlags = List.copyOf(clientHeapFlags);
  }

  /**
   * Fluss with the class paths the benchmarks build puts under {@code lakestreamHome}; fails with
   * what to run when the build has not produced them (see {@link #unavailable}).
   */
  static FlussPeer create(Path lakestreamHome) throws IOException {
    return create(lakestreamHome, List.of());
  }

  /** As {@link #create(Path)}, its client JVMs with {@code clientHeapFlags}. */
  static FlussPeer create(Path lakestreamHome, List<String> clientHeapFlags) throws IOException {
    Optional<String> unavailable = unavailable(lakestreamHome);
    if (unavailable.isPresent()) {
      throw new IllegalStateException(unavailable.get());
    }
    return new FlussPeer(lib(lakestreamHome), Map.of(), clientHeapFlags);
  }

  /** Why Fluss cannot run from {@code lakestreamHome}, or empty when its class paths are built. */
  static Optional<String> unavailable(Path lakestreamHome) throws IOException {
    Path lib = lib(lakestreamHome);
    for (String[] expected :
        new String[][] {{"server", "fluss-server-"}, {"client", "fluss-client-"}}) {
      Path directory = lib.resolve(expected[0]);
      boolean present = false;
      if (Files.isDirectory(directory)) {
        try (Stream<Path> jars = Files.list(directory)) {
          present = jars.anyMatch(jar -> jar.getFileName().toString().startsWith(expected[1]));
        }
      }
      if (!present) {
        return Optional.of(
            "No Fluss "
                + expected[0]
                + " class path at "
                + directory
                + "; build the benchmarks module first (mvn -pl benchmarks -am package)");
      }
    }
    return Optional.empty();
  }

  private static Path lib(Path lakestreamHome) {
    return lakestreamHome
        .resolve("benchmarks")
        .resolve("target")
        .resolve("peers")
        .resolve("fluss")
        .resolve("lib");
  }

  @Override
  public String label() {
    return "Fluss " + VERSION;
  }

  @Override
  public boolean fsyncedAcknowledgement() {
    return false;
  }

  @Override
  public boolean supports(PeerWorkload.Kind kind) {
    return true;
  }

  @Override
  public void start(Path directory) throws Exception {
    if (this.directory != null) {
      throw new IllegalStateException("Fluss is already started under " + this.directory);
    }
    this.directory = directory.toAbsolutePath();
    Files.createDirectories(this.directory);
    int[] ports = FreePorts.onLoopback(3);
    int zookeeperPort = ports[0];
    coordinatorPort = ports[1];
    int tabletPort = ports[2];

    Path zookeeper = Files.createDirectories(this.directory.resolve("zookeeper"));
    Path zookeeperConfig = zookeeper.resolve("zoo.properties");
    Files.writeString(
        zookeeperConfig,
        String.join(
            "\n",
            "dataDir=" + zookeeper.resolve("data"),
            "clientPort=" + zookeeperPort,
            "clientPortAddress=127.0.0.1",
            "maxClientCnxns=0",
            "admin.enableServer=false",
            ""),
        UTF_8);
    startServer("Fluss's ZooKeeper", ZOOKEEPER_MAIN, zookeeperPort, zookeeperConfig.toString());

    Map<String, String> common = new LinkedHashMap<>();
    common.put("zookeeper.address", "127.0.0.1:" + zookeeperPort);
    common.put("default.bucket.number", "1");
    common.put("default.replication.factor", "1");
    common.put("remote.data.dir", this.directory.resolve("remote").toString());
    Map<String, String> coordinator = new LinkedHashMap<>(common);
    coordinator.put("bind.listeners", "FLUSS://127.0.0.1:" + coordinatorPort);
    coordinator.put("data.dir", this.directory.resolve("coordinator").resolve("data").toString());
    startServer(
        "Fluss coordinator server",
        COORDINATOR_MAIN,
        coordinatorPort,
        "--configDir",
        writeServerYaml("coordinator", coordinator).toString());
    Map<String, String> tablet = new LinkedHashMap<>(common);
    tablet.put("bind.listeners", "FLUSS://127.0.0.1:" + tabletPort);
    tablet.put("tablet-server.id", "0");
    tablet.put("data.dir", tabletDataDirectory().toString());
    startServer(
        "Fluss tablet server",
        TABLET_SERVER_MAIN,
        tabletPort,
        "--configDir",
        writeServerYaml("tablet-server", tablet).toString());

    // Ready once a client sees the tablet server registered with the coordinator.
    Map<String, Double> ready = runClient("READY", Map.of(), Map.of());
    if (!(ready.getOrDefault("tablet_servers", 0.0) >= 1)) {
      throw new IllegalStateException("Fluss reported no tablet server: " + ready);
    }
  }

  /**
   * Client settings that bring Fluss's freshness from its defaults (a reader's fetch waits up to
   * 500 ms, {@code client.scanner.log.fetch.wait-max-time}, and an acknowledged row is only
   * returned when the wait ends; a flushed row still waits for {@code client.writer.batch-timeout},
   * 100 ms) to its best: for reports that show Fluss tuned beside Fluss at defaults.
   */
  static final Map<String, String> TUNED_FRESHNESS =
      Map.of(
          "client.scanner.log.fetch.wait-max-time", "10ms", "client.writer.batch-timeout", "0ms");

  @Override
  public Map<String, Double> run(PeerWorkload workload) throws Exception {
    return run(workload, Map.of());
  }

  /** Runs {@code workload} with {@code settings} (Fluss client keys) over the peer's own. */
  Map<String, Double> run(PeerWorkload workload, Map<String, String> extraSettings)
      throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    if (workload.kind() == PeerWorkload.Kind.W2_LOOKUP) {
      settings.put("client.lookup.batch-timeout", LOOKUP_BATCH_TIMEOUT);
      settings.put("client.lookup.max-batch-size", Integer.toString(workload.inFlight()));
    }
    settings.putAll(clientSettings);
    settings.putAll(extraSettings);
    return runClient(workload.kind().name(), workload.arguments(), settings);
  }

  @Override
  public long diskBytes() throws IOException {
    return bytesUnder(tabletDataDirectory()) + bytesUnder(directory.resolve("remote"));
  }

  @Override
  public void close() throws Exception {
    Exception failure = null;
    for (int i = processes.size() - 1; i >= 0; i--) {
      ChildProcess process = processes.get(i);
      try {
        process.terminate(STOP_DEADLINE);
      } catch (RuntimeException | InterruptedException e) {
        if (failure == null) {
          failure = e;
        }
      } finally {
        process.close();
      }
    }
    processes.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /** The process ids of the servers running now, for tests that check nothing is left behind. */
  List<Long> serverPids() {
    return processes.stream().map(ChildProcess::pid).toList();
  }

  private Path tabletDataDirectory() {
    return directory.resolve("tablet-server").resolve("data");
  }

  private Path writeServerYaml(String name, Map<String, String> settings) throws IOException {
    Path configDirectory = Files.createDirectories(directory.resolve(name).resolve("conf"));
    StringBuilder yaml = new StringBuilder();
    settings.forEach((key, value) -> yaml.append(key).append(": ").append(value).append('\n'));
    Files.writeString(configDirectory.resolve("server.yaml"), yaml.toString(), UTF_8);
    return configDirectory;
  }

  private void startServer(String description, String mainClass, int port, String... arguments)
      throws IOException, InterruptedException {
    List<String> command = java(serverClassPath, directory);
    command.add(mainClass);
    command.addAll(List.of(arguments));
    String name = description.replaceAll("[^A-Za-z]+", "-").toLowerCase();
    ChildProcess process =
        ChildProcess.start(
            description,
            new ProcessBuilder(command).directory(directory.toFile()),
            directory.resolve(name + ".log"));
    processes.add(process);
    process.awaitCondition(
        "listening on 127.0.0.1:" + port, START_DEADLINE, POLL_INTERVAL, () -> accepts(port));
  }

  private Map<String, Double> runClient(
      String workload, Map<String, String> arguments, Map<String, String> settings)
      throws IOException, InterruptedException {
    List<String> command = java(clientClassPath, directory);
    command.addAll(1 + LakestreamLauncher.JVM_FLAGS.size(), clientHeapFlags);
    command.add("-Dfluss.bootstrap.servers=127.0.0.1:" + coordinatorPort);
    settings.forEach((key, value) -> command.add("-Dfluss." + key + "=" + value));
    command.add(WORKLOAD_MAIN);
    command.add(workload);
    arguments.forEach((key, value) -> command.add(key + "=" + value));
    Path output =
        Files.createDirectories(directory.resolve("clients"))
            .resolve(String.format("%03d-%s.log", ++runs, workload));
    try (ChildProcess client =
        ChildProcess.start(
            "Fluss client " + workload,
            new ProcessBuilder(command).directory(directory.toFile()),
            output)) {
      int exit = client.awaitExit(WORKLOAD_DEADLINE);
      if (exit != 0) {
        throw client.failure("exited with " + exit);
      }
      Map<String, Double> results = new TreeMap<>();
      for (String line : client.output().lines().toList()) {
        if (line.startsWith("RESULT ")) {
          int equals = line.indexOf('=');
          results.put(
              line.substring("RESULT ".length(), equals),
              Double.parseDouble(line.substring(equals + 1).trim()));
        }
      }
      if (results.isEmpty()) {
        throw client.failure("printed no RESULT line");
      }
      return results;
    }
  }

  private static List<String> java(Path classPath, Path directory) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(LakestreamLauncher.JVM_FLAGS);
    command.add(ChildProcess.temporaryDirectoryFlag(directory));
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(classPath.toAbsolutePath() + "/*");
    return command;
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static long bytesUnder(Path root) throws IOException {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              file -> {
                try {
                  return Files.size(file);
                } catch (NoSuchFileException e) {
                  return 0; // a segment deleted while walking
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sum();
    }
  }
}
