package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Apache Kafka 4.4.0 as a peer of Lakestream (issue 37): one KRaft node that is both broker and
 * controller, started from its Maven Central jars as a child process, with the W1 workloads run by
 * {@code io.lakestream.bench.peers.kafka.KafkaWorkload} in a fresh client JVM each.
 *
 * <p>Both the server and the client use the class path {@code benchmarks/target/peers/kafka/lib},
 * which the benchmarks build resolves separately ({@code src/peers/kafka/pom.xml}): Kafka's jars,
 * its own dependencies and the workload jar, no Lakestream jar.
 *
 * <p>The node runs at Kafka's defaults except what one local node needs: loopback listeners on free
 * ports, replication factor 1 for the internal topics, its log directory under the directory given
 * to {@link #start}. Its flush settings are the defaults, so an acknowledged write is in the page
 * cache, not forced to disk. Its JVM gets the heap and G1 flags of Kafka's {@code
 * kafka-server-start.sh}; JDK 25, the benchmark's own, runs Kafka 4.4.0.
 *
 * <p>Not thread safe: a benchmark starts it, runs workloads one at a time and closes it.
 */
final class KafkaPeer implements PeerSystem {
  static final String VERSION = "4.4.0";
  static final String WORKLOAD_MAIN = "io.lakestream.bench.peers.kafka.KafkaWorkload";

  private static final List<String> SERVER_JVM_FLAGS =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-Djava.awt.headless=true");
  private static final List<String> CLIENT_JVM_FLAGS =
      List.of(
          "-Xms256m",
          "-Xmx2g",
          "-XX:+UseG1GC",
          "--enable-native-access=ALL-UNNAMED",
          "-Djava.awt.headless=true");
  private static final Duration FORMAT_DEADLINE = Duration.ofMinutes(2);
  private static final Duration START_DEADLINE = Duration.ofMinutes(3);
  private static final Duration WORKLOAD_DEADLINE = Duration.ofMinutes(30);
  private static final String STARTED = "Kafka Server started";
  private static final String RESULT_PREFIX = "RESULT ";

  private final Path classPath;
  private final List<String> clientHeapFlags;
  private Path directory;
  private Path logDirectory;
  private String bootstrap;
  private ChildProcess server;
  private int clientRuns;

  private KafkaPeer(Path classPath, List<String> clientHeapFlags) {
    this.classPath = requireNonNull(classPath, "classPath is null");
    this.clientHeapFlags = List.copyOf(clientHeapFlags);
  }

  /**
   * Kafka with the class path the benchmarks build put under {@code lakestreamHome}; fails with
   * what to run when the build has not produced it.
   */
  static KafkaPeer create(Path lakestreamHome) throws IOException {
    return create(lakestreamHome, List.of());
  }

  /** As {@link #create(Path)}, its client JVMs with {@code clientHeapFlags}. */
  static KafkaPeer create(Path lakestreamHome, List<String> clientHeapFlags) throws IOException {
    return new KafkaPeer(classPath(lakestreamHome), clientHeapFlags);
  }

  static Path classPath(Path lakestreamHome) throws IOException {
    Path directory =
        lakestreamHome
            .resolve("benchmarks")
            .resolve("target")
            .resolve("peers")
            .resolve("kafka")
            .resolve("lib");
    if (!Files.isDirectory(directory)) {
      throw new IllegalStateException(
          "No Kafka class path at "
              + directory
              + "; build the benchmarks module first (mvn -pl benchmarks -am package)");
    }
    try (Stream<Path> jars = Files.list(directory)) {
      List<String> names = jars.map(jar -> jar.getFileName().toString()).toList();
      for (String expected :
          List.of("kafka_2.13-" + VERSION + ".jar", "lakestream-benchmarks-peer-kafka-")) {
        if (names.stream().noneMatch(name -> name.startsWith(expected))) {
          throw new IllegalStateException(
              "The Kafka class path " + directory + " has no " + expected + " jar");
        }
      }
    }
    return directory;
  }

  @Override
  public String label() {
    return "Kafka " + VERSION;
  }

  @Override
  public boolean fsyncedAcknowledgement() {
    return false;
  }

