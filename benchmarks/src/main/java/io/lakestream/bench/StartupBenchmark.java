package io.lakestream.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Start-up time and idle memory of the packaged server, launched the way an operator does: {@code
 * bin/lakestream server} with {@code LAKESTREAM_NO_BUILD=1}, default configuration, free ports and
 * an empty data directory.
 *
 * <p>{@code ready_ms} is the wall time from starting the launcher to the first 200 from {@code
 * /ready}; it includes the launcher's own JDK probe. Its baseline is the wall time of a trivial JVM
 * that starts and exits, with the launcher's JVM flags.
 *
 * <p>{@code idle_rss_mib} is VmRSS of the server process after it has answered one {@code /health}
 * request and then been left idle for {@link #IDLE_PERIOD}. That is the definition of "idle": the
 * request makes the server load its request path once, as any client would, and the idle period
 * lets the JIT compiler and G1's start-up work settle, so the figure is the steady footprint rather
 * than a point on the start-up curve. Its baseline is VmRSS of a trivial JVM with the same flags,
 * idle for the same period. The launcher {@code exec}s java, so the launched PID is the server JVM;
 * this is checked.
 */
final class StartupBenchmark implements Benchmark {
  // The launcher's default heap and its JVM_FLAGS, given to the baseline JVMs as well.
  private static final String SERVER_HEAP = "4g";
  private static final List<String> LAUNCHER_JVM_FLAGS =
      List.of(
          "-Xms64m",
          "-Xmx" + SERVER_HEAP,
          "-XX:+UseG1GC",
          "-XX:+ExitOnOutOfMemoryError",
          "--enable-native-access=ALL-UNNAMED",
          "--sun-misc-unsafe-memory-access=allow",
          "--add-opens=java.base/java.nio=ALL-UNNAMED");

  private static final Duration IDLE_PERIOD = Duration.ofSeconds(3);
  private static final Duration START_DEADLINE = Duration.ofSeconds(60);
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(10);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

  private static final double READY_TARGET_MS = 3000;
  private static final double IDLE_RSS_TARGET_MIB = 300;

  @Override
  public String name() {
    return "startup";
  }

  @Override
  public String workload() {
    return "bin/lakestream server (LAKESTREAM_NO_BUILD=1, default configuration, -Xmx"
        + SERVER_HEAP
        + ") on an empty data directory; idle RSS read "
        + IDLE_PERIOD.toSeconds()
        + " s after one /health request";
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    Path launcher = context.lakestreamHome().resolve("bin").resolve("lakestream");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException("No executable launcher at " + launcher);
    }
    try (HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build()) {
      List<Sample> samples = context.iterate(() -> measure(launcher, http));
      return List.of(
          Figure.of(
              "ready_ms",
              Median.of(samples, Sample::readyMillis),
              "ms",
              "trivial JVM, start to exit",
              Median.of(samples, Sample::trivialJvmExitMillis),
              Target.below(READY_TARGET_MS)),
          Figure.of(
              "idle_rss_mib",
              Median.of(samples, Sample::idleRssMib),
              "MiB",
              "trivial idle JVM, VmRSS",
              Median.of(samples, Sample::idleJvmRssMib),
              Target.below(IDLE_RSS_TARGET_MIB)));
    }
  }

  private record Sample(
      double readyMillis, double idleRssMib, double trivialJvmExitMillis, double idleJvmRssMib) {}

  private record ServerSample(double readyMillis, double idleRssMib) {}

  private static Sample measure(Path launcher, HttpClient http) throws Exception {
    Path work = Files.createTempDirectory("lakestream-bench-startup-");
    try {
      double trivialJvmExitMillis = timeTrivialJvmExit(work);
      ServerSample server = measureServer(launcher, http, work);
      double idleJvmRssMib = measureIdleJvm(work);
      return new Sample(
          server.readyMillis(), server.idleRssMib(), trivialJvmExitMillis, idleJvmRssMib);
    } finally {
      deleteRecursively(work);
    }
  }

  private static ServerSample measureServer(Path launcher, HttpClient http, Path work)
      throws Exception {
    int[] ports = freePorts(3);
    ProcessBuilder builder =
        new ProcessBuilder(
            launcher.toString(),
            "server",
            "--data-dir",
            work.resolve("data").toString(),
            "--bind",
            "127.0.0.1",
            "--http-port",
            Integer.toString(ports[0]),
            "--rpc-port",
            Integer.toString(ports[1]),
            "--flight-port",
            Integer.toString(ports[2]));
    Map<String, String> environment = builder.environment();
    // Settings from the caller's environment would change what is measured.
    environment.keySet().removeIf(name -> name.startsWith("LAKESTREAM_"));
    environment.put("LAKESTREAM_NO_BUILD", "1");
    environment.put("LAKESTREAM_HEAP", SERVER_HEAP);
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    URI base = new URI("http", null, "127.0.0.1", ports[0], null, null, null);

    try (ChildProcess server =
        ChildProcess.start("Lakestream server", builder, work.resolve("server.log"))) {
      server.awaitCondition(
          "GET /ready answering 200",
          START_DEADLINE,
          POLL_INTERVAL,
          () -> answersOk(http, base.resolve("/ready")));
      double readyMillis = server.millisSinceStart();
      if (!answersOk(http, base.resolve("/health"))) {
        throw server.failure("was ready but GET /health did not answer 200");
      }
      server.stayAliveFor(IDLE_PERIOD);
      String command = server.commandName();
      if (!command.equals("java")) {
        throw server.failure(
            "is '" + command + "', not java: the launcher no longer execs the server JVM");
      }
      double idleRssMib = server.residentMemoryMib();
      int exitCode = server.terminate(EXIT_DEADLINE);
      if (exitCode != 0) {
        throw server.failure("exited with " + exitCode + " after SIGTERM instead of 0");
      }
      return new ServerSample(readyMillis, idleRssMib);
    }
  }

  private static double timeTrivialJvmExit(Path work) throws IOException, InterruptedException {
    try (ChildProcess jvm =
        ChildProcess.start("trivial JVM", baselineJvm("exit"), work.resolve("trivial-jvm.log"))) {
      int exitCode = jvm.awaitExit(START_DEADLINE);
      double millis = jvm.millisSinceStart();
      if (exitCode != 0) {
        throw jvm.failure("exited with " + exitCode);
      }
      return millis;
    }
  }

  private static double measureIdleJvm(Path work) throws IOException, InterruptedException {
    try (ChildProcess jvm =
        ChildProcess.start("idle JVM", baselineJvm("idle"), work.resolve("idle-jvm.log"))) {
      jvm.awaitCondition(
          "printing ready", START_DEADLINE, POLL_INTERVAL, () -> jvm.output().contains("ready"));
      jvm.stayAliveFor(IDLE_PERIOD);
      double rssMib = jvm.residentMemoryMib();
      jvm.closeInput();
      int exitCode = jvm.awaitExit(EXIT_DEADLINE);
      if (exitCode != 0) {
        throw jvm.failure("exited with " + exitCode + " after its input closed");
      }
      return rssMib;
    }
  }

  private static ProcessBuilder baselineJvm(String mode) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(LAUNCHER_JVM_FLAGS);
    command.add("-cp");
    command.add(codeLocation(BaselineJvm.class).toString());
    command.add(BaselineJvm.class.getName());
    command.add(mode);
    return new ProcessBuilder(command);
  }

  private static Path codeLocation(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot locate the class path entry of " + type, e);
    }
  }

  private static boolean answersOk(HttpClient http, URI uri) throws InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  private static int[] freePorts(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>(count);
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  Files.delete(path);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
