package io.lakestream.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
        + LakestreamLauncher.SERVER_HEAP
        + ") on an empty data directory; idle RSS read "
        + IDLE_PERIOD.toSeconds()
        + " s after one /health request";
  }

  @Override
  public List<Figure> run(BenchmarkContext context) throws Exception {
    Path launcher = LakestreamLauncher.find(context.lakestreamHome());
    try (HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build()) {
      List<Sample> samples = context.iterate(() -> measure(launcher, http));
      return List.of(
          Figure.paired(
              "ready_ms",
              samples,
              Sample::readyMillis,
              "ms",
              "trivial JVM, start to exit",
              Sample::trivialJvmExitMillis,
              Target.below(READY_TARGET_MS)),
          Figure.paired(
              "idle_rss_mib",
              samples,
              Sample::idleRssMib,
              "MiB",
              "trivial idle JVM, VmRSS",
              Sample::idleJvmRssMib,
              Target.below(IDLE_RSS_TARGET_MIB)));
    }
  }

  private record Sample(
      double readyMillis, double idleRssMib, double trivialJvmExitMillis, double idleJvmRssMib) {}

  private record ServerSample(double readyMillis, double idleRssMib) {}

  private static Sample measure(Path launcher, HttpClient http) throws Exception {
    try (TemporaryDirectory directory = TemporaryDirectory.create("lakestream-bench-startup-")) {
      Path work = directory.path();
      double trivialJvmExitMillis = timeTrivialJvmExit(work);
      ServerSample server = measureServer(launcher, http, work);
      double idleJvmRssMib = measureIdleJvm(work);
      return new Sample(
          server.readyMillis(), server.idleRssMib(), trivialJvmExitMillis, idleJvmRssMib);
    }
  }

  private static ServerSample measureServer(Path launcher, HttpClient http, Path work)
      throws Exception {
    try (LaunchedServer launched =
        LaunchedServer.start(
            launcher,
            work.resolve("data"),
            work.resolve("server.log"),
            "Lakestream server",
            List.of(),
            http,
            REQUEST_TIMEOUT)) {
      ChildProcess server = launched.process();
      URI base = launched.base();
      double readyMillis = server.millisSinceStart();
      if (!HttpProbes.answersOk(http, base.resolve("/health"), REQUEST_TIMEOUT)) {
        throw server.failure("was ready but GET /health did not answer 200");
      }
      server.stayAliveFor(IDLE_PERIOD);
      String command = server.commandName();
      if (!command.equals("java")) {
        throw server.failure(
            "is '" + command + "', not java: the launcher no longer execs the server JVM");
      }
      double idleRssMib = server.residentMemoryMib();
      launched.stopCleanly();
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
    command.addAll(LakestreamLauncher.JVM_FLAGS);
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
}