  @Override
  public boolean supports(PeerWorkload.Kind kind) {
    return switch (kind) {
      case W1_APPEND, W1_SCAN, W1_SCAN_PROJECTED, W1_FRESHNESS -> true;
      case W2_UPSERT, W2_LOOKUP -> false;
    };
  }

  @Override
  public void start(Path directory) throws Exception {
    if (server != null) {
      throw new IllegalStateException("Kafka is already started in " + this.directory);
    }
    this.directory = requireNonNull(directory, "directory is null");
    Files.createDirectories(directory);
    logDirectory = directory.resolve("kafka-logs");
    int[] ports = FreePorts.onLoopback(2);
    bootstrap = "127.0.0.1:" + ports[0];
    Path properties = directory.resolve("server.properties");
    Files.writeString(properties, serverProperties(logDirectory, ports[0], ports[1]), UTF_8);
    Path logging = directory.resolve("log4j2.properties");
    Files.writeString(logging, LOGGING, UTF_8);

    List<String> format = javaCommand(CLIENT_JVM_FLAGS, logging);
    format.addAll(
        List.of(
            "kafka.tools.StorageTool",
            "format",
            "--cluster-id",
            clusterId(),
            "--config",
            properties.toString()));
    try (ChildProcess formatter =
        ChildProcess.start(
            "Kafka storage format",
            new ProcessBuilder(format),
            directory.resolve("kafka-format.out"))) {
      int exit = formatter.awaitExit(FORMAT_DEADLINE);
      if (exit != 0) {
        throw formatter.failure("exited with " + exit);
      }
    }

    List<String> command = javaCommand(SERVER_JVM_FLAGS, logging);
    command.add("kafka.Kafka");
    command.add(properties.toString());
    server =
        ChildProcess.start(
            label() + " broker and controller",
            new ProcessBuilder(command),
            directory.resolve("kafka-server.out"));
    server.awaitCondition(
        "'" + STARTED + "' in its log",
        START_DEADLINE,
        Duration.ofMillis(100),
        () -> server.output().contains(STARTED));
  }

  @Override
  public Map<String, Double> run(PeerWorkload workload) throws Exception {
    if (!supports(workload.kind())) {
      throw new IllegalArgumentException("Kafka runs no " + workload.kind() + " workload");
    }
    Map<String, String> arguments = new LinkedHashMap<>(workload.arguments());
    try (ChildProcess client = runClient(workload.kind().name(), workload.table(), arguments)) {
      Map<String, Double> results = new LinkedHashMap<>();
      for (String line : client.output().lines().toList()) {
        if (line.startsWith(RESULT_PREFIX)) {
          String result = line.substring(RESULT_PREFIX.length());
          int equals = result.indexOf('=');
          if (equals <= 0) {
            throw client.failure("printed a malformed result line '" + line + "'");
          }
          results.put(
              result.substring(0, equals), Double.parseDouble(result.substring(equals + 1)));
        }
      }
      if (results.isEmpty()) {
        throw client.failure("printed no RESULT line");
      }
      return results;
    }
  }

  /** Deletes the table's topic, through Kafka's admin client in a client JVM. */
  @Override
  public void dropTable(String table) throws Exception {
    runClient("DROP", table, new LinkedHashMap<>(Map.of("table", table))).close();
  }

  /**
   * Runs {@link #WORKLOAD_MAIN} with the arguments and the broker's address in a fresh JVM and
   * waits for it; fails naming its output when it exits with a non-zero code.
   */
  private ChildProcess runClient(String what, String table, Map<String, String> arguments)
      throws Exception {
    if (server == null) {
      throw new IllegalStateException("Kafka is not started");
    }
    List<String> flags = new ArrayList<>(CLIENT_JVM_FLAGS);
    flags.addAll(clientHeapFlags);
    List<String> command = javaCommand(flags, null);
    command.add(WORKLOAD_MAIN);
    command.add(what);
    arguments.forEach((key, value) -> command.add(key + "=" + value));
    command.add("bootstrap=" + bootstrap);
    clientRuns++;
    Path output =
        directory.resolve("kafka-client-" + clientRuns + "-" + what.toLowerCase() + ".out");
    ChildProcess client =
        ChildProcess.start(
            "Kafka client " + what + " of " + table, new ProcessBuilder(command), output);
    try {
      int exit = client.awaitExit(WORKLOAD_DEADLINE);
      if (exit != 0) {
        throw client.failure("exited with " + exit);
      }
      return client;
    } catch (Exception e) {
      client.close();
      throw e;
    }
  }

  /**
   * The disk space the user topics' partition directories take (their segments and indexes; Kafka's
   * internal topics and the metadata log are left out), as allocated blocks: the offset and time
   * indexes of an active segment are sparse files preallocated to 10 MiB, whose length would
   * overstate the disk they use.
   */
  @Override
  public long diskBytes() throws IOException {
    if (logDirectory == null || !Files.isDirectory(logDirectory)) {
      return 0;
    }
    List<String> command = new ArrayList<>(List.of("du", "--block-size=1", "--summarize", "-c"));
    try (Stream<Path> partitions = Files.list(logDirectory)) {
      partitions
          .filter(Files::isDirectory)
          .filter(partition -> !partition.getFileName().toString().startsWith("__"))
          // A deleted topic's directory, renamed until the broker removes it.
          .filter(partition -> !partition.getFileName().toString().endsWith("-delete"))
          .forEach(partition -> command.add(partition.toString()));
    }
    if (command.size() == 4) {
      return 0;
    }
    Process du = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(du.getInputStream().readAllBytes(), UTF_8);
    try {
      if (du.waitFor() != 0) {
        throw new IOException("du of " + logDirectory + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while measuring " + logDirectory, e);
    }
    List<String> lines = output.lines().toList();
    String total = lines.get(lines.size() - 1);
    if (!total.endsWith("total")) {
      throw new IOException("Unexpected du output for " + logDirectory + ": " + output);
    }
    return Long.parseLong(total.split("\\s+")[0]);
  }

  /** The broker's process id while it runs. */
  long serverPid() {
    if (server == null) {
      throw new IllegalStateException("Kafka is not started");
    }
    return server.pid();
  }

  /** Kills the broker by its PID. */
  @Override
  public void close() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private List<String> javaCommand(List<String> flags, Path logging) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.add(ChildProcess.temporaryDirectoryFlag(directory));
    if (logging != null) {
      command.add("-Dlog4j2.configurationFile=" + logging.toAbsolutePath());
    }
    command.add("-cp");
    command.add(classPath.toAbsolutePath() + "/*");
    return command;
  }

  static String serverProperties(Path logDirectory, int brokerPort, int controllerPort) {
    return String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
            "listeners=PLAINTEXT://127.0.0.1:"
                + brokerPort
                + ",CONTROLLER://127.0.0.1:"
                + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs=" + logDirectory.toAbsolutePath(),
            "num.partitions=1",
            "default.replication.factor=1",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0")
        + "\n";
  }

  /** A Kafka cluster id: 16 random bytes in URL-safe base64 without padding, as Kafka's Uuid. */
  private static String clusterId() {
    while (true) {
      UUID uuid = UUID.randomUUID();
      byte[] bytes = new byte[16];
      for (int i = 0; i < 8; i++) {
        bytes[i] = (byte) (uuid.getMostSignificantBits() >>> (56 - 8 * i));
        bytes[8 + i] = (byte) (uuid.getLeastSignificantBits() >>> (56 - 8 * i));
      }
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
      // Like Kafka's Uuid.randomUuid: an id starting with '-' would read as an option.
      if (!id.startsWith("-")) {
        return id;
      }
    }
  }

  /** Warnings, and the broker's start-up progress, whose last line is the readiness signal. */
  private static final String LOGGING =
      String.join(
              "\n",
              "rootLogger.level=WARN",
              "rootLogger.appenderRef.stdout.ref=STDOUT",
              "appender.stdout.type=Console",
              "appender.stdout.name=STDOUT",
              "appender.stdout.layout.type=PatternLayout",
              "appender.stdout.layout.pattern=[%d] %p %m (%c)%n",
              "logger.raftServer.name=kafka.server.KafkaRaftServer",
              "logger.raftServer.level=INFO",
              "logger.broker.name=kafka.server.BrokerServer",
              "logger.broker.level=INFO")
          + "\n";
}
